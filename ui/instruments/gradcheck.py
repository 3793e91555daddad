"""Check gradient: a node's analytic and numerical Jacobians side by side as heat maps.

The check (``gradstudio.instruments.gradcheck``) runs in a child process
(``InstrumentJob``): it re-runs the node, a learner's own ``backward`` included, and
that code never runs in the studio.  Both maps share one diverging colour scale
(blue negative, white zero, red positive) so equal entries look equal; entries
outside the tolerance are outlined, each cell big enough for its number shows it
(measured with the font, so no number is cut), and hovering an entry tells its row
and column, which output and input element it is, and both values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QPoint, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFontMetricsF,
    QImage,
    QLinearGradient,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
)
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from gradstudio.instruments.gradcheck import Entry, GradcheckResult
from gradstudio.interchange.quoting import printable
from gradstudio.text import html_text
from ui.instruments.job import InstrumentJob

if TYPE_CHECKING:
    from gradstudio.document.model import Document

NEGATIVE = np.array([33, 102, 172], dtype=np.float64)  # RdBu ends
ZERO = np.array([247, 247, 247], dtype=np.float64)
POSITIVE = np.array([178, 24, 43], dtype=np.float64)
MISMATCH = QColor("#ffb000")  # amber: visible on red, blue, white and both themes
MAX_OUTLINED = 2000
CELL_PAD = 3.0  # room kept clear between a cell's number and its edges
#: Luminance above which a cell's number is drawn black, under it white.
LIGHT_CELL = 140.0


def cell_text(value: float) -> str:
    """An entry as its cell shows it: short, as the tooltip's longer form rounds it."""
    return f"{value:.3g}"


def diverging(values: np.ndarray, scale: float) -> np.ndarray:
    """RGBA bytes for ``values`` on a blue-white-red scale from ``-scale`` to ``scale``
    (NaN is drawn grey)."""
    t = np.clip(np.nan_to_num(values / scale if scale > 0 else values * 0.0), -1.0, 1.0)
    t = t[..., None]
    rgb = np.where(t < 0, ZERO + (NEGATIVE - ZERO) * -t, ZERO + (POSITIVE - ZERO) * t)
    rgb[np.isnan(values)] = (128, 128, 128)
    alpha = np.full((*values.shape, 1), 255.0)
    return np.ascontiguousarray(np.concatenate([rgb, alpha], axis=-1).round().astype(np.uint8))


def _where(e: Entry) -> str:
    out = printable(e.output) + (str(list(e.output_index)) if e.output_index else "")
    inp = printable(e.input) + (str(list(e.input_index)) if e.input_index else "")
    return f"∂({out})/∂({inp})"


class HeatMap(QWidget):
    """One Jacobian as a picture: a cell per entry, differing entries outlined."""

    hovered = Signal(int, int)

    def __init__(
        self, title: str, result: GradcheckResult, values: np.ndarray, scale: float
    ) -> None:
        super().__init__()
        self.title = title
        self.result = result
        self.values = values
        rgba = diverging(values, scale)
        rows, cols = values.shape
        self.image = QImage(rgba.data, cols, rows, cols * 4, QImage.Format.Format_RGBA8888).copy()
        self.bad = [(e.row, e.column) for e in result.mismatches[:MAX_OUTLINED]]
        #: What the last paint wrote in the cells: ``(row, column, text)``.
        self.drawn_numbers: list[tuple[int, int, str]] = []
        self.setMouseTracking(True)
        self.setMinimumSize(160, 160)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(300, 300)

    def cells(self) -> QRectF:
        """Where the cells are drawn: square cells, centred, under the title."""
        rows, cols = self.values.shape
        area = QRectF(self.rect()).adjusted(4, 20, -4, -20)
        size = min(area.width() / max(cols, 1), area.height() / max(rows, 1))
        w, h = size * cols, size * rows
        top = area.top() + (area.height() - h) / 2
        return QRectF(area.left() + (area.width() - w) / 2, top, w, h)

    def entry_at(self, pos: QPointF) -> tuple[int, int] | None:
        r = self.cells()
        rows, cols = self.values.shape
        if not r.contains(pos) or rows == 0 or cols == 0:
            return None
        col = min(int((pos.x() - r.left()) / r.width() * cols), cols - 1)
        row = min(int((pos.y() - r.top()) / r.height() * rows), rows - 1)
        return row, col

    def tooltip(self, row: int, col: int) -> str:
        e = self.result.entry(row, col)
        state = "DIFFERS" if (row, col) in set(self.bad) else "agrees"
        return (
            f"entry ({row}, {col}): {_where(e)}\n"
            f"analytic {e.analytic:.6g}\nnumerical {e.numerical:.6g}\n"
            f"|error| {e.error:.3g} ({state})"
        )

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        at = self.entry_at(event.position())
        if at is None:
            QToolTip.hideText()
            return
        self.hovered.emit(*at)
        QToolTip.showText(event.globalPosition().toPoint(), self.tooltip(*at), self)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        p.setPen(self.palette().windowText().color())
        p.drawText(QRectF(0, 0, self.width(), 18), Qt.AlignmentFlag.AlignCenter, self.title)
        r = self.cells()
        p.drawImage(r, self.image)
        rows, cols = self.values.shape
        if rows and cols:
            cw, ch = r.width() / cols, r.height() / rows
            p.setBrush(Qt.BrushStyle.NoBrush)
            pen = QPen(MISMATCH, 3.0 if cw >= 8 else 1.0)
            p.setPen(pen)
            for row, col in self.bad:
                p.drawRect(
                    QRectF(r.left() + col * cw, r.top() + row * ch, cw, ch).adjusted(1, 1, -1, -1)
                )
        self._draw_numbers(p, r)
        p.setPen(QPen(self.palette().mid().color(), 1.0))
        p.drawRect(r)
        # where one input's columns (one output's rows) end and the next begin
        for axis in self.result.columns[1:]:
            x = r.left() + axis.offset * r.width() / max(cols, 1)
            p.drawLine(QPointF(x, r.top() - 4), QPointF(x, r.bottom() + 4))
        for axis in self.result.rows[1:]:
            y = r.top() + axis.offset * r.height() / max(rows, 1)
            p.drawLine(QPointF(r.left() - 4, y), QPointF(r.right() + 4, y))
        p.setPen(self.palette().windowText().color())
        for axis in self.result.columns:  # which input each block of columns is
            x0 = r.left() + axis.offset * r.width() / max(cols, 1)
            span = QRectF(x0, r.bottom() + 2, axis.size * r.width() / max(cols, 1), 16)
            p.drawText(span, Qt.AlignmentFlag.AlignCenter, f"∂{printable(axis.name)}")
        p.end()

    def _draw_numbers(self, p: QPainter, r: QRectF) -> None:
        """Each entry's number in its cell where the font says it fits, black or white by
        the cell's lightness; cells too small keep only the colour (and the tooltip)."""
        self.drawn_numbers = []
        rows, cols = self.values.shape
        if not rows or not cols:
            return
        cw, ch = r.width() / cols, r.height() / rows
        metrics = QFontMetricsF(p.font())
        if metrics.height() + CELL_PAD > ch or metrics.horizontalAdvance("0") + 2 * CELL_PAD > cw:
            return
        for row in range(rows):
            for col in range(cols):
                text = cell_text(float(self.values[row, col]))
                if metrics.horizontalAdvance(text) + 2 * CELL_PAD > cw:
                    continue
                colour = QColor(self.image.pixel(col, row))
                light = 0.299 * colour.red() + 0.587 * colour.green() + 0.114 * colour.blue()
                p.setPen(QColor("black") if light > LIGHT_CELL else QColor("white"))
                cell = QRectF(r.left() + col * cw, r.top() + row * ch, cw, ch)
                p.drawText(cell, Qt.AlignmentFlag.AlignCenter, text)
                self.drawn_numbers.append((row, col, text))


class ColourScale(QWidget):
    """The shared scale: -max … 0 … +max."""

    def __init__(self, scale: float) -> None:
        super().__init__()
        self.scale = scale
        self.setFixedWidth(70)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        bar = QRectF(6, 22, 14, max(self.height() - 30, 20))
        g = QLinearGradient(bar.topLeft(), bar.bottomLeft())
        g.setColorAt(0.0, QColor(*POSITIVE.astype(int)))
        g.setColorAt(0.5, QColor(*ZERO.astype(int)))
        g.setColorAt(1.0, QColor(*NEGATIVE.astype(int)))
        p.fillRect(bar, g)
        p.setPen(self.palette().windowText().color())
        p.drawRect(bar)
        for frac, value in ((0.0, self.scale), (0.5, 0.0), (1.0, -self.scale)):
            y = bar.top() + frac * bar.height()
            p.drawText(QPoint(int(bar.right()) + 4, int(y) + 4), f"{value:.3g}")
        p.end()


class GradcheckDialog(QDialog):
    """Runs the check for one node and shows the two Jacobians (non-modal)."""

    finished_check = Signal()

    def __init__(self, doc: Document, node_id: str, label: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("gradcheckDialog")
        self.setWindowTitle(f"Check gradient: {printable(label)}")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.result: GradcheckResult | None = None
        self.error = ""
        self.maps: list[HeatMap] = []
        self.verdict = QLabel("Computing the Jacobians in float64…", self)
        self.verdict.setObjectName("gradcheckVerdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.details = QLabel(self)
        self.details.setObjectName("gradcheckDetails")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.maps_row = QHBoxLayout()
        self.cancel_button = QPushButton("Cancel", self)
        close = QPushButton("Close", self)
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.verdict)
        lay.addLayout(self.maps_row, 1)
        lay.addWidget(self.details)
        lay.addLayout(buttons)
        self.resize(760, 480)
        self.job = InstrumentJob(self)
        self.job.done.connect(self._done)
        self.cancel_button.clicked.connect(self.job.cancel)
        self.job.start("gradcheck", doc, node=node_id)

    def closeEvent(self, event) -> None:  # type: ignore[no-untyped-def]  # noqa: N802
        self.job.cancel()
        super().closeEvent(event)

    def _done(self, payload: dict) -> None:
        self.cancel_button.hide()
        if "result" in payload:
            self.show_result(payload["result"])
        else:
            self.error = str(payload.get("error") or "cancelled")
            self.verdict.setText(f"Cannot check this node: {html_text(self.error)}")
        self.finished_check.emit()

    def show_result(self, result: GradcheckResult) -> None:
        self.result = result
        both = np.concatenate([result.analytic.ravel(), result.numerical.ravel()])
        finite = np.abs(both[np.isfinite(both)])
        scale = float(finite.max()) if finite.size else 1.0
        for title, values in (
            ("analytic (backward)", result.analytic),
            ("numerical (finite differences)", result.numerical),
        ):
            heat = HeatMap(title, result, values, scale)
            self.maps.append(heat)
            self.maps_row.addWidget(heat, 1)
        self.maps_row.addWidget(ColourScale(scale))
        n_rows, n_cols = result.analytic.shape
        if result.passed:
            head = (
                "<b style='color:#30a46c'>✓ passed</b>: the backward agrees with finite differences"
            )
        else:
            n = len(result.mismatches)
            entries = "entry differs" if n == 1 else "entries differ"
            head = f"<b style='color:#e5484d'>✗ FAILED</b>: {n} {entries} (outlined)"
        self.verdict.setText(head)
        lines = [
            f"{n_rows} × {n_cols} Jacobian (rows: outputs' elements, columns: inputs' elements), "
            f"float64, eps={result.eps:g}, atol={result.atol:g}, rtol={result.rtol:g}."
        ]
        if result.worst is not None:
            w = result.worst
            lines.append(
                f"Largest error {result.max_error:.3g} at entry ({w.row}, {w.column}): "
                f"{_where(w)}, analytic {w.analytic:.6g}, numerical {w.numerical:.6g}."
            )
        for e in result.mismatches[:5]:
            lines.append(
                f"differs at ({e.row}, {e.column}) {_where(e)}: analytic {e.analytic:.6g}, "
                f"numerical {e.numerical:.6g}"
            )
        self.details.setText("\n".join(lines))
