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

from typing import TYPE_CHECKING

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ui.canvas.style import HEADER_HEIGHT, NODE_WIDTH

if TYPE_CHECKING:
    from ui.canvas.edge_item import EdgeItem
    from ui.canvas.node_item import NodeItem
    from ui.canvas.scene import GraphScene

OVERVIEW_LOD = 0.25  # below this zoom the overview draws the graph
SELECTED_OUTLINE = 2.0  # pixels, whatever the zoom
MARGIN = 12.0  # scene units around the bounds, for the outlines
DIMMED_OPACITY = 0.45  # as a dimmed card paints itself

#: (what, colour rgba, dimmed) -> rectangles or lines; what is "wire", "body", "band",
#: "outline" or "selected".  Plain lists drawn with ``drawRects``/``drawLines``: filling one path of
#: a thousand rectangles costs Qt's rasterizer several times more.
Batches = dict[tuple[str, int, bool], list]


class Overview(QGraphicsItem):
    """Every wire and card of the scene in one item (see the module docstring)."""

    def __init__(self, host: GraphScene) -> None:
        super().__init__()
        self.host = host
        #: Geometry (None: to measure again): each card with its rectangle and header
        #: band, each wire with its line, and the bounds of them all.
        self._cards: list[tuple[NodeItem, QRectF, QRectF]] | None = None
        self._wires: list[tuple[EdgeItem, QLineF]] = []
        self._bounds = QRectF()
        self._batches: Batches | None = None  # None: to group again by colour
        self.setZValue(0.5)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        # panning blits the picture instead of drawing thousands of shapes per frame
        # (Qt caches only the part in view for an item larger than the viewport)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def invalidate(self, geometry: bool = True) -> None:
        """Cards or wires changed: measure (``geometry``) and group them again when next
        asked.  Only restyled (facts, selection, theme): ``geometry=False``, cheaper.

        Lazy, so that building a scene of thousands of items (each announcing
        itself) measures once, not once per item.
        """
        if geometry and self._cards is not None:
            self.prepareGeometryChange()  # the old bounds, before they go stale
            self._cards = None
        self._batches = None
        self.update()

    def _measure(self) -> None:
        cards = []
        xs: list[float] = []
        ys: list[float] = []
        groups = self.host.groups
        for card in self.host.node_items():
            if not card.isVisible():  # inside a collapsed group
                continue
            pos = card.pos()
            x, y = pos.x(), pos.y()
            rect = QRectF(x, y, NODE_WIDTH, card.height)
            cards.append((card, rect, QRectF(x, y, NODE_WIDTH, HEADER_HEIGHT)))
            xs += (x, x + NODE_WIDTH)
            ys += (y, y + card.height)
        wires = []
        for edge in self.host.edge_items():
            if groups.edge_hidden(edge.edge):
                continue
            start, end = edge.start, edge.end
            wires.append((edge, QLineF(start, end)))
            xs += (start.x(), end.x())
            ys += (start.y(), end.y())
        self._cards, self._wires = cards, wires
        if xs:
            left, top = min(xs) - MARGIN, min(ys) - MARGIN
            self._bounds = QRectF(left, top, max(xs) + MARGIN - left, max(ys) + MARGIN - top)
        else:
            self._bounds = QRectF()

    def _group(self) -> Batches:
        s = self.host.style
        batches: Batches = {}

        def batch(what: str, colour: QColor, dimmed: bool = False) -> list:
            return batches.setdefault((what, colour.rgba(), dimmed), [])

        plain, grad = batch("wire", s.c("edge")), batch("wire", s.c("edge_grad"))
        for edge, line in self._wires:
            (grad if edge.carries_grad else plain).append(line)
        body = s.c("node_body")
        for card, rect, band in self._cards or ():
            dimmed = card.dimmed
            batch("body", body, dimmed).append(rect)
            batch("band", s.category(card.node_type.category), dimmed).append(band)
            if card.isSelected():
                batch("selected", s.c("node_selected"), dimmed).append(rect)
            elif card.facts.status == "error" or card.facts.requires_grad:
                batch("outline", card.border_color(s), dimmed).append(rect)
        order = {"wire": 0, "body": 1, "band": 2, "outline": 3, "selected": 4}
        return {k: v for k, v in sorted(batches.items(), key=lambda kv: order[kv[0][0]]) if v}

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        if self._cards is None:
            self._measure()
        return self._bounds

    def shape(self) -> QPainterPath:
        return QPainterPath()  # never under the mouse: the cards themselves take clicks

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if self._cards is None:
            self._measure()
        if self._batches is None:
            self._batches = self._group()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # hairlines, blocks
        for (what, rgba, dimmed), shapes in self._batches.items():
            painter.setOpacity(DIMMED_OPACITY if dimmed else 1.0)
            colour = QColor.fromRgba(rgba)
            if what == "wire":
                painter.setPen(QPen(colour, 0))  # a hairline: Qt's fastest stroke
                painter.drawLines(shapes)
            elif what in ("outline", "selected"):
                # hairlines for the many; the few selected cards get a bolder,
                # slower-to-draw outline
                pen = QPen(colour, SELECTED_OUTLINE if what == "selected" else 0)
                pen.setCosmetic(True)
                painter.setPen(pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRects(shapes)
            else:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(colour)
                painter.drawRects(shapes)
        painter.setOpacity(1.0)
