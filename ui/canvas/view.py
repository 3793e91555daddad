"""The canvas widget (object name ``canvas``): pan, zoom, wires, quick-add and clipboard.

Input follows the node editors people know: wheel zooms at the cursor, middle
mouse or Space+drag pans, drag a port to wire it (a wrong type turns the wire red
and the tooltip says why), drop a wire on empty canvas or press Tab to search for a
node, rubber-band to select.  Every edit is a gradstudio command pushed through the
``UndoBridge``; the view itself never changes the document.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPen,
    QWheelEvent,
)
from PySide6.QtWidgets import QGraphicsView, QLabel, QMenu, QToolTip, QWidget

from gradstudio.document.commands import (
    DisconnectCommand,
)
from ui.actions import add_action
from ui.canvas.edge_item import WireItem
from ui.canvas.editing import CanvasEditing
from ui.canvas.group_editing import CanvasGroups
from ui.canvas.group_item import CHEVRON, GroupCardItem, GroupFrameItem
from ui.canvas.home_view import MARGIN, focus, readable_zoom, view_rect
from ui.canvas.inline_editor import InlineEditor
from ui.canvas.legend import Legend
from ui.canvas.node_item import NodeItem
from ui.canvas.overview import OVERVIEW_LOD
from ui.canvas.port_item import PortItem
from ui.canvas.scene import GraphScene
from ui.canvas.search_popup import NodeSearchPopup
from ui.canvas.style import HEADER_HEIGHT
from ui.palette.type_search import accepting
from ui.themes import DARK, Theme

if TYPE_CHECKING:
    from gradstudio.document.model import Document, Edge
    from ui.state import StudioState
    from ui.window.undo_bridge import UndoBridge

NODE_MIME = "application/x-gradstudio-node-type"
MIN_SCALE, MAX_SCALE = 0.04, 3.0
GRID = 24.0
FIT_MAX_SCALE = 1.15  # zoom to fit enlarges small graphs a little, never more


#: The canvas's own keys (not window actions): (keys, what they do), for Help › Keyboard
#: Shortcuts.  ``event`` and ``keyPressEvent`` below handle them.
CANVAS_KEYS = (
    ("Tab, Shift+A, double-click", "Add a node (search)"),
    ("Space + drag", "Pan"),
    ("Wheel", "Zoom"),
    ("Drag from a port", "Connect"),
    ("Esc", "Cancel a connection being drawn"),
)


class _WireDrag:
    """A wire being dragged from ``origin`` (and, when picked up, the edge it replaces)."""

    def __init__(self, origin: PortItem, item: WireItem, detached: Edge | None = None) -> None:
        self.origin = origin
        self.item = item
        self.detached = detached
        self.target: PortItem | None = None
        self.reason: str | None = None


class GraphView(CanvasGroups, CanvasEditing, QGraphicsView):
    """The node canvas for ``state.document``; ``message`` carries status-bar text."""

    message = Signal(str)
    zoomChanged = Signal(float)

    def __init__(
        self,
        state: StudioState,
        bridge: UndoBridge,
        theme: Theme = DARK,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("canvas")
        self.state = state
        self.bridge = bridge
        self.graph_scene = GraphScene(state, theme, self)
        self.setScene(self.graph_scene)
        self.graph_scene.nodesDragged.connect(self._push_drag)
        self.graph_scene.groupDragged.connect(self._push_group_drag)
        self.rubberBandChanged.connect(self._rubber_band)
        self.zoomChanged.connect(self.graph_scene.set_zoom_level)
        self.zoomChanged.connect(self._follow_titles)
        self.graph_scene.titlesMoved.connect(self._follow_titles)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing, True)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QGraphicsView.Shape.NoFrame)
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.search = NodeSearchPopup(self)
        self.search.chosen.connect(self._search_chosen)
        self.search.dismissed.connect(self._search_dismissed)
        self._search_scene_pos = QPointF()
        self._pending_wire: PortItem | None = None
        self._wire: _WireDrag | None = None
        self._pan_from: QPoint | None = None
        self._space = False
        self._editor: InlineEditor | None = None
        #: The view the document opens at, ``(zoom, x, y)``, when it has one of its own
        #: (the window sets it for a file it remembers): ``home_view`` restores it.
        self.saved_view: tuple[float, float, float] | None = None
        #: Adders of more node context-menu actions (the instruments'): (menu, node id).
        self.node_menu_extras: list[Callable[[QMenu, str], None]] = []
        self.hint = QLabel(self)
        self.hint.setObjectName("canvasHint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setText(
            "Drag nodes from the palette, or press <b>Tab</b> to search.<br>"
            "Drag from a port to connect; <b>Ctrl+Enter</b> runs the graph."
        )
        self.hint.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        # the key lives outside the viewport (the window puts it under the canvas):
        # a widget over the viewport would stop Qt from scrolling by blitting
        self.legend = Legend(self.graph_scene.style)
        state.documentReplaced.connect(self._update_hint)
        state.documentReplaced.connect(self._document_replaced)
        self._unsub = state.document.subscribe(lambda e: self._update_hint())
        self._update_hint()

    @property
    def document(self) -> Document:
        return self.state.document

    # ------------------------------------------------------------------ theme / hint
    def set_theme(self, theme: Theme) -> None:
        self.graph_scene.set_theme(theme)
        self.legend.set_style(self.graph_scene.style)
        self.resetCachedContent()
        self.viewport().update()

    def _document_replaced(self) -> None:
        self._unsub()
        self._unsub = self.state.document.subscribe(lambda e: self._update_hint())
        self.home_view()

    def _update_hint(self) -> None:
        self.hint.setVisible(len(self.document) == 0)
        self._place_hint()

    def _place_hint(self) -> None:
        self.hint.adjustSize()
        r = self.rect()
        self.hint.move((r.width() - self.hint.width()) // 2, (r.height() - self.hint.height()) // 2)

    def resizeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._place_hint()
        self.graph_scene.expose()
        self._follow_titles()

    def scrollContentsBy(self, dx: int, dy: int) -> None:  # noqa: N802 - Qt's name
        """Scrolled (panned): the cards a scrub restyled off screen repaint as they
        come into view (``GraphScene.expose``), and a frame whose left end went out
        of view moves its title to the view's edge."""
        super().scrollContentsBy(dx, dy)
        self.graph_scene.expose()
        self._follow_titles()

    def _follow_titles(self, *_args: object) -> None:
        shown = self.mapToScene(self.viewport().rect()).boundingRect()
        self.graph_scene.groups.show_titles_in(shown)

    # ------------------------------------------------------------------ background
    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802
        s = self.graph_scene.style
        painter.fillRect(rect, s.c("canvas"))
        scale = self.transform().m11()
        step = GRID
        while step * scale < 12.0:
            step *= 4.0
        major = step * 4.0
        left = math.floor(rect.left() / step) * step
        top = math.floor(rect.top() / step) * step
        minor_pen = QPen(s.c("grid_minor"), 0.0)
        major_pen = QPen(s.c("grid_major"), 0.0)
        lines_minor, lines_major = [], []
        x = left
        while x < rect.right():
            target = lines_major if abs(x / major - round(x / major)) < 1e-6 else lines_minor
            target.append((QPointF(x, rect.top()), QPointF(x, rect.bottom())))
            x += step
        y = top
        while y < rect.bottom():
            target = lines_major if abs(y / major - round(y / major)) < 1e-6 else lines_minor
            target.append((QPointF(rect.left(), y), QPointF(rect.right(), y)))
            y += step
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(minor_pen)
        for a, b in lines_minor:
            painter.drawLine(a, b)
        painter.setPen(major_pen)
        for a, b in lines_major:
            painter.drawLine(a, b)

    # ------------------------------------------------------------------ zoom
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

    # ------------------------------------------------------------------ keys
    def event(self, event: QEvent) -> bool:
        # Tab would move focus to the next widget; on the canvas it opens quick-add, as
        # Blender's Shift+A does.
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and (
                (event.key() == Qt.Key.Key_Tab and not event.modifiers())
                or (
                    event.key() == Qt.Key.Key_A
                    and event.modifiers() == Qt.KeyboardModifier.ShiftModifier
                )
            )
        ):
            self.open_search()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.setDragMode(QGraphicsView.DragMode.NoDrag)
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            return
        if event.key() == Qt.Key.Key_Escape and self._wire is not None:
            self._end_wire()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
            self.viewport().unsetCursor()
            return
        super().keyReleaseEvent(event)

    # ------------------------------------------------------------------ mouse
    def _node_port_at(self, view_pos: QPoint) -> tuple[NodeItem | None, PortItem | None]:
        scene_pos = self.mapToScene(view_pos)
        for item in self.items(QRect(view_pos - QPoint(12, 12), view_pos + QPoint(12, 12))):
            if isinstance(item, NodeItem):
                port = item.port_at(item.mapFromScene(scene_pos))
                if port is not None:
                    return item, port
        item = self.itemAt(view_pos)
        return (item if isinstance(item, NodeItem) else None), None

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        pos = event.position().toPoint()
        middle = event.button() == Qt.MouseButton.MiddleButton
        if middle or (event.button() == Qt.MouseButton.LeftButton and self._space):
            self._pan_from = pos
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        if event.button() == Qt.MouseButton.LeftButton:
            _node, port = self._node_port_at(pos)
            if port is not None:
                self._begin_wire(port)
                event.accept()
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        pos = event.position().toPoint()
        if self._pan_from is not None:
            delta = pos - self._pan_from
            self._pan_from = pos
            self.pan_by(delta.x(), delta.y())
            event.accept()
            return
        if self._wire is not None:
            self._drag_wire(pos, event.globalPosition().toPoint())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self._pan_from is not None and event.button() in (
            Qt.MouseButton.MiddleButton,
            Qt.MouseButton.LeftButton,
        ):
            self._pan_from = None
            if self._space:
                self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            else:
                self.viewport().unsetCursor()
            event.accept()
            return
        if self._wire is not None and event.button() == Qt.MouseButton.LeftButton:
            self._drop_wire(event.position().toPoint(), event.globalPosition().toPoint())
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        pos = event.position().toPoint()
        node, _port = self._node_port_at(pos)
        group = self.group_item_at(pos) if node is None else None
        if isinstance(group, GroupCardItem):
            self.set_collapsed(group.group_id, False)  # a collapsed group opens again
            event.accept()
            return
        if isinstance(group, GroupFrameItem):
            local = group.mapFromScene(self.mapToScene(pos))
            if local.x() < CHEVRON + 6.0:
                self.set_collapsed(group.group_id, True)
            else:
                self.edit_group_title(group.group_id)
            event.accept()
            return
        if node is None:
            self.open_search(pos)
            event.accept()
            return
        local = node.mapFromScene(self.mapToScene(pos))
        if local.y() < HEADER_HEIGHT:
            self.edit_label(node.node_id)
        else:
            name = self._editable_param_at(node, local)
            if name is not None:
                self.edit_param(node.node_id, name)
        event.accept()

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt's name
        self.context_menu(event.pos()).exec(event.globalPos())

    def context_menu(self, pos: QPoint) -> QMenu:
        """The right-click menu at ``pos`` (view coordinates): a node's, a group's, or the
        canvas's."""
        node, _ = self._node_port_at(pos)
        menu = QMenu(self)
        group = self.group_item_at(pos) if node is None else None
        if group is not None:
            if not group.isSelected():
                self.graph_scene.clearSelection()
                group.setSelected(True)
            self.group_menu(menu, group.group_id)
        elif node is not None:
            if not node.isSelected():
                self.graph_scene.clearSelection()
                node.setSelected(True)
            node_id = node.node_id
            add_action(menu, "Rename…", lambda: self.edit_label(node_id))
            add_action(menu, "Duplicate", self.duplicate)
            add_action(menu, "Copy", self.copy_selection)
            add_action(menu, "Group", self.group_selection)
            for extra in self.node_menu_extras:
                extra(menu, node_id)
            menu.addSeparator()
            add_action(menu, "Delete", self.delete_selection)
        else:
            scene_pos = self.mapToScene(pos)
            add_action(menu, "Add node…", lambda: self.open_search(pos))
            paste = add_action(menu, "Paste", lambda: self.paste(scene_pos))
            paste.setEnabled(bool(self._clipboard_text()))
            menu.addSeparator()
            add_action(menu, "Auto-layout", self.auto_layout)
            add_action(menu, "Zoom to fit", self.fit_all)
        return menu

    # ------------------------------------------------------------------ wires
    def _begin_wire(self, port: PortItem) -> None:
        doc = self.document
        detached: Edge | None = None
        origin = port
        if port.is_input and not port.spec.variadic:
            existing = doc.inputs_of(port.node_id, port.name)
            if existing:
                # pick up the wire plugged into this input (Blender): re-route or drop it
                detached = existing[0]
                src_item = self.graph_scene.node_item(detached.src)
                found = src_item.port(detached.src_port, False) if src_item else None
                if found is not None:
                    origin = found
        owner = self.graph_scene.node_item(origin.node_id)
        assert owner is not None
        start = owner.mapToScene(origin.center)
        item = WireItem(self.graph_scene, start, origin.is_input)
        item.set_end(start, "free")
        self.graph_scene.addItem(item)
        self._wire = _WireDrag(origin, item, detached)
        if detached is not None:
            edge_item = self.graph_scene.edge_item(detached)
            if edge_item is not None:
                edge_item.setVisible(False)

    def check_wire(self, origin: PortItem, target: PortItem) -> str | None:
        """Why ``origin`` cannot connect to ``target`` (None if it can)."""
        if target.node_id == origin.node_id and target.is_input == origin.is_input:
            return "pick a port on another node"
        if target.is_input == origin.is_input:
            return "connect an output to an input"
        src, dst = (target, origin) if origin.is_input else (origin, target)
        return self.document.can_connect(src.node_id, src.name, dst.node_id, dst.name)

    def _drag_wire(self, pos: QPoint, global_pos: QPoint) -> None:
        wire = self._wire
        assert wire is not None
        _, target = self._node_port_at(pos)
        if target is not None and not (
            wire.detached is not None
            and target.node_id == wire.detached.dst
            and target.name == wire.detached.dst_port
        ):
            reason = self.check_wire(wire.origin, target)
        else:
            reason = None
        wire.target, wire.reason = target, reason
        if target is not None:
            owner = self.graph_scene.node_item(target.node_id)
            end = owner.mapToScene(target.center) if owner else self.mapToScene(pos)
            wire.item.set_end(end, "bad" if reason else "ok")
            if reason:
                QToolTip.showText(global_pos, f"Cannot connect: {reason}", self)
            else:
                QToolTip.hideText()
        else:
            wire.item.set_end(self.mapToScene(pos), "free")
            QToolTip.hideText()

    def _drop_wire(self, pos: QPoint, global_pos: QPoint) -> None:
        self._drag_wire(pos, global_pos)
        wire = self._wire
        assert wire is not None
        origin, target, reason, detached = wire.origin, wire.target, wire.reason, wire.detached
        self._end_wire(keep_hidden=True)
        if target is not None:
            if detached is not None and (target.node_id, target.name) == (
                detached.dst,
                detached.dst_port,
            ):
                self._show_edge(detached)
                return
            if reason:
                self._show_edge(detached)
                self.message.emit(f"Cannot connect: {reason}")
                QToolTip.showText(global_pos, f"Cannot connect: {reason}", self)
                return
            src, dst = (target, origin) if origin.is_input else (origin, target)
            self.connect_ports(src.node_id, src.name, dst.node_id, dst.name, detached)
            return
        if detached is not None:
            # a picked-up wire dropped on empty canvas is unplugged
            self.bridge.push(lambda: DisconnectCommand(self.document, detached))
            return
        # a wire dropped on empty canvas: quick-add a node that accepts it
        self._pending_wire = origin
        kind = "list of tensors" if origin.type.value == "tensors" else "tensor"
        hint = (
            f"Add a node that takes this {kind}"
            if not origin.is_input
            else f"Add a node that gives a {kind}"
        )
        self.open_search(pos, accept=accepting(origin.type, not origin.is_input), hint=hint)

    def _show_edge(self, edge: Edge | None) -> None:
        if edge is not None:
            item = self.graph_scene.edge_item(edge)
            if item is not None:
                item.setVisible(True)

    def _end_wire(self, keep_hidden: bool = False) -> None:
        wire = self._wire
        self._wire = None
        if wire is None:
            return
        self.graph_scene.removeItem(wire.item)
        if not keep_hidden:
            self._show_edge(wire.detached)
        QToolTip.hideText()

    # ------------------------------------------------------------------ quick add
    def open_search(
        self,
        view_pos: QPoint | None = None,
        accept: object = None,
        hint: str = "Add node",
    ) -> NodeSearchPopup:
        """Open the quick-add popup at ``view_pos`` (default: the cursor, or the centre)."""
        if view_pos is None:
            cursor = self.viewport().mapFromGlobal(self.cursor().pos())
            inside = self.viewport().rect().contains(cursor)
            view_pos = cursor if inside else self.viewport().rect().center()
        if accept is None:
            self._pending_wire = None
        self._search_scene_pos = self.mapToScene(view_pos)
        global_pos = self.viewport().mapToGlobal(view_pos)
        self.search.open_at(global_pos, accept, hint)  # type: ignore[arg-type]
        return self.search

    def _search_chosen(self, type_id: str) -> None:
        wire = self._pending_wire
        self._pending_wire = None
        self.add_node(type_id, self._search_scene_pos, connect_to=wire)

    def _search_dismissed(self) -> None:
        self._pending_wire = None

    # ------------------------------------------------------------------ drops from the palette
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if event.mimeData().hasFormat(NODE_MIME):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802 - Qt's name
        if event.mimeData().hasFormat(NODE_MIME):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        data = event.mimeData()
        if data.hasFormat(NODE_MIME):
            type_id = bytes(data.data(NODE_MIME).data()).decode("utf-8")
            self.add_node(type_id, self.mapToScene(event.position().toPoint()))
            event.acceptProposedAction()
            return
        super().dropEvent(event)

    def view_center_scene(self) -> QPointF:
        return self.mapToScene(self.viewport().rect().center())
