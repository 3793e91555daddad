"""A one-line label that gives its width up to the panels beside it."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QWidget

SEPARATOR = " · "


class ElidedLabel(QLabel):
    """Shows what fits and ends with "…".  A plain QLabel's minimum is its whole text,
    so a long hint under the canvas held the canvas wide and a small window squeezed
    the inspector to a sliver instead; the full text stays in the tooltip."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setToolTip(text)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(0, super().minimumSizeHint().height())

    def shown_text(self) -> str:
        """The text as drawn at the label's width: a list of hints (``a · b · c``) loses
        whole hints from its end rather than a cut word; other text ends with "…"."""
        text, width = self.text(), self.contentsRect().width()
        metrics = self.fontMetrics()
        parts = text.split(SEPARATOR)
        if len(parts) > 1:
            for n in range(len(parts), 0, -1):
                shown = SEPARATOR.join(parts[:n])
                if metrics.horizontalAdvance(shown) <= width:
                    return shown
            return ""
        return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        self.style().drawItemText(
            painter,
            self.contentsRect(),
            int(self.alignment()),
            self.palette(),
            self.isEnabled(),
            self.shown_text(),
            self.foregroundRole(),
        )
        painter.end()
