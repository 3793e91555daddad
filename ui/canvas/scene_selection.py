"""The canvas's selection kept in step with the studio's (``state.selection``), both
ways, and selected cards raised above the others.

A mixin of ``GraphScene``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.canvas.group_layer import GroupLayer
from ui.canvas.node_item import NodeItem

if TYPE_CHECKING:
    from ui.state import StudioState


class SceneSelection:
    """``GraphScene``'s selection sync (mixed into it)."""

    state: StudioState
    groups: GroupLayer
    _nodes: dict[str, NodeItem]
    _raised: set[str]
    _syncing_selection: bool
    _clearing: bool

    if TYPE_CHECKING:  # provided by GraphScene and SceneDetail

        def selected_node_ids(self) -> list[str]: ...

        def _overview_changed(self, geometry: bool = True) -> None: ...

    def _raise_selected(self) -> None:
        """Selected cards draw above the others (and their wires stay visible)."""
        selected = {i.node_id for i in self.selectedItems() if isinstance(i, NodeItem)}
        for node_id in self._raised - selected:
            item = self._nodes.get(node_id)
            if item is not None:
                item.setZValue(1.0)
        for node_id in selected - self._raised:
            item = self._nodes.get(node_id)
            if item is not None:
                item.setZValue(2.0)
        self._raised = selected

    def _selection_to_state(self) -> None:
        if self._clearing:
            return
        self._overview_changed(geometry=False)
        self._raise_selected()
        if self._syncing_selection:
            return
        self._syncing_selection = True
        try:
            self.state.select(self.selected_node_ids())
        finally:
            self._syncing_selection = False

    def _selection_from_state(self) -> None:
        if self._syncing_selection:
            return
        self._syncing_selection = True
        try:
            wanted = set(self.state.selection)
            self.groups.ensure()
            for node_id, item in self._nodes.items():
                sel = node_id in wanted
                if item.isSelected() != sel:
                    item.setSelected(sel)
            self.groups.show_selected(wanted)
        finally:
            self._syncing_selection = False
