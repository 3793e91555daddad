"""A node's typed ports: where they sit on the card, how they look, what they accept.

Ports are painted by their node rather than being ``QGraphicsItem``s of their own:
a 5,000-node graph would otherwise carry some 15,000 extra items in the scene index,
which costs more in building and panning than one hit test per node.
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen

from gradstudio.catalogue import PortSpec, PortType

PORT_RADIUS = 5.0
HIT_RADIUS = 11.0


class PortItem(NamedTuple):
    """One port of one node: ``is_input`` side, its spec, and its centre in node coordinates.

    A named tuple rather than a frozen dataclass: a 5,000-node scene makes 15,000 of
    them, and a tuple is built several times faster.
    """

    node_id: str
    spec: PortSpec
    is_input: bool
    center: QPointF

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def type(self) -> PortType:
        return self.spec.type

    def hit(self, pos: QPointF) -> bool:
        d = pos - self.center
        return d.x() * d.x() + d.y() * d.y() <= HIT_RADIUS * HIT_RADIUS

    def describe(self, scalar: object = None) -> str:
        """Tooltip text: what this port takes or gives, in a learner's words."""
        kind = "a list of tensors" if self.type is PortType.TENSORS else "a tensor"
        side = "input" if self.is_input else "output"
        parts = [f"<b>{self.name}</b> — {side}, {kind}"]
        if self.is_input:
            if self.spec.variadic:
                parts.append("takes several connections, in order")
            if self.spec.optional:
                parts.append("optional")
            if self.spec.scalar_ok:
                parts.append(
                    "or a number"
                    + (f" (now {scalar})" if scalar is not None else " (set it in the inspector)")
                )
        if self.spec.doc:
            parts.append(self.spec.doc)
        return "<br>".join(parts)

    def paint(
        self,
        painter: QPainter,
        color: QColor,
        background: QColor,
        connected: bool,
        highlighted: bool = False,
    ) -> None:
        """A filled dot when connected, a ring when free; lists are diamonds."""
        r = PORT_RADIUS + (1.5 if highlighted else 0.0)
        painter.setPen(QPen(color, 1.6))
        painter.setBrush(QBrush(color if connected or highlighted else background))
        if self.type is PortType.TENSORS:
            c = self.center
            path = QPainterPath()
            path.moveTo(c.x(), c.y() - r - 1)
            path.lineTo(c.x() + r + 1, c.y())
            path.lineTo(c.x(), c.y() + r + 1)
            path.lineTo(c.x() - r - 1, c.y())
            path.closeSubpath()
            painter.drawPath(path)
        else:
            painter.drawEllipse(QRectF(self.center.x() - r, self.center.y() - r, 2 * r, 2 * r))


def accepts(source: PortItem, target: PortItem) -> bool:
    """Whether two ports face each other (output to input) with the same type."""
    return source.is_input != target.is_input and source.type is target.type
