"""Automatic layout: columns by data flow and time, rows ordered against wire crossings
(positions only).

A node's column is the longest data-flow path reaching it (networkx topological order),
pushed right of any action that ran before it, so the canvas reads like the program it
is.  Within a column the order is the one with few crossing wires (``layered``, the
backward-graph view's ordering step too); the column sits near the average height of
its inputs, and its cards are stacked by their real sizes so cards of any height never
overlap.

The core draws nothing, so it does not know how big a card is: a caller that does (the
studio's canvas) passes ``sizes``; everyone else (the importer, hence every example file)
gets ``default_card_size``, an over-estimate of the studio's cards, so a laid-out file
opens without overlapping cards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import networkx as nx

from gradstudio.catalogue import NodeKind
from gradstudio.document.layered import make_proper, order_layers, place

if TYPE_CHECKING:
    from gradstudio.catalogue import NodeType
    from gradstudio.document.model import Document

Size = tuple[float, float]

COLUMN_GAP = 90.0
ROW_GAP = 36.0
WIRE_ROOM = 8.0
WIRE_GAP = 8.0
"""Room a wire that skips a column keeps between that column's cards, and around it."""

DEFAULT_CARD_WIDTH = 196.0
"""The studio's card width (cards do not grow sideways, so this is exact)."""
DEFAULT_CARD_BASE = 90.0
"""Height of a card's header and facts: a little more than the studio's (at most 82)."""
DEFAULT_CARD_ROW = 20.0
"""Height added per port row (a card has one row per input or output, side by side)."""


def default_card_size(node_type: NodeType) -> Size:
    """The space a node of this type gets when the caller knows no real card sizes.

    Cards grow with their ports, so one height for all would either overlap the tall
    cards or spread the short ones far apart (a one-row card is about 100 px tall, a
    three-row one about 140).  Counting the catalogue's port rows keeps imported graphs
    compact; the per-row height and the base are rounded up from the studio's cards, so
    the estimate is never smaller than the card it stands for (a UI test holds the two
    to that) and a file laid out here needs no tidying when it is opened.
    """
    rows = max(len(node_type.inputs), len(node_type.outputs), 1)
    return (DEFAULT_CARD_WIDTH, DEFAULT_CARD_BASE + DEFAULT_CARD_ROW * rows)


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
    sizes: Mapping[str, Size] | None = None,
    origin: tuple[float, float] = (0.0, 0.0),
) -> dict[str, tuple[float, float]]:
    """New top-left ``(x, y)`` for every node, left to right by data flow.

    ``sizes`` maps node ids to ``(width, height)``; a node missing from it gets
    ``default_card_size``.  A column is as wide as its widest card (an empty column
    as wide as a default card), so cards of a column never reach into the next one.
    """
    sizes = sizes or {}
    size = {n.id: sizes.get(n.id) or default_card_size(n.type) for n in doc.nodes()}
    graph = doc.graph
    step = {n: i for i, n in enumerate(doc.order)}  # the program's order: where ordering starts
    column = columns_by_flow_and_time(doc, graph)
    columns: dict[int, list[str]] = {}
    for node_id in doc.order:
        columns.setdefault(column[node_id], []).append(node_id)
    lefts: dict[int, float] = {}
    x = origin[0]
    for col in range(max(columns, default=-1) + 1):
        lefts[col] = x
        widths = [size[n][0] for n in columns.get(col, [])] or [DEFAULT_CARD_WIDTH]
        x += max(widths) + COLUMN_GAP
    layers = [columns.get(col, []) for col in range(max(columns, default=-1) + 1)]
    wires = [(u, v) for u, v, *_ in graph.edges]
    proper = order_layers(make_proper(layers, wires))
    centres = place(
        proper, {n: size[n][1] for n in step}, ROW_GAP, dummy_width=WIRE_ROOM, dummy_gap=WIRE_GAP
    )
    tops = {n: centres[n] - size[n][1] / 2 for n in step}
    shift = origin[1] - min(tops.values(), default=0.0)
    return {n: (round(lefts[column[n]], 1), round(tops[n] + shift, 1)) for n in doc.order}


def auto_layout(
    doc: Document, sizes: Mapping[str, Size] | None = None
) -> dict[str, tuple[float, float]]:
    """New positions for every node: ``layered_positions`` from the origin.

    ``sizes`` are the real ``(width, height)`` of the cards, by node id, when the caller
    draws them; without it every node gets ``default_card_size`` (see the module's
    docstring for why the core estimates instead of knowing).
    """
    return layered_positions(doc, sizes)


FREE_MARGIN = 16.0  # space kept between a placed node and its neighbours
FREE_STEP = 24.0  # candidate positions are this far apart
FREE_RINGS = 60  # how far out the search goes before giving up (about 1,400 px)


def free_offset(
    doc: Document,
    boxes: list[tuple[float, float, float, float]],
    ignore: frozenset[str] = frozenset(),
) -> tuple[float, float]:
    """The smallest shift (nearest first, right and down preferred on ties) that puts
    every box ``(x, y, w, h)`` clear of the document's nodes, so a new node (or a pasted
    group) never lands on top of another; ``(0, 0)`` if the boxes are already clear."""
    taken = [(n.x, n.y, *default_card_size(n.type)) for n in doc.nodes() if n.id not in ignore]
    if not taken:
        return (0.0, 0.0)

    def clear(dx: float, dy: float) -> bool:
        m = FREE_MARGIN
        for x, y, w, h in boxes:
            x0, y0, x1, y1 = x + dx - m, y + dy - m, x + dx + w + m, y + dy + h + m
            for tx, ty, tw, th in taken:
                if x0 < tx + tw and tx < x1 and y0 < ty + th and ty < y1:
                    return False
        return True

    if clear(0.0, 0.0):
        return (0.0, 0.0)
    for ring in range(1, FREE_RINGS + 1):
        candidates = [
            (i * FREE_STEP, j * FREE_STEP)
            for i in range(-ring, ring + 1)
            for j in range(-ring, ring + 1)
            if max(abs(i), abs(j)) == ring
        ]
        candidates.sort(key=lambda d: (d[0] ** 2 + d[1] ** 2, -d[0], -d[1]))
        for dx, dy in candidates:
            if clear(dx, dy):
                return (dx, dy)
    return (0.0, 0.0)


def free_spot(doc: Document, node_type: NodeType, x: float, y: float) -> tuple[float, float]:
    """Where a new node of ``node_type`` wanted at ``(x, y)`` goes: there, or the nearest
    spot where it overlaps no other node."""
    w, h = default_card_size(node_type)
    dx, dy = free_offset(doc, [(x, y, w, h)])
    return (x + dx, y + dy)
