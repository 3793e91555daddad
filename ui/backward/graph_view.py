"""The backward graph's viewport: zoom with the wheel, pan by dragging, fit on a
double-click of the background, a box's tooltip, and clicks on boxes or the background."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QPointF, Qt, Signal
from PySide6.QtGui import QHelpEvent, QMouseEvent, QPainter, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import QFrame, QGraphicsScene, QGraphicsView, QToolTip, QWidget

from ui.backward.graph_layout import MAX_FIT_SCALE
from ui.backward.items import BoxItem


class BackwardGraphView(QGraphicsView):
    """Zoom with the wheel, pan by dragging, double-click the background to fit."""

    boxClicked = Signal(object)  # a BoxItem
    backgroundClicked = Signal()
    scaleChanged = Signal(float)

    def __init__(self, scene: QGraphicsScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.setObjectName("backwardGraphView")
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing, True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._press: QPointF | None = None
        #: Fit the graph whenever the view or the graph changes, until the user zooms or pans.
        self.auto_fit = True
        #: Finds a box by scene position when no item is there (the overview draws it).
        self.box_near: Callable[[QPointF, float], BoxItem | None] | None = None
        #: A note kept over the viewport's middle (see ``BackwardView._set_message``).
        self.overlay: QWidget | None = None

    def zoom(self, factor: float) -> None:
        self.auto_fit = False
        current = self.transform().m11()
        factor = max(0.002 / current, min(factor, 4.0 / current))
        self.scale(factor, factor)
        self.scaleChanged.emit(self.transform().m11())

    def fit(self) -> None:
        """Show the whole graph (not larger than MAX_FIT_SCALE); resumes auto-fitting."""
        self.auto_fit = True
        rect = self.sceneRect()
        if rect.isEmpty():
            return
        self.resetTransform()
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.transform().m11() > MAX_FIT_SCALE:
            self.resetTransform()
            self.scale(MAX_FIT_SCALE, MAX_FIT_SCALE)
            self.centerOn(rect.center())
        self.scaleChanged.emit(self.transform().m11())

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt API
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom(1.18**steps)
        event.accept()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        if self.overlay is not None:
            self.overlay.setGeometry(self.viewport().rect().adjusted(12, 12, -12, -12))
        if self.auto_fit:
            self.fit()

    def box_at(self, pos: QPointF) -> BoxItem | None:
        item = self.itemAt(pos.toPoint())
        while item is not None and not isinstance(item, BoxItem):
            item = item.parentItem()
        if item is None and self.box_near is not None:
            return self.box_near(self.mapToScene(pos.toPoint()), 4.0 / self.transform().m11())
        return item

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            box = self.box_at(QPointF(event.pos()))
            if box is not None and box.box.tooltip:
                QToolTip.showText(event.globalPos(), box.box.tooltip, self.viewport())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().viewportEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt API
        self._press = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt API
        super().mouseReleaseEvent(event)
        if self._press is None or event.button() != Qt.MouseButton.LeftButton:
            return
        moved = (event.position() - self._press).manhattanLength()
        self._press = None
        if moved > 4:  # a pan, not a click
            self.auto_fit = False
            return
        box = self.box_at(event.position())
        if box is not None:
            self.boxClicked.emit(box)
        else:
            self.backgroundClicked.emit()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt API
        if self.box_at(event.position()) is None:
            self.fit()
        else:
            super().mouseDoubleClickEvent(event)
