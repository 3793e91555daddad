"""The canvas's keys and mouse: quick-add keys, Space+drag and middle-drag panning,
port drags that start wires, double-clicks that edit, and the right-click menus.

A mixin of ``GraphView``: it tells an event apart and hands it to the purpose that
handles it (``view_wires``, ``view_quick_add``, ``editing``, ``group_editing``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QPoint, QRect, Qt
from PySide6.QtGui import QContextMenuEvent, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QGraphicsView, QMenu

from ui.actions import add_action
from ui.canvas.group_item import CHEVRON, GroupCardItem, GroupFrameItem
from ui.canvas.node_item import NodeItem
from ui.canvas.port_item import PortItem
from ui.canvas.style import HEADER_HEIGHT

if TYPE_CHECKING:
    from ui.canvas.edge_item import WireDrag
    from ui.canvas.scene import GraphScene

#: The canvas's own keys (not window actions): (keys, what they do), for Help › Keyboard
#: Shortcuts.  ``event`` and ``keyPressEvent`` below handle them.
CANVAS_KEYS = (
    ("Tab, Shift+A, double-click", "Add a node (search)"),
    ("Space + drag", "Pan"),
    ("Wheel", "Zoom"),
    ("Drag from a port", "Connect"),
    ("Esc", "Cancel a connection being drawn"),
)


class CanvasInput:
    """The canvas's key and mouse handling (needs what ``GraphView`` provides)."""

    graph_scene: GraphScene
    node_menu_extras: list[Callable[[QMenu, str], None]]
    _wire: WireDrag | None
    _pan_from: QPoint | None
    _space: bool

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
