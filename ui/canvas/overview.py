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

from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ui.canvas.style import HEADER_HEIGHT

if TYPE_CHECKING:
    from ui.canvas.edge_item import EdgeItem
    from ui.canvas.node_item import NodeItem
    from ui.canvas.scene import GraphScene
    from ui.canvas.style import CanvasStyle

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
        #: The groups by colour, per card and wire, so that restyling a few (a scrub)
        #: moves those between groups instead of grouping every card again.
        self._groups: dict[tuple[str, int, bool], dict[object, object]] | None = None
        self._keys: dict[object, list[tuple[str, int, bool]]] = {}
        self._shapes: dict[object, tuple] = {}
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
        self._groups = None
        self.update()

    def restyle(self, cards: Iterable[NodeItem], wires: Iterable[EdgeItem]) -> None:
        """Only these cards and wires were restyled (their facts at a new timeline
        position): regroup them alone, so a scrub costs what it changed."""
        items = (*cards, *wires)
        if self._cards is None or len(items) * 4 > len(self._shapes):
            return self.invalidate(geometry=False)  # many: grouping all again is cheaper
        if self._groups is None:
            self._build_groups()
        groups = self._groups
        assert groups is not None
        s = self.host.style
        for item in items:
            for key in self._keys.pop(item, ()):
                groups[key].pop(item, None)
            shapes = self._shapes.get(item)
            if shapes is None:
                continue
            keys = self._keys[item] = self._style_of(item, shapes, s)
            for key, shape in zip(keys, shapes, strict=False):
                groups.setdefault(key, {})[item] = shape
        self._batches = None
        self.update()
        return None

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
            rect = QRectF(x, y, card.width, card.height)
            cards.append((card, rect, QRectF(x, y, card.width, HEADER_HEIGHT)))
            xs += (x, x + card.width)
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
        # each card's (rectangle, band, rectangle again for an outline); each wire's line
        self._shapes: dict[object, tuple] = {card: (r, b, r) for card, r, b in cards}
        self._shapes.update((edge, (line,)) for edge, line in wires)
        self._groups = None
        if xs:
            left, top = min(xs) - MARGIN, min(ys) - MARGIN
            self._bounds = QRectF(left, top, max(xs) + MARGIN - left, max(ys) + MARGIN - top)
        else:
            self._bounds = QRectF()

    def _style_of(self, item: object, shapes: tuple, s: CanvasStyle) -> list:
        """The groups (what, colour, dimmed) an item's shapes go to, in shape order."""
        if len(shapes) == 1:  # a wire
            edge = cast("EdgeItem", item)
            return [("wire", s.c("edge_grad" if edge.carries_grad else "edge").rgba(), False)]
        card = cast("NodeItem", item)
        dimmed = card.dimmed
        keys = [
            ("body", s.c("node_body").rgba(), dimmed),
            ("band", s.category(card.node_type.category).rgba(), dimmed),
        ]
        if card.isSelected():
            keys.append(("selected", s.c("node_selected").rgba(), dimmed))
        elif card.facts.status == "error" or card.facts.requires_grad:
            keys.append(("outline", card.border_color(s).rgba(), dimmed))
        return keys

    def _build_groups(self) -> None:
        """The groups per card and wire, which ``restyle`` edits (built on its first call)."""
        s = self.host.style
        groups: dict[tuple[str, int, bool], dict[object, object]] = {}
        keys_of: dict[object, list[tuple[str, int, bool]]] = {}
        for item, shapes in self._shapes.items():
            keys = keys_of[item] = self._style_of(item, shapes, s)
            for key, shape in zip(keys, shapes, strict=False):
                groups.setdefault(key, {})[item] = shape
        self._groups, self._keys = groups, keys_of

    def _group(self) -> Batches:
        order = {"wire": 0, "body": 1, "band": 2, "outline": 3, "selected": 4}
        if self._groups is not None:  # kept up to date by restyle
            return {
                k: list(v.values())
                for k, v in sorted(self._groups.items(), key=lambda kv: order[kv[0][0]])
                if v
            }
        s = self.host.style
        selected = {id(item) for item in self.host.selectedItems()}
        rgba = {role: s.c(role).rgba() for role in ("error", "requires_grad", "node_selected")}
        category: dict[str, int] = {}
        plain: list[QLineF] = []
        grad: list[QLineF] = []
        for edge, line in self._wires:
            (grad if edge.carries_grad else plain).append(line)
        bodies: tuple[list[QRectF], list[QRectF]] = ([], [])  # by dimmed
        bands: dict[tuple[int, bool], list[QRectF]] = {}
        outlines: dict[tuple[str, int, bool], list[QRectF]] = {}
        for card, rect, band in self._cards or ():
            dimmed = card.dimmed
            bodies[dimmed].append(rect)
            name = card.node_type.category
            colour = category.get(name)
            if colour is None:
                colour = category[name] = s.category(name).rgba()
            key = (colour, dimmed)
            shapes = bands.get(key)
            if shapes is None:
                shapes = bands[key] = []
            shapes.append(band)
            if id(card) in selected:
                outlines.setdefault(("selected", rgba["node_selected"], dimmed), []).append(rect)
            else:
                facts = card.facts
                if facts.status == "error":
                    outlines.setdefault(("outline", rgba["error"], dimmed), []).append(rect)
                elif facts.requires_grad:
                    role = rgba["requires_grad"]
                    outlines.setdefault(("outline", role, dimmed), []).append(rect)
        batches: Batches = {
            ("wire", s.c("edge").rgba(), False): plain,
            ("wire", s.c("edge_grad").rgba(), False): grad,
        }
        body = s.c("node_body").rgba()
        batches[("body", body, False)] = bodies[False]
        batches[("body", body, True)] = bodies[True]
        batches.update(((("band", *key), shapes) for key, shapes in bands.items()))
        batches.update(outlines)
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
