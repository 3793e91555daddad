"""The inspector's building blocks: collapsible titled sections, a form grid whose
wrapped fields get their true height, the holder that lays the body out at its width,
and a list of clickable links (``next_functions``, the backward trace)."""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui.inspector.value_view import WrapLabel


class Section(QWidget):
    """A titled, collapsible group; collapsed titles are remembered across nodes."""

    collapsed_titles: set[str] = set()

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.header = QToolButton(self)
        self.header.setObjectName("inspectorSection")
        self.header.setText(title)
        self.header.setCheckable(True)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setAutoRaise(True)
        self.header.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.header.setStyleSheet(
            "QToolButton { text-align: left; border: none; padding: 3px 2px; }"
        )
        f = self.header.font()
        f.setBold(True)
        self.header.setFont(f)
        self.body = QWidget(self)
        self.layout_ = QVBoxLayout(self.body)
        self.layout_.setContentsMargins(6, 2, 2, 6)
        self.layout_.setSpacing(4)
        line = QFrame(self)
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Plain)
        line.setEnabled(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(line)
        lay.addWidget(self.header)
        lay.addWidget(self.body)
        self.header.toggled.connect(self._toggle)
        self.header.setChecked(title not in self.collapsed_titles)
        self._toggle(self.header.isChecked())

    def _toggle(self, open_: bool) -> None:
        self.header.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        self.body.setVisible(open_)
        if open_:
            self.collapsed_titles.discard(self.title)
        else:
            self.collapsed_titles.add(self.title)

    def add(self, widget: QWidget) -> QWidget:
        self.layout_.addWidget(widget)
        return widget


class FlowHolder(QWidget):
    """Holds the inspector's body at the height its wrapped texts need at this width.

    A QScrollArea sizes a height-for-width layout from a stale width and spreads
    the surplus between sections as gaps; this holder has no layout of its own
    and lays its one child out by hand, giving the scroll area a plain minimum.
    """

    def __init__(self, inner: QWidget) -> None:
        super().__init__()
        self.inner = inner
        inner.setParent(self)
        inner.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if watched is self.inner and event.type() == QEvent.Type.LayoutRequest:
            QTimer.singleShot(0, self, self.fit)  # dropped if this widget dies first
        return False

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self.fit()

    def fit(self) -> None:
        if not shiboken6.isValid(self.inner):
            return
        layout = self.inner.layout()
        if layout is None:
            return
        w = max(self.width(), 1)
        h = layout.totalHeightForWidth(w) if layout.hasHeightForWidth() else -1
        h = (
            max(h, layout.totalMinimumSize().height())
            if h >= 0
            else layout.totalSizeHint().height()
        )
        self.inner.setGeometry(0, 0, w, h)
        if self.minimumHeight() != h:
            self.setMinimumHeight(h)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt API
        layout = self.inner.layout()
        width = layout.totalMinimumSize().width() if layout is not None else 0
        return QSize(width, self.minimumHeight())


class FormGrid(QGridLayout):
    """Rows of a title and a field, like ``QFormLayout``, on a grid.

    ``QFormLayout`` lays a word-wrapped field out at a wider width than the one it gives
    it, so a fact whose text wraps to two lines got the height of one and was cut in
    half; a grid asks each field's height at the width it really gets.
    """

    def addRow(self, title: str | QWidget, field: QWidget) -> None:  # noqa: N802 - Qt's name
        label = QLabel(title) if isinstance(title, str) else title
        row = self.rowCount()
        self.addWidget(label, row, 0, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.addWidget(field, row, 1)


def make_form() -> tuple[QWidget, FormGrid]:
    w = QWidget()
    form = FormGrid(w)
    form.setContentsMargins(0, 0, 0, 0)
    form.setHorizontalSpacing(10)
    form.setVerticalSpacing(4)
    form.setColumnStretch(1, 1)
    return w, form


def value_label(object_name: str) -> QLabel:
    label = WrapLabel()
    label.setObjectName(object_name)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setWordWrap(True)
    return label


def _break(text: str, metrics: QFontMetrics, room: float) -> list[str]:
    """``text`` in lines no wider than ``room``: at spaces, or inside a word too long."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if metrics.horizontalAdvance(candidate) <= room:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = word
        while metrics.horizontalAdvance(line) > room and len(line) > 1:
            cut = len(line) - 1
            while cut > 1 and metrics.horizontalAdvance(line[:cut]) > room:
                cut -= 1
            lines.append(line[:cut])
            line = line[cut:]
    if line:
        lines.append(line)
    return lines


class LinkList(QWidget):
    """A column of link-like buttons (``next_functions``, backward executions).

    A link wider than the panel breaks before its ``→ node`` part rather than widen
    the inspector past its dock (``(AccumulateGrad, 0) → torch.rand(10, …)`` labels).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(0, 0, 0, 0)
        self._lay.setSpacing(0)
        self.buttons: list[QToolButton] = []
        self._texts: list[str] = []

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        for button, text in zip(self.buttons, self._texts, strict=True):
            metrics = button.fontMetrics()
            shown = max(metrics.horizontalAdvance(line) for line in button.text().split("\n"))
            room = self.width() - (button.sizeHint().width() - shown)  # less the padding
            wanted = text
            if metrics.horizontalAdvance(text) > room > 0:
                head, arrow, tail = text.partition(" → ")
                parts = [head, "→ " + tail] if arrow else [text]
                wanted = "\n".join(ln for part in parts for ln in _break(part, metrics, room))
            if button.text() != wanted:
                button.setText(wanted)

    def set_links(self, links: list[tuple[str, str, Callable[[], None] | None, bool]]) -> None:
        """``(text, tooltip, on_click or None, bold)`` per row."""
        for b in self.buttons:
            b.deleteLater()
        self.buttons = []
        self._texts = [link[0] for link in links]
        for text, tip, on_click, bold in links:
            b = QToolButton(self)
            b.setObjectName("inspectorLink")
            b.setText(text)
            b.setToolTip(tip)
            b.setAutoRaise(True)
            b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            b.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            f = b.font()
            f.setBold(bold)
            b.setFont(f)
            if on_click is None:
                b.setEnabled(False)
            else:
                b.setCursor(Qt.CursorShape.PointingHandCursor)
                b.clicked.connect(on_click)
                b.setStyleSheet("QToolButton { color: palette(link); text-align: left; }")
            b.setMinimumWidth(1)  # may break in two lines (``_fit``) instead of widening
            self._lay.addWidget(b, 0, Qt.AlignmentFlag.AlignLeft)
            self.buttons.append(b)
        self._fit()
