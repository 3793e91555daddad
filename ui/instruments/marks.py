"""Instrument marks on the canvas: a small badge above a card, and an outline around it.

Each instrument (verify, what changed) owns one ``CanvasMarks``; its badges are child
items of the cards, so they move with them, and they are drawn by the instrument, not
by the card (which stays the document's picture).  Badges of different instruments
sit at different corners.
"""

from __future__ import annotations

from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ui.canvas.scene import GraphScene

AGREES = "#30a46c"
DIFFERS = "#e5484d"
CHANGED = "#f5a524"
BADGE_HEIGHT = 16.0


@dataclass(frozen=True)
class Mark:
    text: str
    colour: str
    tooltip: str = ""
    outline: bool = False


class MarkItem(QGraphicsItem):
    """One badge over a card (``corner``: "left" or "right"), with an optional outline."""

    def __init__(self, parent: QGraphicsItem, mark: Mark, corner: str) -> None:
        super().__init__(parent)
        self.mark = mark
        self.corner = corner
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # clicks reach the card
        self.setZValue(5.0)
        self.setToolTip(mark.tooltip)
        self.font = QFont()
        self.font.setPixelSize(10)
        self.font.setBold(True)
        card = parent.shape().boundingRect().adjusted(6.0, 0.0, -6.0, 0.0)
        width = QFontMetricsF(self.font).horizontalAdvance(mark.text) + 12.0
        x = card.right() - width - 6.0 if corner == "right" else card.left() + 6.0
        self.badge = QRectF(x, card.top() - BADGE_HEIGHT + 3.0, width, BADGE_HEIGHT)
        self.card = card
        self._bounds = self.badge.united(card.adjusted(-12.0, -12.0, 12.0, 12.0))

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds if self.mark.outline else self.badge.adjusted(-1, -1, 1, 1)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        colour = QColor(self.mark.colour)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if self.mark.outline:
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(colour, 2.5, Qt.PenStyle.DashLine))
            painter.drawRoundedRect(self.card.adjusted(-9.5, -9.5, 9.5, 9.5), 14.0, 14.0)
        painter.setPen(QPen(colour.darker(140), 1.0))
        painter.setBrush(colour)
        painter.drawRoundedRect(self.badge, BADGE_HEIGHT / 2, BADGE_HEIGHT / 2)
        painter.setFont(self.font)
        painter.setPen(QColor("#ffffff") if colour.lightness() < 150 else QColor("#1b1b1f"))
        painter.drawText(self.badge, Qt.AlignmentFlag.AlignCenter, self.mark.text)


class CanvasMarks:
    """The marks one instrument shows on the canvas, by node id."""

    def __init__(self, scene: GraphScene, corner: str) -> None:
        self.scene = scene
        self.corner = corner
        self.items: dict[str, MarkItem] = {}

    def set(self, marks: dict[str, Mark]) -> None:
        self.clear()
        for node_id, mark in marks.items():
            card = self.scene.node_item(node_id)
            if card is not None:
                self.items[node_id] = MarkItem(card, mark, self.corner)

    def clear(self) -> None:
        for item in self.items.values():
            if shiboken6.isValid(item) and item.scene() is not None:
                item.scene().removeItem(item)
        self.items = {}

    def mark(self, node_id: str) -> Mark | None:
        item = self.items.get(node_id)
        return None if item is None else item.mark
