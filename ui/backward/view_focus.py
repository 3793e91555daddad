"""The backward view's focus on the last backward's graph: the boxes only earlier
backwards ran are put aside (``ui.backward.focus``) unless the user shows them all."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSignalBlocker

from ui.backward.focus import Focus, focus_at
from ui.backward.graph_layout import SCENE_MARGIN
from ui.backward.model import (
    BoxId,
)


class FocusMixin:
    """``BackwardView``'s last-backward focus (mixed into it)."""

    def set_show_all(self, show: bool) -> None:
        """Every backward's graph, or the last one's alone (a view setting, not undone)."""
        self.show_all = show
        with QSignalBlocker(self.show_all_action):
            self.show_all_action.setChecked(show)
        self._apply_focus()
        self._update_status()

    @property
    def hidden_graphs(self) -> int:
        """How many earlier backward graphs are put aside now."""
        return self._focus.count

    def _apply_focus(self) -> None:
        """Put aside the boxes (and their links) that only earlier backwards ran, and
        fit the rest if the view fits itself (``ui.backward.focus``)."""
        focus = Focus() if self.show_all else focus_at(self.state.playhead)
        if focus == self._focus and self._focus_items is self.boxes:
            return
        self._focus, self._focus_items = focus, self.boxes
        hidden = focus.hidden
        muted: set[BoxId] = set()
        for box_id, item in self.boxes.items():
            on = item.box.key is not None and item.box.key in hidden
            if on:
                muted.add(box_id)
            if on != item.muted:
                item.set_muted(on)
        for link in self.links:
            on = link.link.tail in muted or link.link.head in muted
            if on != link.muted:
                link.set_muted(on)
        self._update_pills()
        self.overview.invalidate()
        self.view.setSceneRect(self.focus_rect())  # a null rect: the whole scene's
        if self.view.auto_fit:
            self.view.fit()

    def focus_rect(self) -> QRectF:
        """Around the boxes not put aside, when some are (else null: the whole scene).
        The graphics view scrolls and fits within it (``QGraphicsView.setSceneRect``)."""
        if not self._focus.hidden:
            return QRectF()
        rect = QRectF()
        for item in self.boxes.values():
            if item.shown and not item.muted:
                rect = rect.united(
                    QRectF(item.cx - item.w / 2, item.cy - item.h / 2, item.w, item.h)
                )
        if rect.isEmpty():
            return QRectF()
        pad = SCENE_MARGIN + 24  # room for the gradient labels beside the edges
        return rect.adjusted(-pad, -pad, pad, pad)

    def _shown_fn_count(self) -> int:
        """The grad_fns at the position, less those put aside (``_apply_focus``)."""
        hidden = self._focus.hidden
        if not hidden:
            return self.model.fn_count
        return sum(1 for b in self.model.boxes.values() if b.kind == "fn" and b.key not in hidden)
