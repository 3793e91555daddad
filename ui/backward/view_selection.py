"""The backward view's selection sync: a click on a box selects its document node (via
the state), and a node or grad_fn selected elsewhere is highlighted here."""

from __future__ import annotations

from ui.backward.items import BoxItem
from ui.backward.model import (
    BoxId,
    parse_key,
)


class SelectionMixin:
    """``BackwardView``'s selection sync (mixed into it)."""

    def _apply_selection(self) -> None:
        key = self.selected_key
        before, self._applied_selection = self._applied_selection, (key,)
        if before is None:
            for box_id, item in self.boxes.items():
                on = key is not None and item.box.key == key and box_id[0] in ("fn", "leaf", "out")
                item.set_state(selected=on)
        elif before[0] != key:
            for k in (before[0], key):
                for item in self._key_items.get(k, ()) if k is not None else ():
                    item.set_state(selected=k == key)
        else:
            return
        self.overview.invalidate()

    def _ensure_visible(self, key: int) -> None:
        item = self.fn_item(key)
        if item is not None:
            self.view.ensureVisible(item, 40, 40)

    def select_key(self, key: int | None) -> None:
        """Highlight a grad_fn here, and select its counterpart node via the state."""
        self.selected_key = key
        self._apply_selection()
        ev = self.state.evaluation
        self.state.select_grad_fn("" if key is None else str(key))
        if ev is None or key is None:
            self.state.select(())
            return
        index = self.state.playhead.index
        node = index.node_for(key) if index is not None else None
        self.state.select((node,) if node is not None else ())
        self._ensure_visible(key)

    def click_box(self, box_id: BoxId) -> None:
        """What a click on a box does (the mouse path calls this too)."""
        self.sync_items()
        item = self.boxes.get(box_id)
        if item is not None:
            self._box_clicked(item)

    def _box_clicked(self, item: BoxItem) -> None:
        box = item.box
        if box.kind in ("leaf", "out") and box.node_id is not None:
            self.selected_key = box.key
            self._apply_selection()
            self.state.select_grad_fn("" if box.key is None else str(box.key))
            self.state.select((box.node_id,))
            return
        self.select_key(box.key)

    def _background_clicked(self) -> None:
        if self.selected_key is not None:
            self.select_key(None)

    def _selection_changed(self) -> None:
        index, snap = self.state.playhead.index, self.state.playhead.snapshot()
        if index is None or snap is None:
            return
        selection = self.state.selection
        if self.selected_key is not None and index.node_for(self.selected_key) in selection:
            return  # the selection came from here (or agrees with it)
        key = index.key_for(snap, selection[0]) if selection else None
        self.selected_key = key
        self._apply_selection()
        self.state.select_grad_fn("" if key is None else str(key))
        if key is not None:
            self._ensure_visible(key)

    def _grad_fn_selected(self, text: str) -> None:
        key = parse_key(text)
        if key != self.selected_key:
            self.selected_key = key
            self._apply_selection()
            if key is not None:
                self._ensure_visible(key)
