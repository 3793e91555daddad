"""Auto-layout that knows how tall each card is: columns by data flow and time, rows by barycentre.

``gradstudio.layout.auto_layout`` uses a fixed row height, but cards grow with their
ports, so the canvas lays out with real sizes: a node's column is the longest
data-flow path reaching it (networkx topological order), and within a column nodes
sit near the average height of their inputs, which keeps wires short and uncrossed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import networkx as nx

from gradstudio.catalogue import NodeKind

if TYPE_CHECKING:
    from gradstudio.document import Document

COLUMN_GAP = 90.0
ROW_GAP = 36.0


def columns_by_flow_and_time(doc: Document, graph: nx.MultiDiGraph) -> dict[str, int]:
    """Each node's column: after its inputs, and after the actions that ran before it.

    Data flow alone would draw ``w.grad`` (read after ``loss.backward()``) beside ``w``;
    a learner reads the canvas as a program, so an action (backward, zero grads,
    autograd.grad) sits right of everything before it, and what follows it sits
    further right.  Consecutive actions share one column.
    """
    column: dict[str, int] = {}
    barrier = 0  # first column free for nodes after the last group of actions
    pending = 0
    max_plain = -1
    group: int | None = None  # column of the current run of consecutive actions
    for node_id in nx.topological_sort(graph) if not doc.order else doc.order:
        base = max((column[p] + 1 for p in graph.predecessors(node_id)), default=0)
        if doc.node(node_id).type.kind is NodeKind.ACTION:
            if group is None:
                group = max(max_plain + 1, barrier)
            column[node_id] = max(base, group)
            pending = max(pending, column[node_id] + 1)
        else:
            if group is not None:
                barrier, group = pending, None
            column[node_id] = max(base, barrier)
            max_plain = max(max_plain, column[node_id])
    return column


def layered_positions(
    doc: Document,
    heights: Mapping[str, float],
    width: float,
    origin: tuple[float, float] = (0.0, 0.0),
) -> dict[str, tuple[float, float]]:
    """New ``(x, y)`` for every node, left to right by data flow."""
    graph = doc.graph
    step = {n: i for i, n in enumerate(doc.order)}
    column = columns_by_flow_and_time(doc, graph)
    columns: dict[int, list[str]] = {}
    for node_id in doc.order:
        columns.setdefault(column[node_id], []).append(node_id)
    centre: dict[str, float] = {}
    positions: dict[str, tuple[float, float]] = {}
    x0, y0 = origin
    for col in sorted(columns):
        ids = columns[col]
        bary: dict[str, float] = {}
        for n in ids:
            preds = [centre[p] for p in graph.predecessors(n) if p in centre]
            bary[n] = sum(preds) / len(preds) if preds else float("inf")
        if col > 0:
            ids.sort(key=lambda n: (bary[n], step[n]))
        total = sum(heights.get(n, 100.0) for n in ids) + ROW_GAP * (len(ids) - 1)
        anchors = [b for b in bary.values() if b != float("inf")]
        top = (sum(anchors) / len(anchors) - total / 2) if anchors else y0
        top = max(top, y0) if col > 0 else y0
        y = top
        x = x0 + col * (width + COLUMN_GAP)
        for n in ids:
            h = heights.get(n, 100.0)
            positions[n] = (round(x, 1), round(y, 1))
            centre[n] = y + h / 2
            y += h + ROW_GAP
    return positions


def card_heights(doc: Document) -> dict[str, float]:
    from ui.canvas.style import card_height

    return {n.id: card_height(n.type) for n in doc.nodes()}


def overlaps(doc: Document, width: float, gap: float = 30.0) -> bool:
    """Whether any two cards overlap or nearly touch (a file laid out for smaller cards)."""
    heights = card_heights(doc)
    boxes = sorted((n.x, n.y, n.x + width, n.y + heights[n.id]) for n in doc.nodes())
    for i, (_x0, y0, x1, y1) in enumerate(boxes):
        for ax0, ay0, _ax1, ay1 in boxes[i + 1 :]:
            if ax0 >= x1 + gap:
                break
            if ay0 < y1 + gap and y0 < ay1 + gap and ax0 < x1 + gap:
                return True
    return False


def tidy(doc: Document, width: float) -> bool:
    """Lay out a freshly opened document whose cards overlap (not an undoable edit).

    Files written by the importer or by other tools place nodes on a fixed grid that
    is tighter than the studio's cards; the layout is fixed before the user sees it.
    """
    if len(doc) < 2 or not overlaps(doc, width):
        return False
    for node_id, (x, y) in layered_positions(doc, card_heights(doc), width).items():
        doc.move_node(node_id, x, y)
    return True
