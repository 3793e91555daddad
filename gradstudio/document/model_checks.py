"""The document's checks: every edit is refused with a message naming the node when
it would join ports of different types, make a cycle, run a node before its inputs,
or give a bad label, position or parameter; ``validate`` lists what a loaded
document breaks.

A part of ``Document``; the edits (``model_edits``) call these before changing anything.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import networkx as nx

from gradstudio.catalogue import PortSpec, PortType
from gradstudio.document.model_reading import DocumentReading
from gradstudio.document.values import MAX_LABEL, Edge, EditError, Node, Problem


class DocumentChecks(DocumentReading):
    """The document's checks of edits and of its whole structure (a part of ``Document``)."""

    def can_connect(self, src: str, src_port: str, dst: str, dst_port: str) -> str | None:
        """Why this connection is impossible, or None.

        An occupied single input and a step order that needs repair are not reasons:
        ``ConnectCommand`` replaces the old edge and repairs the order.
        """
        try:
            self._check_edge(Edge(src, src_port, dst, dst_port), check_order=False)
        except EditError as exc:
            return exc.message
        return None

    def validate(self) -> list[Problem]:
        """Structural problems: cycles, port types, order against data flow, bad params."""
        problems: list[Problem] = []
        for edge in self.edges():
            try:
                self._check_ports(edge)
            except EditError as exc:
                problems.append(Problem(exc.node_id, exc.message))
            if self._step[edge.src] >= self._step[edge.dst]:
                problems.append(Problem(edge.dst, self._order_message(edge)))
        if not nx.is_directed_acyclic_graph(self._graph):
            cycle = nx.find_cycle(self._graph)
            problems.append(Problem(cycle[0][0], f"{self._name(cycle[0][0])} is part of a cycle"))
        for node in self._nodes.values():
            for spec in node.type.params:
                try:
                    spec.check(node.params.get(spec.name))
                except ValueError as exc:
                    problems.append(Problem(node.id, f"{self._name(node.id)}: {exc}"))
        return problems

    def order_with_edge(self, src: str, dst: str) -> list[str]:
        """The current order, changed as little as possible so ``src`` runs before ``dst``.

        A stable topological sort of the data flow plus the new edge: every node keeps
        its place unless the new edge forces it later.
        """
        graph = nx.DiGraph(self._graph)
        graph.add_edge(src, dst)
        indegree = {n: graph.in_degree(n) for n in graph}
        ready = [(self._step[n], n) for n, d in indegree.items() if d == 0]
        heapq.heapify(ready)
        order: list[str] = []
        while ready:
            _, n = heapq.heappop(ready)
            order.append(n)
            for succ in graph.successors(n):
                indegree[succ] -= 1
                if indegree[succ] == 0:
                    heapq.heappush(ready, (self._step[succ], succ))
        if len(order) != len(self._order):
            raise EditError(f"connecting would make a cycle through {self._name(dst)}", dst)
        return order

    def _order_message(self, edge: Edge, steps: Mapping[str, int] | None = None) -> str:
        steps = steps or self._step
        return (
            f"{self._name(edge.dst)} (step {steps[edge.dst] + 1}) uses {self._name(edge.src)} "
            f"(step {steps[edge.src] + 1}) before it has run: the order contradicts the data flow"
        )

    def _check_label(self, node_id: str, label: str) -> None:
        if not isinstance(label, str) or not label.strip() or len(label) > MAX_LABEL:
            raise EditError(
                f"a label is a non-empty text of at most {MAX_LABEL} characters", node_id
            )
        if self._labels.get(label, node_id) != node_id:
            raise EditError(f"another node is already labelled {label!r}", node_id)

    def _check_position(self, node_id: str, x: float, y: float) -> None:
        for v in (x, y):
            if not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v):
                raise EditError(f"position {x!r}, {y!r} is not a pair of finite numbers", node_id)

    def _checked_params(self, node: Node, values: Mapping[str, Any]) -> Mapping[str, Any]:
        node_type = self.catalogue.get(node.type_id)
        known = {p.name for p in node_type.params}
        unknown = set(values) - known
        if unknown:
            raise EditError(
                f"node '{node.label}' ({node_type.id}) has no parameter {sorted(unknown)[0]!r}",
                node.id,
            )
        checked: dict[str, Any] = {}
        for spec in node_type.params:
            try:
                checked[spec.name] = spec.check(values.get(spec.name, spec.default))
            except ValueError as exc:
                raise EditError(
                    f"node '{node.label}', parameter {spec.name!r}: {exc}", node.id
                ) from None
        return MappingProxyType(checked)

    def _check_ports(self, edge: Edge) -> PortSpec:
        """Check both ends exist and their ports match; returns the input port."""
        for end in (edge.src, edge.dst):
            if end not in self._nodes:
                raise EditError(f"there is no node {end!r}", end)
        src_type = self._nodes[edge.src].type
        dst_type = self._nodes[edge.dst].type
        try:
            out = src_type.output(edge.src_port)
        except KeyError:
            raise EditError(
                f"{self._name(edge.src)} has no output {edge.src_port!r}", edge.src
            ) from None
        try:
            inp = dst_type.input(edge.dst_port)
        except KeyError:
            raise EditError(
                f"{self._name(edge.dst)} has no input {edge.dst_port!r}", edge.dst
            ) from None
        if out.type != inp.type:
            what = {PortType.TENSOR: "a tensor", PortType.TENSORS: "a list of tensors"}
            raise EditError(
                f"{self._name(edge.dst)}: input {edge.dst_port!r} takes {what[inp.type]}, "
                f"but {self._name(edge.src)}.{edge.src_port} gives {what[out.type]}",
                edge.dst,
            )
        if not isinstance(edge.slot, int) or isinstance(edge.slot, bool) or edge.slot < 0:
            raise EditError(f"slot {edge.slot!r} is not a non-negative integer", edge.dst)
        return inp

    def _check_edge(self, edge: Edge, *, check_order: bool) -> None:
        """Every check in constant time but the cycle search, which only an edge
        running backwards in the order needs: a file of 100,000 edges loads linearly."""
        inp = self._check_ports(edge)
        if edge.src == edge.dst:
            raise EditError(f"{self._name(edge.dst)} cannot use its own output", edge.dst)
        forward = self._step[edge.src] < self._step[edge.dst]
        # every edge runs forward in the order, so a forward edge cannot close a cycle
        if not forward and nx.has_path(self._graph, edge.dst, edge.src):
            raise EditError(
                f"connecting would make a cycle through {self._name(edge.dst)}", edge.dst
            )
        if not check_order:
            return
        existing = self._inputs.get((edge.dst, edge.dst_port), {})
        if not inp.variadic and existing:
            raise EditError(
                f"{self._name(edge.dst)}: input {edge.dst_port!r} is already connected", edge.dst
            )
        if edge.slot in existing:
            raise EditError(
                f"{self._name(edge.dst)}: slot {edge.slot} of {edge.dst_port!r} is taken", edge.dst
            )
        if self._step[edge.src] >= self._step[edge.dst]:
            raise EditError(self._order_message(edge), edge.dst)
