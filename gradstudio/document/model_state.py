"""What a document holds, and the events it announces: the state every part of
``Document`` reads and changes (``model_reading``, ``model_checks``, ``model_groups``,
``model_edits``), typed once here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import networkx as nx

from gradstudio.catalogue import Catalogue, catalogue
from gradstudio.document.events import DocumentEvent, Observable, Unsubscribe
from gradstudio.document.groups import Group
from gradstudio.document.values import SETTINGS_DEFAULTS, Edge, Node


class DocumentState:
    """The document's state and its event stream (the base of ``Document``'s parts)."""

    def __init__(self, types: Catalogue | None = None, *, trusted: bool = False) -> None:
        """An empty document; its custom Function code may run only when ``trusted``.

        Untrusted is the default so that no path that builds a document from
        someone else's bytes (a file, the clipboard, a snippet) can run code by
        forgetting a step; the studio passes ``trusted=True`` only for the empty
        document the user creates and fills in themselves.
        """
        self.catalogue = types or catalogue()
        self._graph = nx.MultiDiGraph()
        self._nodes: dict[str, Node] = {}
        #: edges into each input port, by slot: connect checks one port in constant time
        self._inputs: dict[tuple[str, str], dict[int, Edge]] = {}
        self._code_nodes = 0
        self._labels: dict[str, str] = {}  # label -> node id (labels are unique)
        self._order: list[str] = []
        self._step: dict[str, int] = {}
        self._settings: dict[str, Any] = dict(SETTINGS_DEFAULTS)
        self._meta: dict[str, str] = {"title": "", "description": ""}
        self._trusted = trusted
        self._events: Observable[DocumentEvent] = Observable()
        self._counter = 0
        self._groups: dict[str, Group] = {}
        self._group_of: dict[str, str] = {}  # node id -> id of the group it is directly in
        self._group_counter = 0
        #: Bumped by every change that can alter evaluation results.
        self.revision = 0
        #: sha256 of the file this document was loaded from (trust is keyed on it).
        self.source_hash: str | None = None

    def subscribe(self, callback: Callable[[DocumentEvent], None]) -> Unsubscribe:
        return self._events.subscribe(callback)

    def _emit(self, event: DocumentEvent) -> None:
        if event.affects_evaluation:
            self.revision += 1
        self._events.emit(event)

    def _name(self, node_id: str) -> str:
        node = self._nodes.get(node_id)
        if node is None:
            return f"node {node_id!r}"
        return f"node '{node.label}'"

    def _reindex(self) -> None:
        self._step = {n: i for i, n in enumerate(self._order)}
