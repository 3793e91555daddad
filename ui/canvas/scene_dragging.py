"""Cards dragged with the mouse: their wires follow while they move, and the new
positions go out in one ``nodesDragged`` when the drag ends (the view makes it one
undoable move).  A frame or a collapsed card drags its nodes itself (``groupDragged``).

A mixin of ``GraphScene``.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import QGraphicsSceneMouseEvent

from ui.canvas.group_item import GroupCardItem, GroupFrameItem
from ui.canvas.node_item import NodeItem


class SceneDragging:
    """``GraphScene``'s card drags (mixed into it)."""

    nodesDragged: Signal
    _nodes: dict[str, NodeItem]
    _press_positions: dict[str, QPointF]

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mousePressEvent(event)
        if isinstance(self.mouseGrabberItem(), GroupFrameItem | GroupCardItem):
            self._press_positions = {}  # the group drags its nodes itself (groupDragged)
            return
        self._press_positions = {
            i.node_id: i.pos() for i in self.selectedItems() if isinstance(i, NodeItem)
        }

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mouseMoveEvent(event)
        if self._press_positions and event.buttons() & Qt.MouseButton.LeftButton:
            for node_id in self._press_positions:
                item = self._nodes.get(node_id)
                if item is not None:
                    self.node_item_moved(item)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        moved: dict[str, tuple[float, float]] = {}
        for node_id, before in self._press_positions.items():
            item = self._nodes.get(node_id)
            if item is not None and item.pos() != before:
                moved[node_id] = (round(item.x(), 1), round(item.y(), 1))
        self._press_positions = {}
        if moved:
            self.nodesDragged.emit(moved)
