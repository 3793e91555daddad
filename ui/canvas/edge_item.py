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
    from gradstudio.document import Edge
    from ui.canvas.scene import GraphScene

EDGE_TYPE = QGraphicsItem.UserType + 2
EDGE_DETAIL_LOD = 0.3  # below this zoom, wires are straight lines
OVERVIEW_LOD = 0.25  # below this zoom, all wires are drawn by one EdgeOverview item


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
        self._path = QPainterPath()
        self._shape: QPainterPath | None = None
        self._bounds = QRectF()
        self.start = QPointF()
        self.end = QPointF()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setAcceptHoverEvents(True)
        # an antialiased curve costs more to stroke than to blit: pan with a cached pixmap
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._hover = False
        self.setZValue(0.0)
        self.update_path()

    def type(self) -> int:  # noqa: A003 - Qt's name
        return EDGE_TYPE

    def update_path(self) -> None:
        src = self.host.node_item(self.edge.src)
        dst = self.host.node_item(self.edge.dst)
        if src is None or dst is None:
            return
        start = src.port_scene_pos(self.edge.src_port, False)
        end = dst.port_scene_pos(self.edge.dst_port, True)
        self.prepareGeometryChange()
        self.start, self.end = start, end
        self._path = bezier(start, end)
        self._shape = None  # built on first hit test: most wires are never clicked
        self._bounds = self._path.boundingRect().adjusted(-4.0, -4.0, 4.0, 4.0)

    def set_carries_grad(self, value: bool) -> None:
        if value != self.carries_grad:
            self.carries_grad = value
            self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def shape(self) -> QPainterPath:
        if self._shape is None:
            stroker = QPainterPathStroker()
            stroker.setWidth(12.0)
            self._shape = stroker.createStroke(self._path)
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
        painter.drawPath(self._path)


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


class EdgeOverview(QGraphicsItem):
    """Every wire as one batch of straight lines, for zoomed-out views of big graphs.

    Painting thousands of wire items costs a Python call each; far out, the scene
    hides them and this single item draws the same lines from a cached path.
    """

    def __init__(self, host: GraphScene) -> None:
        super().__init__()
        self.host = host
        self._plain = QPainterPath()
        self._grad = QPainterPath()
        self._bounds = QRectF()
        self._dirty = True
        self.setZValue(0.0)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def invalidate(self) -> None:
        """Wires changed or moved: rebuild the batch before the next paint."""
        if not self._dirty:
            self._dirty = True
            if self.isVisible():
                self._rebuild()
                self.update()

    def _rebuild(self) -> None:
        plain, grad = QPainterPath(), QPainterPath()
        for item in self.host.edge_items():
            path = grad if item.carries_grad else plain
            path.moveTo(item.start)
            path.lineTo(item.end)
        bounds = plain.boundingRect().united(grad.boundingRect()).adjusted(-4, -4, 4, 4)
        self._dirty = False  # before prepareGeometryChange, which asks for boundingRect
        self.prepareGeometryChange()
        self._plain, self._grad, self._bounds = plain, grad, bounds

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        if self._dirty:
            self._rebuild()
        return self._bounds

    def shape(self) -> QPainterPath:
        return QPainterPath()  # never under the mouse: clicks reach the canvas

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if self._dirty:
            self._rebuild()
        s = self.host.style
        for path, role in ((self._plain, "edge"), (self._grad, "edge_grad")):
            pen = QPen(s.c(role), 1.5)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.drawPath(path)
