"""The canvas's zoom and framing: wheel zoom at the cursor, zoom to fit, the view a
document opens at (``ui.canvas.home_view`` chooses it), following new nodes, panning.

A mixin of ``GraphView``: it moves the view's transform and scroll bars, and says so with
``zoomChanged``; it never changes the document.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QGraphicsView

from ui.canvas.home_view import MARGIN, focus, readable_zoom, view_rect
from ui.canvas.overview import OVERVIEW_LOD

if TYPE_CHECKING:
    from ui.canvas.scene import GraphScene

MIN_SCALE, MAX_SCALE = 0.04, 3.0
FIT_MAX_SCALE = 1.15  # zoom to fit enlarges small graphs a little, never more


class CanvasZoom:
    """The canvas's zoom, fit and pan (needs what ``GraphView`` provides)."""

    graph_scene: GraphScene
    zoomChanged: Signal
    saved_view: tuple[float, float, float] | None

    @property
    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, scale: float, anchor: QPointF | None = None) -> None:
        """Zoom to ``scale`` keeping ``anchor`` (a scene point) under the same pixel."""
        scale = max(MIN_SCALE, min(MAX_SCALE, scale))
        factor = scale / self.zoom
        if abs(factor - 1.0) < 1e-9:
            return
        if anchor is None:
            self.scale(factor, factor)
        else:
            before = self.mapFromScene(anchor)
            old = self.transformationAnchor()
            self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
            self.scale(factor, factor)
            after = self.mapFromScene(anchor)
            delta = after - before
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() + delta.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() + delta.y())
            self.setTransformationAnchor(old)
        self.zoomChanged.emit(self.zoom)

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom * 1.25, self.mapToScene(self.viewport().rect().center()))

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom / 1.25, self.mapToScene(self.viewport().rect().center()))

    def zoom_reset(self) -> None:
        self.set_zoom(1.0, self.mapToScene(self.viewport().rect().center()))

    def frame_selection(self) -> None:
        """Show the selected nodes (node editors' F and Home), or every node if none."""
        selected = [i for i in self.graph_scene.node_items() if i.isSelected()]
        self.fit_all(selected or None)

    def fit_all(self, only: list | None = None) -> None:
        """Show every node (enlarging a small graph at most a little), or the origin.

        The whole graph is what is drawn: frames with their title bars (a nested frame's
        rises above its cards) and collapsed groups' cards, not the cards they hide.
        """
        scene = self.graph_scene
        scene.groups.ensure()
        items = only or [
            *(i for i in scene.node_items() if i.isVisible()),
            *scene.groups.items(),
        ]
        if not items:
            self.resetTransform()
            self.centerOn(0.0, 0.0)
            self.zoomChanged.emit(self.zoom)
            return
        bounds = QRectF()
        for item in items:
            bounds = bounds.united(item.sceneBoundingRect())
        self.graph_scene.update_scene_rect()
        self.fit_rect(bounds.adjusted(-40.0, -40.0, 40.0, 40.0))

    def view_state(self) -> tuple[float, float, float]:
        """``(zoom, centre x, centre y)``: what ``saved_view`` restores."""
        centre = self.view_center_scene()
        return (self.zoom, centre.x(), centre.y())

    def home_view(self) -> None:
        """Where a document opens: ``saved_view`` if it has one (a file's, as the user
        left it), else ``ui.canvas.home_view``'s choice: the whole graph where its cards
        read, else the last iteration, or its backward and loss, at a zoom that reads."""
        scene = self.graph_scene
        scene.groups.ensure()
        if self.saved_view is not None:
            zoom, x, y = self.saved_view
            scene.update_scene_rect()
            self.resetTransform()
            scale = max(MIN_SCALE, min(MAX_SCALE, zoom))
            self.scale(scale, scale)
            self.centerOn(x, y)
            self.zoomChanged.emit(self.zoom)
            return
        items = [*(i for i in scene.node_items() if i.isVisible()), *scene.groups.items()]
        view = self.viewport().rect()
        if not items or view.width() < 10 or view.height() < 10:
            self.fit_all()
            return
        bounds = QRectF()
        for item in items:
            bounds = bounds.united(item.sceneBoundingRect())
        bounds = bounds.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)
        least = readable_zoom(scene.style)
        whole = self._fit_scale(bounds)
        found = focus(scene)
        if found is None or whole >= least or (found[0] is None and whole >= OVERVIEW_LOD):
            self.fit_all()
            return
        frame, anchor = found
        frame = frame or bounds
        scene.update_scene_rect()
        outer = frame.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)
        if self._fit_scale(outer) >= least:
            self.fit_rect(outer)
            return
        self.resetTransform()
        self.scale(least, least)
        self.centerOn(
            view_rect(frame, anchor, view.width() / least, view.height() / least).center()
        )
        self.zoomChanged.emit(self.zoom)

    def _fit_scale(self, rect: QRectF) -> float:
        view = self.viewport().rect()
        return min(view.width() / rect.width(), view.height() / rect.height(), FIT_MAX_SCALE)

    def follow(self, node_ids: list[str]) -> None:
        """Bring new nodes into view (an edit that added them off screen): the view pans
        to them at its zoom, and zooms out only if they would not fit."""
        bounds = QRectF()
        for node_id in node_ids:
            item = self.graph_scene.node_item(node_id)
            if item is not None:
                bounds = bounds.united(item.sceneBoundingRect())
        if bounds.isEmpty():
            return
        bounds = bounds.adjusted(-40.0, -40.0, 40.0, 40.0)
        shown = self.mapToScene(self.viewport().rect()).boundingRect()
        if shown.contains(bounds):
            return
        self.graph_scene.update_scene_rect()
        if bounds.width() > shown.width() or bounds.height() > shown.height():
            self.fit_rect(bounds)
            return
        # the least pan that shows them whole
        dx = max(0.0, bounds.right() - shown.right()) or min(0.0, bounds.left() - shown.left())
        dy = max(0.0, bounds.bottom() - shown.bottom()) or min(0.0, bounds.top() - shown.top())
        self.centerOn(shown.center() + QPointF(dx, dy))

    def fit_rect(self, rect: QRectF) -> None:
        view = self.viewport().rect()
        if view.width() < 10 or view.height() < 10:
            return
        scale = min(view.width() / rect.width(), view.height() / rect.height(), FIT_MAX_SCALE)
        scale = max(MIN_SCALE, scale)
        self.resetTransform()
        self.scale(scale, scale)
        self.centerOn(rect.center())
        self.zoomChanged.emit(self.zoom)

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt's name
        delta = event.angleDelta().y() or event.angleDelta().x()
        if not delta:
            return
        anchor = self.mapToScene(event.position().toPoint())
        self.set_zoom(self.zoom * math.pow(1.0015, delta), anchor)
        event.accept()

    def pan_by(self, dx: float, dy: float) -> None:
        """Scroll the view by (dx, dy) viewport pixels (what a pan drag does)."""
        h, v = self.horizontalScrollBar(), self.verticalScrollBar()
        h.setValue(h.value() - round(dx))
        v.setValue(v.value() - round(dy))

    def view_center_scene(self) -> QPointF:
        return self.mapToScene(self.viewport().rect().center())
