"""Memory per step: a strip under the timeline, and a breakdown in the inspector.

Both read the same numbers from the playhead (``Playhead.memory_steps`` /
``memory_now``, computed by ``gradstudio.instruments.memory``), so the strip and the
inspector always agree at the same position.  Per step the strip stacks the bytes
held by tensor values, by saved tensors (what grad_fns keep for backward) and by
``.grad``; a backward that frees saved tensors shows as the saved band dropping
away, marked with ▼.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from gradstudio.evaluation.budget import format_size
from gradstudio.instruments.memory import MemoryStep, freed_by
from gradstudio.text import html_text
from ui.state import StudioState

#: The bands, bottom to top: (name, colour).
BANDS = (("values", "#4c8dd6"), ("saved tensors", "#d9822b"), (".grad", "#a23cc8"))
FREED = "#e5484d"
#: How many grad_fns and gradients the breakdown names one by one.
LISTED = 12


def bands(m: MemoryStep) -> tuple[int, int, int]:
    """Bytes of the three bands of one step."""
    return m.values_bytes, m.saved_bytes, m.grad_bytes


def step_text(steps: list[MemoryStep], index: int) -> str:
    """One step's numbers in words (the strip's tooltip)."""
    m = steps[index]
    values, saved, grads = bands(m)
    shared = saved - m.saved_private_bytes
    lines = [
        f"step {index + 1}: {format_size(m.total_bytes)} held",
        f"values (blue) {format_size(values)}",
        f"saved tensors (orange) {format_size(saved)}"
        + (f" ({format_size(shared)} of it shared with values)" if shared else ""),
        f".grad (purple) {format_size(grads)}",
    ]
    freed = freed_by(steps, index)
    if freed:
        lines.append(f"backward freed {format_size(freed)} of saved tensors")
    return "\n".join(lines)


class MemoryStrip(QWidget):
    """Stacked bars, one per step; the playhead's step is outlined; a click goes there."""

    def __init__(self, state: StudioState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryStrip")
        self.state = state
        self.setMouseTracking(True)
        self.setFixedHeight(28)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._bars: tuple[tuple, QPixmap, list[MemoryStep]] | None = None
        state.evaluationChanged.connect(self._changed)
        state.positionChanged.connect(self.update)
        state.documentReplaced.connect(self._changed)
        self._changed()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(400, 28)

    def _changed(self) -> None:
        steps = self.state.playhead.memory_steps()
        self.setVisible(bool(steps))
        self.setToolTip("")
        self.update()

    def bar_rect(self, index: int) -> QRectF:
        n = max(self.state.playhead.step_count, 1)
        w = (self.width() - 4) / n
        return QRectF(2 + index * w, 2, w, self.height() - 4)

    def step_at(self, x: float) -> int | None:
        n = self.state.playhead.step_count
        if n == 0:
            return None
        index = int((x - 2) / ((self.width() - 4) / n))
        return index if 0 <= index < n else None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        steps = self.state.playhead.memory_steps()
        index = self.step_at(event.position().x())
        text = step_text(steps, index) if index is not None and index < len(steps) else ""
        if text != self.toolTip():
            self.setToolTip(text)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        index = self.step_at(event.position().x())
        if index is not None and event.button() == Qt.MouseButton.LeftButton:
            self.state.playhead.go_to_step(index)
            event.accept()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        steps = self.state.playhead.memory_steps()
        if not steps:
            return
        p = QPainter(self)
        # the bars change with the evaluation, not the position: drawn once, then copied;
        # a re-run after editing values mostly holds the same bytes, and keeps the picture
        ratio = self.devicePixelRatioF()
        size = (self.width(), self.height(), ratio, self.state.playhead.step_count)
        bars = self._bars
        if bars is None or bars[0][:4] != size or bars[2] is not steps:
            key = (*size, tuple(map(bands, steps)))
            same = bars is not None and bars[0] == key
            picture = bars[1] if same and bars is not None else self._draw_bars(steps, ratio)
            self._bars = (key, picture, steps)
        p.drawPixmap(0, 0, self._bars[1])
        current = self.state.playhead.effective_step
        if current >= 0:
            p.setPen(QPen(self.palette().highlight().color(), 2.0))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(self.bar_rect(current).adjusted(0.5, 0.5, -0.5, -0.5))
        p.end()

    def _draw_bars(self, steps: list[MemoryStep], ratio: float) -> QPixmap:
        pixmap = QPixmap(max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio)))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        p = QPainter(pixmap)
        p.setFont(self.font())
        top = max(max(sum(bands(m)) for m in steps), 1)
        height = self.height() - 10
        colours = [QColor(colour) for _, colour in BANDS]
        for i, m in enumerate(steps):
            r = self.bar_rect(i).adjusted(1, 0, -1, 0)
            y = r.bottom()
            for value, colour in zip(bands(m), colours, strict=True):
                h = value / top * height
                if h > 0:
                    p.fillRect(QRectF(r.left(), y - h, r.width(), h), colour)
                    y -= h
            if freed_by(steps, i):
                p.setPen(QColor(FREED))
                p.drawText(QRectF(r.left(), 0, r.width(), 10), Qt.AlignmentFlag.AlignCenter, "▼")
        p.end()
        return pixmap


def breakdown_html(state: StudioState) -> str:
    """The inspector's memory lines at the playhead's step (the strip's numbers)."""
    playhead = state.playhead
    m = playhead.memory_now()
    if m is None:
        return ""
    values, saved, grads = bands(m)
    rows = [f"<b>{format_size(m.total_bytes)}</b> held after step {m.step + 1}"]
    rows.append(f"<span style='color:{BANDS[0][1]}'>■</span> values: {format_size(values)}")
    rows.append(f"<span style='color:{BANDS[1][1]}'>■</span> saved tensors: {format_size(saved)}")
    listed_saved, listed_grads = m.head(LISTED)
    for s in listed_saved:
        note = f", {s.freed} freed" if s.freed else ""
        private = "" if s.private_bytes == s.bytes else f" ({format_size(s.private_bytes)} own)"
        rows.append(f"&nbsp;&nbsp;{html_text(s.name)}: {format_size(s.bytes)}{private}{note}")
    rows.extend(_more(m.saved_count, listed_saved, saved, "grad_fns"))
    rows.append(f"<span style='color:{BANDS[2][1]}'>■</span> .grad: {format_size(grads)}")
    for g in listed_grads:
        kept = " — kept by retain_grad()" if g.retained else ""
        rows.append(f"&nbsp;&nbsp;{html_text(g.label)}.grad: {format_size(g.bytes)}{kept}")
    rows.extend(_more(m.grad_count, listed_grads, grads, "tensors"))
    freed = playhead.freed_now()
    ev = playhead.evaluation
    trace = ev.steps[m.step].trace if ev is not None else None
    if freed:
        rows.append(
            f"<span style='color:{FREED}'>▼ this backward freed {format_size(freed)} of saved "
            "tensors</span>"
        )
    elif trace is not None and saved:
        rows.append(
            f"still held after this backward: {format_size(saved)} of saved tensors "
            "(retain_graph=True keeps them)"
        )
    return "<br>".join(rows)


def _more(count: int, listed: tuple, total: int, what: str) -> list[str]:
    """The line that sums up the ``count`` items past those ``listed`` (none when all
    are): thousands of lines would make the inspector unreadable and slow to lay out."""
    if count <= len(listed):
        return []
    rest = total - sum(item.bytes for item in listed)
    return [f"&nbsp;&nbsp;… and {count - len(listed)} more {what}: {format_size(rest)}"]


class MemorySection(QLabel):
    """The breakdown at the playhead's step; follows the playhead."""

    def __init__(self, state: StudioState, section: QWidget | None = None) -> None:
        super().__init__()
        self.setObjectName("memoryBreakdown")
        self.state = state
        self.section = section
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        state.positionChanged.connect(self.refresh)
        state.evaluationChanged.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        text = breakdown_html(self.state)
        self.setText(text)
        if self.section is not None:
            self.section.setVisible(bool(text))
