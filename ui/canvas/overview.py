"""The whole graph as a few batched paths, for zoomed-out views of big graphs.

Far out, a card is a few pixels and a wire a hairline, yet each item costs Qt a
call into Python (and a cached pixmap) on every repaint: a 1,000-node graph took
about 17 ms per panning frame and 0.1 s for its first paint.  Below
``OVERVIEW_LOD`` the scene hides the wires and tells the cards to paint nothing
(they stay in the scene, so clicks, drags and rubber-band selection work as
before), and this single item draws the same picture: wires as straight lines,
cards as blocks with their category band and their ``requires_grad``, error and
selection outlines.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ui.canvas.style import HEADER_HEIGHT, NODE_WIDTH

if TYPE_CHECKING:
    from ui.canvas.scene import GraphScene

OVERVIEW_LOD = 0.25  # below this zoom the overview draws the graph
OUTLINE = 6.0  # scene units: about a pixel and a half at the overview's largest zoom
DIMMED_OPACITY = 0.45  # as a dimmed card paints itself

#: (what, colour rgba, dimmed) -> rectangles or lines; what is "wire", "body", "band" or
#: "outline".  Plain lists drawn with ``drawRects``/``drawLines``: filling one path of
#: a thousand rectangles costs Qt's rasterizer several times more.
Batches = dict[tuple[str, int, bool], list]


class Overview(QGraphicsItem):
    """Every wire and card of the scene in one item (see the module docstring)."""

    def __init__(self, host: GraphScene) -> None:
        super().__init__()
        self.host = host
        self._batches: Batches = {}
        self._bounds = QRectF()
        self._dirty = True
        self.setZValue(0.5)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def invalidate(self) -> None:
        """Cards or wires changed (moved, restyled, added): batch again when next asked.

        Lazy, so that building a scene of thousands of items (each announcing
        itself) batches once, not once per item.
        """
        if not self._dirty:
            self.prepareGeometryChange()  # the old bounds, before they go stale
            self._dirty = True
        self.update()

    def _rebuild(self) -> None:
        s = self.host.style
        batches: Batches = {}

        def batch(what: str, colour: QColor, dimmed: bool = False) -> list:
            return batches.setdefault((what, colour.rgba(), dimmed), [])

        plain, grad = s.c("edge"), s.c("edge_grad")
        left = top = math.inf
        right = bottom = -math.inf
        for edge in self.host.edge_items():
            batch("wire", grad if edge.carries_grad else plain).append(QLineF(edge.start, edge.end))
            for point in (edge.start, edge.end):
                left, right = min(left, point.x()), max(right, point.x())
                top, bottom = min(top, point.y()), max(bottom, point.y())
        body = s.c("node_body")
        for card in self.host.node_items():
            pos = card.pos()
            x, y = pos.x(), pos.y()
            rect = QRectF(x, y, NODE_WIDTH, card.height)
            left, right = min(left, x), max(right, x + NODE_WIDTH)
            top, bottom = min(top, y), max(bottom, y + card.height)
            dimmed = card.dimmed
            batch("body", body, dimmed).append(rect)
            band = QRectF(x, y, NODE_WIDTH, HEADER_HEIGHT)
            batch("band", s.category(card.node_type.category), dimmed).append(band)
            selected = card.isSelected()
            if selected or card.facts.status == "error" or card.facts.requires_grad:
                colour = s.c("node_selected") if selected else card.border_color(s)
                batch("outline", colour, dimmed).append(rect)
        bounds = QRectF(left, top, right - left, bottom - top) if batches else QRectF()
        order = {"wire": 0, "body": 1, "band": 2, "outline": 3}
        self._dirty = False
        self._batches = dict(sorted(batches.items(), key=lambda kv: order[kv[0][0]]))
        self._bounds = bounds.adjusted(-OUTLINE, -OUTLINE, OUTLINE, OUTLINE)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        if self._dirty:
            self._rebuild()
        return self._bounds

    def shape(self) -> QPainterPath:
        return QPainterPath()  # never under the mouse: the cards themselves take clicks

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if self._dirty:
            self._rebuild()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # hairlines, blocks
        for (what, rgba, dimmed), shapes in self._batches.items():
            painter.setOpacity(DIMMED_OPACITY if dimmed else 1.0)
            colour = QColor.fromRgba(rgba)
            if what == "wire":
                pen = QPen(colour, 1.0)
                pen.setCosmetic(True)
                painter.setPen(pen)
                painter.drawLines(shapes)
            elif what == "outline":
                painter.setPen(QPen(colour, OUTLINE))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRects(shapes)
            else:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(colour)
                painter.drawRects(shapes)
        painter.setOpacity(1.0)
