"""Adding a node by name on the canvas: the quick-add popup (Tab, Shift+A, a
double-click, a wire dropped on empty canvas) and node types dragged from the palette.

A mixin of ``GraphView``; the node is added by ``editing``'s ``add_node``.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent

from ui.canvas.port_item import PortItem
from ui.canvas.search_popup import NodeSearchPopup

#: The drag data of a palette row: the node type id, UTF-8.
NODE_MIME = "application/x-gradstudio-node-type"


class CanvasQuickAdd:
    """The canvas's quick-add popup and palette drops (needs what ``GraphView`` provides)."""

    search: NodeSearchPopup
    _search_scene_pos: QPointF
    _pending_wire: PortItem | None

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
