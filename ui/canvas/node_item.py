"""One node card on the canvas: header, typed ports and the autograd facts of its output.

The card shows what a learner asks of every tensor: its value, leaf or not,
``requires_grad`` (the border colour), the ``grad_fn`` name, a badge once ``.grad``
is populated, the step number, and the error in red when its step raised.  Zoomed
out, text goes first (level of detail); far out the scene's overview draws the
card instead (``ui.canvas.overview``), so big graphs stay fluid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainterPath
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSceneHoverEvent

from gradstudio.catalogue import NodeType, PortSpec
from gradstudio.document.layout import card_width
from ui.canvas.node_facts import PENDING, DrawnText, NodeFacts
from ui.canvas.node_facts_lines import NodeFactsLines
from ui.canvas.node_painting import NodePainting
from ui.canvas.port_item import PortItem
from ui.canvas.style import (
    CORNER,
    HEADER_HEIGHT,
    PORT_ROW,
    PORT_TOP_PAD,
    card_height,
    card_rows,
)

if TYPE_CHECKING:
    from gradstudio.document.values import Node
    from ui.canvas.scene import GraphScene

NODE_TYPE = QGraphicsItem.UserType + 1
NODE_FLAGS = (
    QGraphicsItem.GraphicsItemFlag.ItemIsMovable | QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
)
PortPlaces = list[tuple[PortSpec, bool, QPointF]]
PortCentres = dict[tuple[str, bool], tuple[float, float]]
_PORT_LAYOUTS: dict[
    tuple[str, tuple[PortSpec, ...], float], tuple[PortPlaces, float, float, PortCentres]
] = {}


def _port_layout(node_type: NodeType, width: float) -> tuple[PortPlaces, float, float, PortCentres]:
    """Port places, facts top, height and port centres by ``(name, is_input)`` for a
    type at a width (the same for every such card, a custom Function's by its own
    ports; wires look the centres up by name)."""
    key = (node_type.id, node_type.inputs, width)
    cached = _PORT_LAYOUTS.get(key)
    if cached is None:
        top = HEADER_HEIGHT + PORT_TOP_PAD
        ports = [
            (spec, True, QPointF(0.0, top + PORT_ROW * i + PORT_ROW / 2))
            for i, spec in enumerate(node_type.inputs)
        ] + [
            (spec, False, QPointF(width, top + PORT_ROW * i + PORT_ROW / 2))
            for i, spec in enumerate(node_type.outputs)
        ]
        facts_top = top + PORT_ROW * card_rows(node_type) + 2.0
        centres = {(spec.name, is_input): (c.x(), c.y()) for spec, is_input, c in ports}
        cached = (ports, facts_top, card_height(node_type), centres)
        _PORT_LAYOUTS[key] = cached
    return cached


class NodeItem(NodePainting, NodeFactsLines, QGraphicsItem):
    """A card for one document node; its position is the node's ``(x, y)``.

    Its geometry and ports, the state it shows and when it repaints, and the port under
    the mouse; how it paints is in the mixins: the card (``node_painting``) and its
    facts lines (``node_facts_lines``)."""

    def __init__(self, node: Node, host: GraphScene) -> None:
        super().__init__()
        self.host = host
        self.node = node
        self.node_id = node.id
        self.node_type: NodeType = node.type
        self.step = 0
        self.facts = NodeFacts()
        self.dimmed = False
        self._far = False  # far out: the scene's overview draws this card
        self._stale = False  # changed while far out: repainted once drawn again
        self._hover_port: PortItem | None = None
        self._drawn: list[DrawnText] = []
        # no ItemSendsGeometryChanges / itemChange: the scene re-routes wires itself,
        # which keeps building a 5,000-node scene free of Python callbacks per change
        self.setFlags(NODE_FLAGS)
        self.setAcceptHoverEvents(True)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(1.0)
        self._layout()
        self.setPos(node.x, node.y)

    # ------------------------------------------------------------------ geometry
    def type(self) -> int:  # noqa: A003 - Qt's name
        return NODE_TYPE

    def _layout(self) -> None:
        """Size the card for its text (``card_width``: long labels make wide cards)."""
        self.width = card_width(self.node_type, self.node.label, self.node.params)
        places, self.facts_top, self.height, self._centres = _port_layout(
            self.node_type, self.width
        )
        self.ports: list[PortItem] = [
            PortItem(self.node_id, spec, is_input, center) for spec, is_input, center in places
        ]
        self._rect = QRectF(0.0, 0.0, self.width, self.height)
        self._bounds = self._rect.adjusted(-8.0, -12.0, 8.0, 8.0)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRoundedRect(self._rect.adjusted(-6.0, 0.0, 6.0, 0.0), CORNER, CORNER)
        return path

    def port(self, name: str, is_input: bool) -> PortItem | None:
        for p in self.ports:
            if p.name == name and p.is_input == is_input:
                return p
        return None

    def port_at(self, local: QPointF) -> PortItem | None:
        """The port whose dot is under ``local`` (node coordinates), if any."""
        for p in self.ports:
            if p.hit(local):
                return p
        return None

    def port_scene_pos(self, name: str, is_input: bool) -> QPointF:
        """A port's centre in scene coordinates (cards are never rotated or scaled)."""
        x, y = self._centres.get((name, is_input), (0.0, HEADER_HEIGHT / 2))
        pos = self.pos()
        return QPointF(pos.x() + x, pos.y() + y)

    # ------------------------------------------------------------------ state
    def set_node(self, node: Node) -> None:
        """The document replaced this node's value (label or params changed); a longer
        label or caption widens the card, new ports (a custom Function's arguments) make
        its rows again, and its wires follow the moved ports."""
        self.node = node
        ports_changed = node.type.inputs != self.node_type.inputs
        self.node_type = node.type
        if ports_changed or card_width(self.node_type, node.label, node.params) != self.width:
            self.prepareGeometryChange()
            self._layout()
            self.host.node_item_moved(self)
        self.refresh()

    def set_facts(self, facts: NodeFacts, dimmed: bool) -> bool:
        """Show these facts; True when they differ from the ones shown (a repaint)."""
        if (facts is not self.facts and facts != self.facts) or dimmed != self.dimmed:
            was_error = self.facts.status == "error"
            self.facts = facts
            self.dimmed = dimmed
            if was_error or facts.status == "error":
                self._update_tooltip()
            self.refresh()
            return True
        return False

    def set_pending(self, dimmed: bool) -> None:
        """Show ``PENDING`` (the timeline is before this node's step): ``set_facts``
        without comparing facts, since most of a long jump back turns cards pending."""
        if self.facts is PENDING and dimmed == self.dimmed:
            return
        was_error = self.facts.status == "error"
        self.facts = PENDING
        self.dimmed = dimmed
        if was_error:
            self._update_tooltip()
        self.refresh()

    def set_step(self, step: int) -> None:
        if step != self.step:
            self.step = step
            self.refresh()

    def refresh(self) -> None:
        """Repaint (and drop the cached pixmap); far out, or off screen during a scrub,
        once the card is drawn again (a scrub restyles thousands of cards that paint
        nothing then: see ``GraphScene.refresh_facts``)."""
        if self._far or not self.host.on_screen(self):
            self._stale = True
        else:
            self.update()

    def show_put_off(self) -> None:
        """Repaint now what ``refresh`` put off (the card came into view)."""
        if self._stale and not self._far:
            self._stale = False
            self.update()

    def set_overview(self, on: bool) -> None:
        """Far out the scene's overview draws this card: paint nothing, but stay
        in the scene so that clicks, drags and rubber-band selection still find it."""
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, on)
        self._far = on
        if not on and self._stale:
            self._stale = False
            self.update()

    def _update_tooltip(self) -> None:
        f = self.facts
        if f.status == "error":
            self.setToolTip(self.host.error_tooltip(self.node_id))
        else:
            self.setToolTip("")

    # ------------------------------------------------------------------ interaction
    def hoverMoveEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        port = self.port_at(event.pos())
        if port is not self._hover_port:
            self._hover_port = port
            if port is not None:
                scalar = self.node.params.get(port.name) if port.spec.scalar_ok else None
                self.setToolTip(port.describe(scalar))
            else:
                self._update_tooltip()
            self.update()
        super().hoverMoveEvent(event)

    def hoverLeaveEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        if self._hover_port is not None:
            self._hover_port = None
            self._update_tooltip()
            self.update()
        super().hoverLeaveEvent(event)
