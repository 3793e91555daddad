"""Connections drawn as bezier curves, and the loose wire that follows a port drag.

An edge carrying a tensor that requires grad is drawn in the autograd colour, so
the path gradients will flow back along is visible before running backward.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

if TYPE_CHECKING:
    from gradstudio.document.values import Edge
    from ui.canvas.port_item import PortItem
    from ui.canvas.scene import GraphScene

EDGE_TYPE = QGraphicsItem.UserType + 2
EDGE_DETAIL_LOD = 0.3  # below this zoom, wires are straight lines


def bezier(start: QPointF, end: QPointF) -> QPainterPath:
    """A horizontal-tangent cubic from an output (right side) to an input (left side)."""
    path = QPainterPath(start)
    dx = max(40.0, abs(end.x() - start.x()) * 0.5)
    path.cubicTo(QPointF(start.x() + dx, start.y()), QPointF(end.x() - dx, end.y()), end)
    return path


class EdgeItem(QGraphicsItem):
    """One document edge, from ``edge.src``'s output port to ``edge.dst``'s input port."""

    def __init__(self, edge: Edge, host: GraphScene) -> None:
        super().__init__()
        self.edge = edge
        self.host = host
        self.carries_grad = False
        self.stale = False  # restyled while hidden or off screen: to repaint once shown
        self._path: QPainterPath | None = None
        self._shape: QPainterPath | None = None
        self._bounds = QRectF()
        self.start = QPointF()
        self.end = QPointF()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setAcceptHoverEvents(True)
        # an antialiased curve costs more to stroke than to blit: pan with a cached pixmap
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._hover = False
        self.update_path()

    def type(self) -> int:  # noqa: A003 - Qt's name
        return EDGE_TYPE

    def update_path(self) -> None:
        src = self.host.node_item(self.edge.src)
        dst = self.host.node_item(self.edge.dst)
        if src is None or dst is None:
            return
        groups = self.host.groups  # an end inside a collapsed group is on the group's card
        start = groups.anchor(self.edge.src, self.edge.src_port, False) or src.port_scene_pos(
            self.edge.src_port, False
        )
        end = groups.anchor(self.edge.dst, self.edge.dst_port, True) or dst.port_scene_pos(
            self.edge.dst_port, True
        )
        self.prepareGeometryChange()
        self.start, self.end = start, end
        # the curve is built when first painted or hit (far out, the overview draws
        # the wires and most are never built); its control points bound it
        self._path = None
        self._shape = None
        (x0, y0), (x1, y1) = (start.x(), start.y()), (end.x(), end.y())
        dx = max(40.0, abs(x1 - x0) * 0.5)
        left, right = min(x0, x1 - dx), max(x0 + dx, x1)
        top, bottom = min(y0, y1), max(y0, y1)
        self._bounds = QRectF(left - 4.0, top - 4.0, right - left + 8.0, bottom - top + 8.0)

    @property
    def path(self) -> QPainterPath:
        """The wire's bezier curve (see ``bezier``)."""
        if self._path is None:
            self._path = bezier(self.start, self.end)
        return self._path

    def set_carries_grad(self, value: bool, far: bool = False) -> bool:
        """True when the wire changed.  ``far``: the wire is hidden under the scene's
        overview, and repainted when shown again (``stale``), not now."""
        if value != self.carries_grad:
            self.carries_grad = value
            if far:
                self.stale = True
            else:
                self.update()
            return True
        return False

    def show_put_off(self) -> None:
        """Repaint now a colour change put off while the wire was hidden or off screen."""
        if self.stale and self.isVisible():
            self.stale = False
            self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def shape(self) -> QPainterPath:
        if self._shape is None:
            stroker = QPainterPathStroker()
            stroker.setWidth(12.0)
            self._shape = stroker.createStroke(self.path)
        return self._shape

    def hoverEnterEvent(self, event: object) -> None:  # noqa: N802
        self._hover = True
        self.update()

    def hoverLeaveEvent(self, event: object) -> None:  # noqa: N802
        self._hover = False
        self.update()

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        s = self.host.style
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        color = s.c("edge_grad") if self.carries_grad else s.c("edge")
        width = 2.0
        if self.isSelected():
            color = s.c("accent")
            width = 3.0
        elif self._hover:
            color = QColor(color).lighter(130)
            width = 2.6
        if lod < EDGE_DETAIL_LOD:
            # zoomed far out: a straight line is indistinguishable and much cheaper
            painter.setPen(QPen(color, width / max(lod, 0.05) * 0.6))
            painter.drawLine(self.start, self.end)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(color, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self.path)


class WireItem(QGraphicsItem):
    """The wire drawn while dragging from a port: green over a port that fits, red if not."""

    def __init__(self, host: GraphScene, start: QPointF, from_input: bool) -> None:
        super().__init__()
        self.host = host
        self.start = start
        self.end = start
        self.from_input = from_input
        self.state = "free"  # "free" | "ok" | "bad"
        self._path = QPainterPath()
        self.setZValue(10.0)

    def set_end(self, end: QPointF, state: str) -> None:
        self.prepareGeometryChange()
        self.end = end
        self.state = state
        a, b = (self.end, self.start) if self.from_input else (self.start, self.end)
        self._path = bezier(a, b)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._path.boundingRect().adjusted(-4.0, -4.0, 4.0, 4.0)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        s = self.host.style
        color = {"ok": s.c("wire_ok"), "bad": s.c("wire_bad")}.get(self.state, s.c("accent"))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        style = Qt.PenStyle.SolidLine if self.state != "free" else Qt.PenStyle.DashLine
        painter.setPen(QPen(color, 2.2, style, Qt.PenCapStyle.RoundCap))
        painter.drawPath(self._path)


class WireDrag:
    """A wire being dragged from ``origin`` (and, when picked up, the edge it replaces)."""

    def __init__(self, origin: PortItem, item: WireItem, detached: Edge | None = None) -> None:
        self.origin = origin
        self.item = item
        self.detached = detached
        self.target: PortItem | None = None
        self.reason: str | None = None
