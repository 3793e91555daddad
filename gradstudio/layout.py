"""Automatic layout: columns by data-flow depth, rows by step order (positions only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import networkx as nx

if TYPE_CHECKING:
    from gradstudio.document import Document

COLUMN_WIDTH = 220.0
ROW_HEIGHT = 110.0


def auto_layout(doc: Document) -> dict[str, tuple[float, float]]:
    """New positions: a node's column is the longest data-flow path reaching it."""
    graph = doc.graph
    column: dict[str, int] = {}
    for node_id in nx.topological_sort(graph):
        column[node_id] = max((column[p] + 1 for p in graph.predecessors(node_id)), default=0)
    rows: dict[int, int] = {}
    positions: dict[str, tuple[float, float]] = {}
    for node_id in doc.order:
        col = column[node_id]
        row = rows.get(col, 0)
        rows[col] = row + 1
        positions[node_id] = (col * COLUMN_WIDTH, row * ROW_HEIGHT)
    return positions
