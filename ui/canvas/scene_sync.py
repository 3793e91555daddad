"""The scene kept in step with the document: one card per node and one wire per edge,
built from scratch on New, Open or a reset, and then changed only where an event says
(a moved node moves one card and re-routes its wires).

A mixin of ``GraphScene``; it keeps the lookup tables ``scene`` reads (cards, wires,
the wires at each node, connected ports, input counts) and never edits the document.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF

from gradstudio.document.events import (
    DocumentEvent,
    DocumentReset,
    EdgeAdded,
    EdgeRemoved,
    LabelChanged,
    NodeAdded,
    NodeMoved,
    NodeRemoved,
    OrderChanged,
    ParamChanged,
)
from ui.canvas.edge_item import EdgeItem
from ui.canvas.group_layer import GroupLayer
from ui.canvas.node_item import NodeItem
from ui.canvas.overview import Overview

if TYPE_CHECKING:
    from gradstudio.document.model import Document
    from gradstudio.document.values import Edge

SCENE_MARGIN = 3000.0


class SceneSync:
    """``GraphScene``'s building and document events (mixed into it)."""

    groups: GroupLayer
    overview: Overview | None
    _nodes: dict[str, NodeItem]
    _edges: dict[Edge, EdgeItem]
    _edges_by_node: dict[str, set[Edge]]
    _out_wires: dict[str, tuple[tuple[str, list[EdgeItem]], ...]] | None
    _connected: dict[str, set[tuple[str, bool]]]
    _input_counts: dict[tuple[str, str], int]
    _unsubscribe: Callable[[], None] | None
    _clearing: bool
    _raised: set[str]
    _facts_key: tuple | None
    _put_off: set[NodeItem | EdgeItem]
    _overview_on: bool

    if TYPE_CHECKING:  # provided by GraphScene

        @property
        def document(self) -> Document: ...

    def rebuild(self) -> None:
        """Drop every item and draw the current document from scratch (New/Open/reset)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._raised = set()
        self._facts_key = None
        self._put_off.clear()
        self._nodes.clear()
        self._edges.clear()
        self._clearing = True
        try:
            self.clear()
        finally:
            self._clearing = False
        self._edges_by_node.clear()
        self._out_wires = None
        self._connected.clear()
        self._input_counts.clear()
        self.groups.reset()
        doc = self.document
        self.overview = Overview(self)
        self.overview.setVisible(self._overview_on)
        self.addItem(self.overview)
        for step, node in enumerate(doc.nodes()):
            self._add_node(node.id, step)
        for edge in doc.edges():
            self._add_edge(edge)
        self.groups.rebuild()
        self.overview.invalidate()
        self._unsubscribe = doc.subscribe(self._on_event)
        self.refresh_facts()
        self.update_scene_rect()

    def update_scene_rect(self) -> None:
        """The cards' extent plus a wide margin to pan into (wires run between cards).

        Measured from the cards in Python: ``itemsBoundingRect`` would ask every
        item, thousands of Python ``boundingRect`` calls on a big graph.
        """
        if self._nodes:
            xs: list[float] = []
            ys: list[float] = []
            for card in self._nodes.values():
                pos = card.pos()
                xs += (pos.x(), pos.x() + card.width)
                ys += (pos.y(), pos.y() + card.height)
            bounds = QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
        else:
            bounds = QRectF(0, 0, 800, 600)
        self.setSceneRect(bounds.adjusted(-SCENE_MARGIN, -SCENE_MARGIN, SCENE_MARGIN, SCENE_MARGIN))

    def _add_node(self, node_id: str, step: int | None = None) -> NodeItem:
        node = self.document.node(node_id)
        item = NodeItem(node, self)
        item.step = self.document.step_of(node_id) if step is None else step
        if self._overview_on:
            item.set_overview(True)
        self._nodes[node_id] = item
        self.addItem(item)
        return item

    def _add_edge(self, edge: Edge) -> None:
        item = EdgeItem(edge, self)
        item.setVisible(not self._overview_on)
        self._edges[edge] = item
        self._out_wires = None
        self._edges_by_node.setdefault(edge.src, set()).add(edge)
        self._edges_by_node.setdefault(edge.dst, set()).add(edge)
        self._connected.setdefault(edge.src, set()).add((edge.src_port, False))
        self._connected.setdefault(edge.dst, set()).add((edge.dst_port, True))
        key = (edge.dst, edge.dst_port)
        self._input_counts[key] = self._input_counts.get(key, 0) + 1
        self.addItem(item)
        self._overview_changed()

    def _remove_edge(self, edge: Edge) -> None:
        item = self._edges.pop(edge, None)
        if item is None:
            return
        self._out_wires = None
        self._put_off.discard(item)
        self.removeItem(item)
        for end in (edge.src, edge.dst):
            self._edges_by_node.get(end, set()).discard(edge)
        key = (edge.dst, edge.dst_port)
        self._input_counts[key] = max(0, self._input_counts.get(key, 0) - 1)
        self._overview_changed()
        self._recount_connected(edge.src)
        self._recount_connected(edge.dst)

    def _recount_connected(self, node_id: str) -> None:
        ports: set[tuple[str, bool]] = set()
        for e in self._edges_by_node.get(node_id, ()):
            if e.src == node_id:
                ports.add((e.src_port, False))
            if e.dst == node_id:
                ports.add((e.dst_port, True))
        self._connected[node_id] = ports
        item = self._nodes.get(node_id)
        if item is not None:
            item.refresh()

    def _on_event(self, event: DocumentEvent) -> None:
        doc = self.document
        if isinstance(event, NodeAdded):
            self._add_node(event.node_id)
            self._refresh_steps()
            self._refresh_node_facts(event.node_id)
        elif isinstance(event, NodeRemoved):
            item = self._nodes.pop(event.node_id, None)
            for edge in list(self._edges_by_node.pop(event.node_id, ())):
                self._remove_edge(edge)
            self._connected.pop(event.node_id, None)
            if item is not None:
                self._put_off.discard(item)
                self.removeItem(item)
            self._refresh_steps()
        elif isinstance(event, EdgeAdded):
            self._add_edge(event.edge)
            for end in (event.edge.src, event.edge.dst):
                item = self._nodes.get(end)
                if item is not None:
                    item.refresh()
        elif isinstance(event, EdgeRemoved):
            self._remove_edge(event.edge)
        elif isinstance(event, NodeMoved):
            item = self._nodes.get(event.node_id)
            if item is not None and (item.x(), item.y()) != (event.x, event.y):
                item.setPos(event.x, event.y)
                self.node_item_moved(item)
        elif isinstance(event, ParamChanged):
            item = self._nodes.get(event.node_id)
            if item is not None:
                item.set_node(doc.node(event.node_id))
            # a card the edit widened re-measured the overview (``node_item_moved``);
            # a new value alone draws the same there, so the graph is not measured again
            return
        elif isinstance(event, LabelChanged):
            item = self._nodes.get(event.node_id)
            if item is not None:
                item.set_node(doc.node(event.node_id))
        elif isinstance(event, OrderChanged):
            self._refresh_steps()
        elif isinstance(event, DocumentReset):
            self.rebuild()
            return
        self.groups.on_event(event)
        self._overview_changed()

    def _refresh_steps(self) -> None:
        for step, node_id in enumerate(self.document.order):
            item = self._nodes.get(node_id)
            if item is not None:
                item.set_step(step)

    def node_item_moved(self, item: NodeItem) -> None:
        """A card moved (dragged, or set from the document): re-route its wires."""
        self.groups.node_moved(item.node_id)
        for edge in self._edges_by_node.get(item.node_id, ()):
            edge_item = self._edges.get(edge)
            if edge_item is not None:
                edge_item.update_path()
        self._overview_changed()

    def detach(self) -> None:
        """Stop following the document (the window is closing)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
