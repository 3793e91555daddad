"""Tensors as numbers and as pictures: a heat map for 2-D, a bar strip for 1-D.

A learner reads a gradient faster from colour than from a column of digits, but
must still be able to check the exact number PyTorch prints.  So every tensor is
shown three ways at once: a picture (diverging colours centred on 0, so the sign
of a gradient is visible at a glance), the colour scale that reads it, and the
text PyTorch's ``repr`` would print.  Values and gradients sit side by side with
the same layout so they can be compared cell by cell.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QImage,
    QLinearGradient,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from gradstudio.text import shape_text

#: Negative end, positive end of the diverging map (ColorBrewer RdBu, colour-blind safe).
NEGATIVE = QColor("#2166ac")
POSITIVE = QColor("#b2182b")
MAX_PRINTED = 200_000  # elements; beyond this the repr is not built (it would stall the UI)
MAX_TEXT_CELL = 400  # heat-map cells up to which numbers are drawn inside the cells


def is_dark(palette: QPalette) -> bool:
    """Whether the palette is a dark theme (colours with a light centre would glare)."""
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def neutral(palette: QPalette) -> QColor:
    """The colour of zero: close to the background, so zeros recede."""
    return QColor("#3b3f46") if is_dark(palette) else QColor("#f4f4f4")


def _lut(palette: QPalette) -> np.ndarray:
    """256 ARGB32 colours from NEGATIVE through neutral to POSITIVE."""
    return _lut_for(neutral(palette).rgb())


@functools.lru_cache(maxsize=4)
def _lut_for(mid_rgb: int) -> np.ndarray:
    mid = QColor.fromRgb(mid_rgb)
    t = np.linspace(-1.0, 1.0, 256)
    out = np.empty(256, dtype=np.uint32)
    for i, v in enumerate(t):
        end = POSITIVE if v >= 0 else NEGATIVE
        a = abs(v) ** 0.8  # lift small magnitudes a little so they are not lost
        r = round(mid.red() + (end.red() - mid.red()) * a)
        g = round(mid.green() + (end.green() - mid.green()) * a)
        b = round(mid.blue() + (end.blue() - mid.blue()) * a)
        out[i] = 0xFF000000 | (r << 16) | (g << 8) | b
    return out


def color_for(value: float, limit: float, palette: QPalette) -> QColor:
    """The map's colour for one value (NaN/inf get a loud magenta: they are bugs)."""
    if not math.isfinite(value):
        return QColor("#d000d0")
    index = _lut_index(np.asarray([value], dtype=np.float64), limit)[0]
    return QColor.fromRgba(int(_lut(palette)[index]))


def _lut_index(arr: np.ndarray, limit: float) -> np.ndarray:
    scaled = np.clip(np.nan_to_num(arr / limit if limit > 0 else arr * 0.0), -1.0, 1.0)
    return np.round((scaled + 1.0) * 127.5).astype(np.intp)


def symmetric_limit(arr: np.ndarray | None) -> float:
    """The largest finite magnitude (1 for empty/all-zero data), so 0 is the centre."""
    if arr is None or arr.size == 0:
        return 1.0
    finite = np.abs(arr[np.isfinite(arr)]) if arr.dtype.kind == "f" else np.abs(arr)
    if finite.size == 0:
        return 1.0
    top = float(finite.max())
    return top if top > 0 else 1.0


def short_number(v: float) -> str:
    """A number for a cell label: at most about five characters."""
    if not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if v == int(v) and abs(v) < 1e5:
        return str(int(v))
    text = f"{v:.3g}"
    return text.replace("e-0", "e-").replace("e+0", "e")


def _as_float(arr: np.ndarray) -> np.ndarray:
    if arr.dtype.kind == "b":
        return arr.astype(np.float64)
    return arr.astype(np.float64, copy=False)


def tensor_text(
    arr: np.ndarray | None,
    dtype: str = "float32",
    device: str = "cpu",
    grad_fn: str | None = None,
    requires_grad: bool = False,
) -> str:
    """What ``print(t)`` shows in PyTorch, built with the engine's own formatter."""
    if arr is None:
        return "None"
    if arr.size > MAX_PRINTED:
        return f"<tensor of shape {shape_text(arr.shape)}: too large to print>"
    import engine

    try:
        shown = repr(engine.tensor(arr.tolist(), dtype=getattr(engine, dtype)))
    except (AttributeError, TypeError, ValueError):
        shown = f"tensor({arr.tolist()!r})"
    suffix = []
    if device.startswith("cuda"):
        body, sep, rest = shown.rpartition(", dtype=")
        if sep:
            shown = f"{body}, device='{device}'{sep}{rest}"
        else:
            suffix.append(f"device='{device}'")
    if grad_fn is not None:
        suffix.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffix.append("requires_grad=True")
    if suffix:
        shown = shown[:-1] + ", " + ", ".join(suffix) + ")"
    return shown


class WrapLabel(QLabel):
    """A word-wrapped label whose minimum height is one line.

    A wrapped QLabel's minimum size is computed at a tiny width, i.e. very tall;
    inside a scroll area that reserves large gaps.  With a one-line minimum the
    layout uses the label's height-for-width at the real width instead.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt API
        return QSize(60, self.fontMetrics().height())


class TensorPicture(QWidget):
    """Paints one tensor: a swatch (0-D), a bar strip (1-D) or a heat map (≥2-D).

    More than two dimensions are shown with the leading ones flattened into rows,
    which keeps every element visible without a slicing UI.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._arr: np.ndarray | None = None
        self._grid: np.ndarray | None = None  # the 2-D view actually painted
        self._limit = 1.0
        self._image: QImage | None = None
        self._image_key: tuple[int, bool] | None = None
        self._placeholder = "None"
        self.setMouseTracking(True)
        self.setMinimumHeight(44)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    # -- data ----------------------------------------------------------------
    def set_data(
        self, arr: np.ndarray | None, limit: float | None = None, placeholder: str = "None"
    ) -> None:
        self._arr = None if arr is None else _as_float(np.asarray(arr))
        self._placeholder = placeholder
        self._limit = symmetric_limit(self._arr) if limit is None else (limit or 1.0)
        if self._arr is None or self._arr.ndim < 2:
            self._grid = None
        else:
            self._grid = self._arr.reshape(-1, self._arr.shape[-1]) if self._arr.size else None
        self._image = None
        self.updateGeometry()
        self.update()

    @property
    def limit(self) -> float:
        return self._limit

    @property
    def mode(self) -> str:
        """``none``, ``scalar``, ``bars`` or ``heatmap``: what is painted."""
        if self._arr is None:
            return "none"
        if self._arr.ndim == 0:
            return "scalar"
        if self._arr.ndim == 1:
            return "bars"
        return "heatmap"

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        mode = self.mode
        if mode == "heatmap" and self._grid is not None:
            rows, cols = self._grid.shape
            cell = max(6, min(34, 220 // max(cols, 1)))
            return QSize(240, min(260, max(60, rows * cell + 8)))
        if mode == "bars":
            return QSize(240, 96)
        return QSize(160, 56)

    # -- geometry ------------------------------------------------------------
    def _heat_rect(self) -> QRectF:
        assert self._grid is not None
        rows, cols = self._grid.shape
        avail = QRectF(self.rect()).adjusted(2, 2, -2, -2)
        cell = min(avail.width() / max(cols, 1), avail.height() / max(rows, 1), 48.0)
        w, h = cell * cols, cell * rows
        return QRectF(avail.left(), avail.top() + (avail.height() - h) / 2, w, h)

    def _bar_rect(self) -> QRectF:
        return QRectF(self.rect()).adjusted(4, 16, -4, -4)

    def index_at(self, pos: QPointF) -> tuple[int, ...] | None:
        """The element index under a widget position (for the tooltip)."""
        arr = self._arr
        if arr is None or arr.size == 0:
            return None
        if arr.ndim == 0:
            return ()
        if arr.ndim == 1:
            r = self._bar_rect()
            if not r.contains(pos):
                return None
            i = int((pos.x() - r.left()) / r.width() * arr.shape[0])
            return (min(max(i, 0), arr.shape[0] - 1),)
        r = self._heat_rect()
        if not r.contains(pos) or self._grid is None:
            return None
        rows, cols = self._grid.shape
        row = min(int((pos.y() - r.top()) / r.height() * rows), rows - 1)
        col = min(int((pos.x() - r.left()) / r.width() * cols), cols - 1)
        return tuple(int(i) for i in np.unravel_index(row * cols + col, arr.shape))

    # -- painting ------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt API
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        mode = self.mode
        if mode == "none" or (self._arr is not None and self._arr.size == 0):
            self._paint_placeholder(p, "empty tensor" if mode != "none" else self._placeholder)
        elif mode == "scalar":
            self._paint_scalar(p)
        elif mode == "bars":
            self._paint_bars(p)
        else:
            self._paint_heatmap(p)
        p.end()

    def _paint_placeholder(self, p: QPainter, text: str) -> None:
        pal = self.palette()
        pen = QPen(pal.color(QPalette.ColorRole.Mid), 1, Qt.PenStyle.DashLine)
        p.setPen(pen)
        p.drawRoundedRect(QRectF(self.rect()).adjusted(1.5, 1.5, -1.5, -1.5), 6, 6)
        p.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
        p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, text)

    def _text_pen(self, fill: QColor) -> QColor:
        return QColor("#111111") if fill.lightness() > 140 else QColor("#f5f5f5")

    def _paint_scalar(self, p: QPainter) -> None:
        assert self._arr is not None
        v = float(self._arr)
        fill = color_for(v, self._limit, self.palette())
        r = QRectF(self.rect()).adjusted(2, 2, -2, -2)
        side = min(r.height(), 120.0)
        box = QRectF(r.left(), r.top() + (r.height() - side) / 2, max(side * 1.8, 72.0), side)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setBrush(fill)
        p.setPen(QPen(self.palette().color(QPalette.ColorRole.Mid), 1))
        p.drawRoundedRect(box, 6, 6)
        f = QFont(self.font())
        f.setPointSizeF(f.pointSizeF() * 1.25)
        f.setBold(True)
        p.setFont(f)
        p.setPen(self._text_pen(fill))
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, short_number(v))

    def _paint_bars(self, p: QPainter) -> None:
        arr = self._arr
        assert arr is not None
        pal = self.palette()
        r = self._bar_rect()
        n = arr.shape[0]
        has_neg = bool(np.nanmin(arr) < 0) if np.isfinite(arr).any() else False
        has_pos = bool(np.nanmax(arr) > 0) if np.isfinite(arr).any() else False
        if has_neg and has_pos:
            base = r.top() + r.height() / 2
            scale = r.height() / 2
        elif has_neg:
            base, scale = r.top(), r.height()
        else:
            base, scale = r.bottom(), r.height()
        p.setPen(QPen(pal.color(QPalette.ColorRole.Mid), 1))
        p.drawLine(QPointF(r.left(), base), QPointF(r.right(), base))
        width = r.width() / n
        values = arr
        if width > 56:  # a few elements: fixed-width bars, centred, not slabs
            width = 56.0
            r = QRectF(r.center().x() - width * n / 2, r.top(), width * n, r.height())
        if width < 1.0:  # more elements than pixels: one bar per pixel, the largest magnitude
            buckets = int(r.width())
            edges = np.linspace(0, n, buckets + 1).astype(int)
            picks = [
                arr[a:b][np.nanargmax(np.abs(np.nan_to_num(arr[a:b])))] if b > a else 0.0
                for a, b in itertools.pairwise(edges)
            ]
            values = np.asarray(picks)
            width = r.width() / len(values)
        colours = _lut(pal)[_lut_index(values, self._limit)]
        show_text = width >= 26
        small = QFont(self.font())
        small.setPointSizeF(max(6.5, small.pointSizeF() * 0.8))
        p.setFont(small)
        for i, v in enumerate(values.tolist()):
            x = r.left() + i * width
            gap = 1.0 if width >= 4 else 0.0
            fill = QColor.fromRgba(int(colours[i])) if math.isfinite(v) else QColor("#d000d0")
            h = (min(abs(v) / self._limit, 1.0) if math.isfinite(v) else 1.0) * scale
            top = base - h if v >= 0 else base
            p.fillRect(QRectF(x + gap / 2, top, max(width - gap, 0.8), max(h, 1.0)), fill)
            if show_text:
                p.setPen(pal.color(QPalette.ColorRole.Text))
                label = QRectF(x, r.top() - 15, width, 14)
                p.drawText(label, Qt.AlignmentFlag.AlignCenter, short_number(v))

    def _build_image(self) -> QImage:
        assert self._grid is not None
        key = (id(self._grid), is_dark(self.palette()))
        if self._image is not None and self._image_key == key:
            return self._image
        rows, cols = self._grid.shape
        argb = np.ascontiguousarray(_lut(self.palette())[_lut_index(self._grid, self._limit)])
        argb[~np.isfinite(self._grid)] = 0xFFD000D0
        image = QImage(argb.tobytes(), cols, rows, cols * 4, QImage.Format.Format_ARGB32).copy()
        self._image, self._image_key = image, key
        return image

    def _paint_heatmap(self, p: QPainter) -> None:
        assert self._grid is not None
        pal = self.palette()
        rows, cols = self._grid.shape
        r = self._heat_rect()
        p.drawImage(r, self._build_image())
        cell = r.width() / cols
        if cell >= 7 and rows * cols <= 40_000:
            p.setPen(QPen(pal.color(QPalette.ColorRole.Window), 1))
            for c in range(1, cols):
                x = r.left() + c * cell
                p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()))
            for row in range(1, rows):
                y = r.top() + row * cell
                p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y))
        p.setPen(QPen(pal.color(QPalette.ColorRole.Mid), 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(r)
        if cell >= 26 and rows * cols <= MAX_TEXT_CELL:
            small = QFont(self.font())
            small.setPointSizeF(max(6.5, min(small.pointSizeF(), cell / 3.2)))
            p.setFont(small)
            for (row, col), v in np.ndenumerate(self._grid):
                fill = color_for(float(v), self._limit, pal)
                p.setPen(self._text_pen(fill))
                box = QRectF(r.left() + col * cell, r.top() + row * cell, cell, cell)
                p.drawText(box, Qt.AlignmentFlag.AlignCenter, short_number(float(v)))

    # -- interaction ---------------------------------------------------------
    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt API
        index = self.index_at(event.position())
        if index is None or self._arr is None:
            QToolTip.hideText()
            return
        v = float(self._arr[index]) if index else float(self._arr)
        where = "[" + ", ".join(map(str, index)) + "]" if index else "value"
        QToolTip.showText(event.globalPosition().toPoint(), f"{where} = {v:.6g}", self)


class ColorScale(QWidget):
    """The legend of the diverging map: −limit · 0 · +limit."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._limit = 1.0
        self.setFixedHeight(26)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_limit(self, limit: float) -> None:
        self._limit = limit
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt API
        p = QPainter(self)
        pal = self.palette()
        bar = QRectF(self.rect()).adjusted(1, 1, -1, -13)
        grad = QLinearGradient(bar.topLeft(), bar.topRight())
        lut = _lut(pal)
        for stop in np.linspace(0.0, 1.0, 9):
            grad.setColorAt(float(stop), QColor.fromRgba(int(lut[round(stop * 255)])))
        p.fillRect(bar, grad)
        p.setPen(QPen(pal.color(QPalette.ColorRole.Mid), 1))
        p.drawRect(bar)
        small = QFont(self.font())
        small.setPointSizeF(max(6.5, small.pointSizeF() * 0.8))
        p.setFont(small)
        p.setPen(pal.color(QPalette.ColorRole.PlaceholderText))
        text_row = QRectF(self.rect()).adjusted(0, bar.height() + 1, 0, 0)
        lim = short_number(self._limit)
        p.drawText(text_row, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, f"−{lim}")
        p.drawText(text_row, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter, "0")
        p.drawText(text_row, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"+{lim}")
        p.end()


def mono_font() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


class TensorPanel(QWidget):
    """One tensor under a title: summary line, picture, colour scale, printed value."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel(f"<b>{title}</b>")
        self.summary = WrapLabel()
        self.summary.setObjectName("tensorSummary")
        self.picture = TensorPicture()
        self.scale = ColorScale()
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(mono_font())
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setMaximumHeight(86)
        self.text.setFrameShape(QPlainTextEdit.Shape.StyledPanel)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        for w in (self.title, self.summary, self.picture, self.scale, self.text):
            lay.addWidget(w)

    def set_tensor(
        self,
        arr: np.ndarray | None,
        dtype: str = "float32",
        device: str = "cpu",
        *,
        text: str | None = None,
        placeholder: str = "None",
    ) -> None:
        """Show ``arr`` (None shows the placeholder, e.g. ".grad is None")."""
        self.picture.set_data(arr, placeholder=placeholder)
        has = arr is not None and np.asarray(arr).size > 0
        self.scale.setVisible(has and np.asarray(arr).ndim >= 0)
        self.scale.set_limit(self.picture.limit)
        if arr is None:
            self.summary.setText(f"<span style='color:{self._muted()}'>{placeholder}</span>")
        else:
            a = np.asarray(arr)
            parts = [f"shape {shape_text(a.shape)}", dtype]
            if device != "cpu":
                parts.append(device)
            if a.size and a.dtype.kind in "fiub":
                f = _as_float(a)
                finite = f[np.isfinite(f)]
                if finite.size:
                    parts.append(f"min {short_number(float(finite.min()))}")
                    parts.append(f"max {short_number(float(finite.max()))}")
                if finite.size != f.size:
                    parts.append(f"<b>{f.size - finite.size} non-finite</b>")
            self.summary.setText(f"<span style='color:{self._muted()}'>{' · '.join(parts)}</span>")
        shown = text if text is not None else tensor_text(arr, dtype, device)
        self.text.setPlainText(shown)
        lines = min(shown.count("\n") + 1, 6)
        metrics = self.text.fontMetrics()
        margin = 2 * (self.text.frameWidth() + int(self.text.document().documentMargin())) + 2
        scrollbar = (
            self.text.horizontalScrollBar().sizeHint().height() if self._too_wide(shown) else 0
        )
        self.text.setFixedHeight(lines * metrics.lineSpacing() + margin + scrollbar)

    def _too_wide(self, shown: str) -> bool:
        widest = max(
            (self.text.fontMetrics().horizontalAdvance(line) for line in shown.splitlines()),
            default=0,
        )
        return widest > self.text.viewport().width() - 8

    def _muted(self) -> str:
        return self.palette().color(QPalette.ColorRole.PlaceholderText).name()


class ValueGradView(QWidget):
    """The value and its gradient side by side (stacked when the dock is narrow)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("valueGradView")
        self.value = TensorPanel("value")
        self.grad = TensorPanel(".grad")
        self._layout = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(12)
        self._layout.addWidget(self.value, 1)
        self._layout.addWidget(self.grad, 1)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt API
        wanted = (
            QBoxLayout.Direction.TopToBottom
            if event.size().width() < 440
            else QBoxLayout.Direction.LeftToRight
        )
        if self._layout.direction() != wanted:
            self._layout.setDirection(wanted)
        super().resizeEvent(event)
