"""The backward view's scrubbing: the model and the gradients at the playhead set on
the items, touching only those whose state changes, and the gradient labels placed."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF

from ui.backward.items import BoxItem
from ui.backward.labels import place_labels
from ui.backward.model import (
    Box,
    GraphModel,
)
from ui.backward.scrub_model import ModelDelta


class ScrubbingMixin:
    """``BackwardView``'s items moved along the timeline (mixed into it)."""

    def _apply_model(self, model: GraphModel) -> None:
        """Show the part of the union graph that exists at this position."""
        detail = self.detail
        before, self._applied_model = self._applied_model, model
        present = {link.flow for link in model.links}
        if before is None:
            for box_id, item in self.boxes.items():
                box = model.boxes.get(box_id)
                item.set_shown(box is not None, detail)
                if box is not None:
                    self._set_box(item, box, model)
            for link in self.links:
                link.set_shown(link.link.flow in present, detail)
        else:  # only the boxes, roots and links that differ from the position before
            for box_id in before.boxes.keys() - model.boxes.keys():
                if (item := self.boxes.get(box_id)) is not None:
                    item.set_shown(False, detail)
            old = before.boxes
            for box_id, box in model.boxes.items():
                if old.get(box_id) is not box and (item := self.boxes.get(box_id)) is not None:
                    item.set_shown(True, detail)
                    self._set_box(item, box, model)
            for key in before.roots ^ model.roots:
                box = model.boxes.get(("fn", key))
                if box is not None and (item := self.boxes.get(("fn", key))) is not None:
                    self._set_box(item, box, model)
            was = {link.flow for link in before.links}
            for flow in was ^ present:
                for link in self._flow_items.get(flow, ()):
                    link.set_shown(flow in present, detail)
        self._update_pills()
        self._overview_later()

    def _apply_delta(self, model: GraphModel, delta: ModelDelta) -> None:
        """Show what changed since the position before: a scrub costs what it changes."""
        detail, boxes = self.detail, self.boxes
        self._applied_model = model
        for box_id in delta.removed:
            if (item := boxes.get(box_id)) is not None:
                item.set_shown(False, detail)
        for box_id, box in delta.boxes.items():
            if (item := boxes.get(box_id)) is not None:
                item.set_shown(True, detail)
                self._set_box(item, box, model)
        for key in delta.roots:
            box = model.boxes.get(("fn", key))
            if box is not None and (item := boxes.get(("fn", key))) is not None:
                self._set_box(item, box, model)
        for flows, shown in ((delta.links_removed, False), (delta.links_added, True)):
            for flow in flows:
                for link in self._flow_items.get(flow, ()):
                    link.set_shown(shown, detail)
        if delta:
            self._update_pills()
            self._overview_later()

    def _set_box(self, item: BoxItem, box: Box, model: GraphModel) -> None:
        if item.box.kind != "fn":
            item.set_box(box)
        else:
            key = box.key
            item.set_state(output=key in model.roots and ("out", key) not in self.boxes)

    def _update_pills(self) -> None:
        """The gradient labels of the links shown now that a gradient has flowed along,
        each on its edge where it covers no box and no other label (``labels``)."""
        flowing = (
            [(i, link) for i, link in enumerate(self.links) if link.drawn and link.flow is not None]
            if self.detail
            else []
        )
        flowing.sort(key=lambda il: not il[1].strong)  # the edge being replayed first
        key = (self._model_key, *((i, link.flow_text) for i, link in flowing))
        if key != self._pill_key and not flowing:  # none shown (zoomed out): nothing to place
            self._pill_spots, self._pill_key = [], key
        elif key != self._pill_key:
            layer = self.pill_layer
            sizes = [layer.pill_rect(QPointF(), link.flow_text) for _, link in flowing]
            boxes = [
                (b.cx - b.w / 2, b.cy - b.h / 2, b.cx + b.w / 2, b.cy + b.h / 2)
                for b in self.boxes.values()
                if b.drawn
            ]
            spots = place_labels(
                [
                    (link.label_spots(), r.width(), r.height())
                    for (_, link), r in zip(flowing, sizes, strict=True)
                ],
                boxes,
            )
            self._pill_spots = [QPointF(x, y) for x, y in spots]
            self._pill_key = key
        pills = [
            (spot, link.flow_text, link.strong)
            for spot, (_, link) in zip(self._pill_spots, flowing, strict=True)
        ]
        rect = QRectF(self._graph_rect)
        for centre, text, _ in pills:
            rect = rect.united(self.pill_layer.pill_rect(centre, text).adjusted(-4, -4, 4, 4))
        if rect != self._graph_rect:
            # a wide gradient label near the edge of the graph: the scene (and Fit) take
            # it in, and keep it for this graph so scrubbing does not make the view jump
            self._graph_rect = rect
            self.scene.setSceneRect(rect)
            if self.view.auto_fit:
                self.view.fit()
        self.pill_layer.set_pills(pills, rect)

    def _apply_flow(self) -> None:
        """The gradients that have flowed by the playhead's position, on the links."""
        playhead = self.state.playhead
        at = playhead.trace_at()
        executed = at.executed if at is not None else ()
        current = playhead.current
        flows = playhead.edge_gradients()
        strong = playhead.current_flows()
        self.executed_keys = tuple(ex.key for ex in executed)
        self.current_key = current.key if current is not None else None
        live = at is not None and at.live
        done = set(self.executed_keys) if live else set()
        before = self._applied_flow
        self._applied_flow = (flows, strong, done, self.current_key)
        if before is None:
            for link in self.links:
                link.set_flow(flows.get(link.link.flow), link.link.flow in strong)
            for box_id, item in self.boxes.items():
                if box_id[0] == "fn":
                    item.set_state(
                        executed=box_id[1] in done, current=box_id[1] == self.current_key
                    )
        else:  # only the links whose gradient changed, the boxes that ran or run now
            old_flows, old_strong, old_done, old_current = before
            keys = (
                set()
                if flows is old_flows
                else {
                    k
                    for k in old_flows.keys() | flows.keys()
                    if old_flows.get(k) is not flows.get(k)
                }
            )
            for flow in keys | (old_strong ^ strong):
                for link in self._flow_items.get(flow, ()):
                    link.set_flow(flows.get(flow), flow in strong)
            ran = old_done ^ done
            if not keys and old_strong == strong and not ran and old_current == self.current_key:
                return  # nothing flowed or ran between the positions (a forward scrub)
            for key in ran | {old_current, self.current_key}:
                item = self.boxes.get(("fn", key)) if key is not None else None
                if item is not None:
                    item.set_state(executed=key in done, current=key == self.current_key)
        self._update_pills()
        self._overview_later()

    def _read_flow_keys(self) -> None:
        """The grad_fns run by the position, and the one running (None: none)."""
        playhead = self.state.playhead
        at = playhead.trace_at()
        current = playhead.current
        self.executed_keys = tuple(ex.key for ex in at.executed) if at is not None else ()
        self.current_key = current.key if current is not None else None
