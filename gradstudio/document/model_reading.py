"""Reading a document: its nodes, edges, step order, settings and what they imply
(the steps a node may move to), for views, commands, files and the evaluator.

A part of ``Document``; nothing here changes the document.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import networkx as nx

from gradstudio.document.model_state import DocumentState
from gradstudio.document.values import Edge, EditError, Node, holds_code


class DocumentReading(DocumentState):
    """The document's queries (a part of ``Document``)."""

    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def node(self, node_id: str) -> Node:
        try:
            return self._nodes[node_id]
        except KeyError:
            raise EditError(f"there is no node {node_id!r}", node_id) from None

    def nodes(self) -> list[Node]:
        """All nodes in step order."""
        return [self._nodes[i] for i in self._order]

    def node_by_label(self, label: str) -> Node | None:
        node_id = self._labels.get(label)
        return None if node_id is None else self._nodes[node_id]

    def edges(self) -> list[Edge]:
        return [key for _, _, key in self._graph.edges(keys=True)]

    def edges_of(self, node_id: str) -> list[Edge]:
        inbound = [k for _, _, k in self._graph.in_edges(node_id, keys=True)]
        outbound = [k for _, _, k in self._graph.out_edges(node_id, keys=True)]
        return inbound + outbound

    def inputs_of(self, node_id: str, port: str) -> list[Edge]:
        """Edges into one input port, in slot order."""
        slots = self._inputs.get((node_id, port), {})
        return [slots[s] for s in sorted(slots)]

    def predecessors(self, node_id: str) -> set[str]:
        return set(self._graph.predecessors(node_id))

    def successors(self, node_id: str) -> set[str]:
        return set(self._graph.successors(node_id))

    @property
    def graph(self) -> nx.MultiDiGraph:
        """A read-only view of the data-flow graph (nodes are ids, edge keys are Edges)."""
        return self._graph.copy(as_view=True)

    @property
    def order(self) -> tuple[str, ...]:
        return tuple(self._order)

    def step_of(self, node_id: str) -> int:
        self.node(node_id)
        return self._step[node_id]

    @property
    def settings(self) -> Mapping[str, Any]:
        return MappingProxyType(self._settings)

    @property
    def meta(self) -> Mapping[str, str]:
        return MappingProxyType(self._meta)

    @property
    def trusted(self) -> bool:
        return self._trusted

    def has_code(self) -> bool:
        """Whether any node holds Python code (custom Function nodes)."""
        return self._code_nodes > 0

    def code_sources(self) -> set[str]:
        """The Python source of every custom Function node."""
        return {n.params["source"] for n in self._nodes.values() if holds_code(n)}

    def tensor_nodes(self) -> list[Node]:
        return [n for n in self.nodes() if n.type.produces_tensors]

    def allowed_steps(self, node_id: str) -> range:
        """The step indices ``move_step`` accepts for this node (between its inputs and users)."""
        step = self.step_of(node_id)

        def position(other: str) -> int:
            s = self._step[other]
            return s - 1 if s > step else s

        lo = max((position(p) + 1 for p in self._graph.predecessors(node_id)), default=0)
        hi = min(
            (position(s) for s in self._graph.successors(node_id)),
            default=len(self._order) - 1,
        )
        return range(lo, hi + 1)
