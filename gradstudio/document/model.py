"""The graph document: nodes, typed connections and the explicit execution order.

The document owns the truth (positions included) and announces every change as a
plain event.  A PyTorch program is a sequence, so every node has a step; the order
must agree with the data flow, and every mutator refuses an edit that would break
that (or make a cycle, or join ports of different types) with a message naming the
node.  Edits come from ``gradstudio.document.commands``; views only subscribe.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from gradstudio.document.model_edits import DocumentEdits
from gradstudio.document.values import EditError, Node, default_label


class Document(DocumentEdits):
    """A GradStudio graph: the single source of truth that views draw.

    Its parts, one module each, build on one another: the state and its events
    (``model_state``), reading (``model_reading``), checks (``model_checks``), groups
    (``model_groups``) and edits (``model_edits``); here, making new nodes with fresh
    ids and labels."""

    def unique_label(self, base: str, also_taken: Iterable[str] = ()) -> str:
        """``base`` if no node has it, else ``base_2``, ``base_3``, ..."""
        extra = set(also_taken)

        def taken(label: str) -> bool:
            return label in self._labels or label in extra

        if not taken(base):
            return base
        stem = re.sub(r"_\d+$", "", base) or base
        k = 2
        while taken(f"{stem}_{k}"):
            k += 1
        return f"{stem}_{k}"

    def new_id(self) -> str:
        while True:
            self._counter += 1
            candidate = f"n{self._counter}"
            if candidate not in self._nodes:
                return candidate

    def new_node(
        self,
        type_id: str,
        position: tuple[float, float] = (0.0, 0.0),
        params: Mapping[str, Any] | None = None,
        label: str | None = None,
        node_id: str | None = None,
    ) -> Node:
        """A node of ``type_id`` with default params (not yet added to the document)."""
        try:
            node_type = self.catalogue.get(type_id)
        except KeyError:
            raise EditError(f"unknown node type {type_id!r}") from None
        values = node_type.defaults()
        for name, value in (params or {}).items():
            values[name] = value
        base = label or default_label(node_type)
        node = Node(
            id=node_id or self.new_id(),
            type_id=node_type.id,
            label=self.unique_label(base),
            params={},
            x=float(position[0]),
            y=float(position[1]),
            node_type=node_type,
        )
        checked = self._checked_params(node, values)
        return replace(node, params=checked, node_type=node_type.for_params(checked))
