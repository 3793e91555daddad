"""Editing a document: add, remove, connect, move and change nodes, reorder steps,
change settings, or take over another document; each checked first
(``model_checks``), then applied and announced as one event.

A part of ``Document``; edits come from ``gradstudio.document.commands``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from gradstudio.document.events import (
    DocumentReset,
    EdgeAdded,
    EdgeRemoved,
    LabelChanged,
    MetaChanged,
    NodeAdded,
    NodeMoved,
    NodeRemoved,
    OrderChanged,
    ParamChanged,
    SettingChanged,
    TrustChanged,
)
from gradstudio.document.model_checks import DocumentChecks
from gradstudio.document.model_groups import DocumentGroups
from gradstudio.document.model_state import DocumentState
from gradstudio.document.values import NODE_ID, Edge, EditError, Node, check_setting, holds_code


class DocumentEdits(DocumentChecks, DocumentGroups):
    """The document's mutators (a part of ``Document``): checks, then change, then event."""

    def add_node(self, node: Node, step: int | None = None) -> None:
        if node.id in self._nodes:
            raise EditError(f"a node with id {node.id!r} already exists", node.id)
        if not NODE_ID.match(node.id):
            raise EditError(f"{node.id!r} is not a valid node id", node.id)
        try:
            node_type = self.catalogue.get(node.type_id)
        except KeyError:
            raise EditError(
                f"node {node.id!r} has unknown type {node.type_id!r}", node.id
            ) from None
        self._check_label(node.id, node.label)
        self._check_position(node.id, node.x, node.y)
        params = self._checked_params(node, node.params)
        node = replace(
            node, type_id=node_type.id, node_type=node_type.for_params(params), params=params
        )
        index = len(self._order) if step is None else step
        if not 0 <= index <= len(self._order):
            raise EditError(f"step {step} is outside 0..{len(self._order)}", node.id)
        self._nodes[node.id] = node
        self._labels[node.label] = node.id
        self._code_nodes += holds_code(node)
        self._graph.add_node(node.id)
        self._order.insert(index, node.id)
        if index == len(self._order) - 1:
            self._step[node.id] = index
        else:
            self._reindex()
        self._emit(NodeAdded(node.id))

    def remove_node(self, node_id: str) -> None:
        self.node(node_id)
        for edge in self.edges_of(node_id):
            self.disconnect(edge)
        del self._labels[self._nodes[node_id].label]
        self._code_nodes -= holds_code(self._nodes[node_id])
        del self._nodes[node_id]
        self._graph.remove_node(node_id)
        self._order.remove(node_id)
        self._reindex()
        self._emit(NodeRemoved(node_id))
        self._leave_group(node_id)

    def connect(
        self, src: str, src_port: str, dst: str, dst_port: str, slot: int | None = None
    ) -> Edge:
        if slot is None:
            slot = max(self._inputs.get((dst, dst_port), ()), default=-1) + 1
        edge = Edge(src, src_port, dst, dst_port, slot)
        self._check_edge(edge, check_order=True)
        self._graph.add_edge(src, dst, key=edge)
        self._inputs.setdefault((dst, dst_port), {})[slot] = edge
        self._emit(EdgeAdded(edge))
        return edge

    def disconnect(self, edge: Edge) -> None:
        if not self._graph.has_edge(edge.src, edge.dst, key=edge):
            raise EditError("there is no such connection", edge.dst)
        self._graph.remove_edge(edge.src, edge.dst, key=edge)
        slots = self._inputs[(edge.dst, edge.dst_port)]
        del slots[edge.slot]
        if not slots:
            del self._inputs[(edge.dst, edge.dst_port)]
        self._emit(EdgeRemoved(edge))

    def move_node(self, node_id: str, x: float, y: float) -> None:
        node = self.node(node_id)
        self._check_position(node_id, x, y)
        self._nodes[node_id] = replace(node, x=float(x), y=float(y))
        self._emit(NodeMoved(node_id, float(x), float(y)))

    def set_param(self, node_id: str, name: str, value: Any) -> None:
        node = self.node(node_id)
        if not node.type.has_param(name):
            raise EditError(f"{self._name(node_id)} has no parameter {name!r}", node_id)
        old = node.params[name]
        values = dict(node.params)
        values[name] = value
        checked = self._checked_params(node, values)
        node_type = self.catalogue.get(node.type_id).for_params(checked)
        if node_type.inputs != node.type.inputs:
            ports = {p.name for p in node_type.inputs}
            for edge in self.edges_of(node_id):
                if edge.dst == node_id and edge.dst_port not in ports:
                    raise EditError(
                        f"{self._name(node_id)}: input {edge.dst_port!r} is connected; "
                        "disconnect it before removing its argument",
                        node_id,
                    )
        if node_type.outputs != node.type.outputs:
            outputs = {p.name for p in node_type.outputs}
            for edge in self.edges_of(node_id):
                if edge.src == node_id and edge.src_port not in outputs:
                    raise EditError(
                        f"{self._name(node_id)}: output {edge.src_port!r} is connected; "
                        "disconnect it before removing that output",
                        node_id,
                    )
        self._nodes[node_id] = replace(node, params=checked, node_type=node_type)
        self._emit(ParamChanged(node_id, name, old, checked[name]))

    def set_label(self, node_id: str, label: str) -> None:
        node = self.node(node_id)
        self._check_label(node_id, label)
        del self._labels[node.label]
        self._labels[label] = node_id
        self._nodes[node_id] = replace(node, label=label)
        self._emit(LabelChanged(node_id, node.label, label))

    def set_order(self, order: Iterable[str]) -> None:
        new = list(order)
        if sorted(new) != sorted(self._order) or len(set(new)) != len(new):
            raise EditError("the new order must list every node exactly once")
        steps = {n: i for i, n in enumerate(new)}
        for edge in self.edges():
            if steps[edge.src] >= steps[edge.dst]:
                raise EditError(self._order_message(edge, steps), edge.dst)
        old = tuple(self._order)
        self._order = new
        self._reindex()
        if old != tuple(new):
            self._emit(OrderChanged(old, tuple(new)))

    def move_step(self, node_id: str, index: int) -> None:
        allowed = self.allowed_steps(node_id)
        if index not in allowed:
            raise EditError(
                f"{self._name(node_id)} can only run between steps "
                f"{allowed.start + 1} and {allowed.stop} (after its inputs, before its users)",
                node_id,
            )
        order = [n for n in self._order if n != node_id]
        order.insert(index, node_id)
        self.set_order(order)

    def set_setting(self, name: str, value: Any) -> None:
        value = check_setting(name, value)
        old = self._settings[name]
        if old != value:
            self._settings[name] = value
            self._emit(SettingChanged(name, old, value))

    def set_meta(self, name: str, value: str) -> None:
        if name not in self._meta or not isinstance(value, str):
            raise EditError(f"unknown document field {name!r} (or not a text)")
        self._meta[name] = value
        self._emit(MetaChanged(name))

    def set_trusted(self, trusted: bool) -> None:
        if trusted != self._trusted:
            self._trusted = trusted
            self._emit(TrustChanged(trusted))

    def reset(self, other: DocumentState) -> None:
        """Take over everything ``other`` holds (used to open a file into a window)."""
        self.catalogue = other.catalogue
        self._graph = other._graph.copy()
        self._nodes = dict(other._nodes)
        self._inputs = {port: dict(slots) for port, slots in other._inputs.items()}
        self._code_nodes = other._code_nodes
        self._labels = dict(other._labels)
        self._order = list(other._order)
        self._settings = dict(other._settings)
        self._meta = dict(other._meta)
        self._trusted = other._trusted
        self._counter = other._counter
        self._groups = dict(other._groups)
        self._group_of = dict(other._group_of)
        self._group_counter = other._group_counter
        self.source_hash = other.source_hash
        self._reindex()
        self._emit(DocumentReset())
