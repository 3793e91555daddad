"""Node facts painted from the playhead (``state.playhead``): when the evaluation or
its position changes, each card takes its facts and each wire its gradient colour, and
only what a view shows repaints at once (a scrub restyles thousands of cards); the rest
repaints when it comes into view.

A mixin of ``GraphScene``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, Qt
from PySide6.QtWidgets import QGraphicsItem

from ui.canvas.edge_item import EdgeItem
from ui.canvas.node_facts import PENDING, NodeFacts, facts_reader, node_facts
from ui.canvas.node_item import NodeItem
from ui.canvas.overview import Overview

if TYPE_CHECKING:
    from gradstudio.document.values import Edge
    from gradstudio.evaluation.facts import TensorFacts
    from ui.state import StudioState


class SceneFacts:
    """``GraphScene``'s facts painting from the playhead (mixed into it)."""

    state: StudioState
    overview: Overview | None
    _nodes: dict[str, NodeItem]
    _edges: dict[Edge, EdgeItem]
    _out_wires: dict[str, tuple[tuple[str, list[EdgeItem]], ...]] | None
    _facts_key: tuple | None
    _shown: set[QGraphicsItem] | None
    _put_off: set[NodeItem | EdgeItem]
    _overview_on: bool

    if TYPE_CHECKING:  # provided by GraphScene and SceneDetail

        def _overview_changed(self, geometry: bool = True) -> None: ...

    def refresh_facts(self) -> None:
        """Repaint node facts from the evaluation at the timeline position.

        ``set_evaluation`` announces both a new evaluation and a new position; the
        second call finds nothing new and returns at once.  Every card takes its new
        facts at once (what the inspector and the tests read), but only those on
        screen repaint now: a scrub restyles thousands of cards, and Qt's dirty-item
        pass asks each for its bounds; the others repaint once a view shows them
        (``expose``).
        """
        if not self._overview_on:
            rect = self._screen()
            self._shown = None if rect is None else set(self._items_in(rect))
        try:
            self._refresh_facts()
        finally:
            self._shown = None

    def _screen(self) -> QRectF | None:
        """The part of the scene the visible views show (None: no view shows it)."""
        rect = QRectF()
        for view in self.views():
            if view.isVisible():
                rect = rect.united(view.mapToScene(view.viewport().rect()).boundingRect())
        return None if rect.isEmpty() else rect

    def _items_in(self, rect: QRectF) -> list[QGraphicsItem]:
        """The items whose bounds meet ``rect`` (their shapes are not asked: a Python
        call each)."""
        mode = Qt.ItemSelectionMode.IntersectsItemBoundingRect
        return self.items(rect, mode, Qt.SortOrder.AscendingOrder)

    def on_screen(self, item: NodeItem | EdgeItem) -> bool:
        """Whether a view shows ``item`` (always, but while a scrub restyles cards);
        one it does not show is remembered, to repaint when it comes into view."""
        shown = self._shown
        if shown is None or item in shown:
            return True
        self._put_off.add(item)
        return False

    def expose(self) -> None:
        """Repaint the cards and wires a scrub restyled off screen that a view shows
        now (it scrolled or grew: zooming redraws every cached card anyway)."""
        if not self._put_off or self._overview_on:
            return
        rect = self._screen()
        if rect is None:
            return
        put_off = self._put_off
        for item in self._items_in(rect):
            if item in put_off:
                put_off.discard(item)
                item.show_put_off()

    def render(self, *args: object, **kwargs: object) -> None:
        """Draw the scene elsewhere (an exported image): what was put off first."""
        for item in self._put_off:
            item.show_put_off()
        self._put_off.clear()
        super().render(*args, **kwargs)

    def _refresh_facts(self) -> None:
        playhead = self.state.playhead
        ev = playhead.evaluation
        key = (ev, playhead.step, playhead.replay, len(self._nodes), len(self._edges))
        if key == self._facts_key:
            return
        before, self._facts_key = self._facts_key, key
        snap = playhead.snapshot()
        at_end = ev is None or playhead.at_end
        items: Iterable[NodeItem] = self._nodes.values()
        changed: set[str] | None = None
        if before is not None and ev is not None and before[0] is ev and before[3:] == key[3:]:
            # the same evaluation at another position: only what changed in between
            changed = playhead.nodes_changed_since(before[1], before[2])
            items = [item for n in changed if (item := self._nodes.get(n)) is not None]
        read = facts_reader(playhead)
        # A node whose step is after the one shown is pending and has no outputs yet:
        # most of a long jump back, told apart here without reading any facts.
        step_of = ev.plan.step_of if ev is not None and snap is not None else {}
        shown = playhead.effective_step
        later: set[str] = set()
        #: the first output's facts, read for the card already (its wires' colour)
        first: dict[str, tuple[str, TensorFacts | None]] = {}
        restyled = []  # the cards whose look far out (the overview's) changed
        pending_dimmed = not at_end
        far = self._overview_on
        for item in items:
            node_id = item.node_id
            step = step_of.get(node_id)
            old = item.facts
            if step is not None and step > shown:
                later.add(node_id)
                if old is PENDING:
                    if item.dimmed == pending_dimmed:
                        continue
                    restyled.append(item)
                elif old.status == "error" or old.requires_grad or item.dimmed != pending_dimmed:
                    restyled.append(item)
                if far and old.status != "error":  # ``set_pending``, inlined: thousands
                    item.facts, item.dimmed, item._stale = PENDING, pending_dimmed, True
                else:
                    item.set_pending(pending_dimmed)
                continue
            was_dimmed = item.dimmed
            facts = read(node_id, item.node_type)
            dimmed = facts.status == "skipped" or (not at_end and facts.status == "pending")
            if facts.status == "ok" and facts.list_length is None and item.node_type.outputs:
                first[node_id] = (item.node_type.outputs[0].name, facts.tensor)
            if item.set_facts(facts, dimmed=dimmed) and (
                dimmed != was_dimmed
                or (old.status == "error") != (facts.status == "error")
                or old.requires_grad != facts.requires_grad
            ):
                restyled.append(item)
        out = self._out_wires
        if out is None:
            by_port: dict[str, dict[str, list[EdgeItem]]] = {}
            for edge, edge_item in self._edges.items():
                by_port.setdefault(edge.src, {}).setdefault(edge.src_port, []).append(edge_item)
            out = self._out_wires = {src: tuple(ports.items()) for src, ports in by_port.items()}
        wires: list[EdgeItem] = []  # the wires whose gradient colour changed
        on_screen = self.on_screen
        for src in out if changed is None else changed:  # the wires out of changed nodes
            ports = out.get(src)
            if ports is None:
                continue
            if src in later:  # pending: no output yet, so no gradient on any wire
                for _port, port_wires in ports:
                    for edge_item in port_wires:
                        if edge_item.carries_grad:
                            if far:  # hidden: ``set_carries_grad``, inlined
                                edge_item.carries_grad, edge_item.stale = False, True
                            else:
                                edge_item.set_carries_grad(False, not on_screen(edge_item))
                            wires.append(edge_item)
                continue
            known = first.get(src)
            for port, port_wires in ports:
                if known is not None and known[0] == port:
                    f = known[1]
                else:
                    f = snap.facts(src, port) if snap is not None else None
                grad = bool(f is not None and f.requires_grad)
                for edge_item in port_wires:
                    if edge_item.carries_grad is not grad:
                        edge_item.set_carries_grad(grad, far or not on_screen(edge_item))
                        wires.append(edge_item)
        if changed is None:
            self._overview_changed(geometry=False)
        elif self.overview is not None:
            self.overview.restyle(restyled, wires)

    def _refresh_node_facts(self, node_id: str) -> None:
        item = self._nodes.get(node_id)
        if item is None:
            return
        facts = node_facts(item.node_id, item.node_type, self.state.playhead)
        item.set_facts(facts, dimmed=False)

    def facts_of(self, node_id: str) -> NodeFacts:
        item = self._nodes.get(node_id)
        return item.facts if item is not None else NodeFacts()
