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

import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import networkx as nx

from gradstudio.catalogue import NodeKind
from gradstudio.document.layered import make_proper, order_layers, place

if TYPE_CHECKING:
    from gradstudio.catalogue import NodeType, PortSpec
    from gradstudio.document.groups import Group
    from gradstudio.document.model import Document
    from gradstudio.document.values import Node

Size = tuple[float, float]

COLUMN_GAP = 90.0
ROW_GAP = 36.0
WIRE_ROOM = 8.0
WIRE_GAP = 8.0
"""Room a wire that skips a column keeps between that column's cards, and around it."""

DEFAULT_CARD_WIDTH = 220.0
"""The narrowest card; a card with a long label, type title or port caption is wider."""
DEFAULT_CARD_BASE = 90.0
"""Height of a card's header and facts: a little more than the studio's (at most 82)."""
DEFAULT_CARD_ROW = 20.0
"""Height added per port row (a card has one row per input or output, side by side)."""
TITLE_CHAR = 9.5
"""Room per character of a card's label (the studio's bold title font averages 8.4 px)."""
SMALL_CHAR = 7.5
"""Room per character of the type title and port captions (the small font averages 6.5)."""
HEADER_FIXED = 62.0
"""A header's room besides its two texts: step disc, gaps and margins."""
PORT_FIXED = 52.0
"""A port row's room besides its captions: dots, margins and the gap between them."""
WIDTH_GRID = 4.0


def port_caption(
    spec: PortSpec, params: Mapping[str, Any], count: int | None = None, wired: bool = False
) -> str:
    """The text beside an input port: its name, the number of wires of a variadic port,
    and the number it is set to when it takes a scalar (``other = 1``) or, unwired, the
    value it passes (a custom Function's ``z = 4``)."""
    text = spec.name
    if spec.variadic:
        text = f"{text} ({count})" if count else f"{text} …"
    if spec.scalar_ok and params.get(spec.name) is not None:
        text = f"{text} = {params[spec.name]}"
    elif spec.preset is not None and not wired:
        text = f"{text} = {spec.preset}"
    return text


def card_width(node_type: NodeType, label: str, params: Mapping[str, Any] | None = None) -> float:
    """A card's width, from the characters it shows, so that no label, type title or
    port caption is cut: the studio draws its cards this wide (one formula for the core's
    layout and the canvas, so the two never disagree), with room per character rounded up
    from its fonts; the no-elided-text test holds the fonts to that."""
    params = params or {}
    header = HEADER_FIXED + TITLE_CHAR * len(label) + SMALL_CHAR * len(node_type.title)
    rows = max(len(node_type.inputs), len(node_type.outputs))
    widest = header
    for i in range(rows):
        left = port_caption(node_type.inputs[i], params, 99) if i < len(node_type.inputs) else ""
        right = node_type.outputs[i].name if i < len(node_type.outputs) else ""
        widest = max(widest, PORT_FIXED + SMALL_CHAR * (len(left) + len(right)))
    return max(DEFAULT_CARD_WIDTH, math.ceil(widest / WIDTH_GRID) * WIDTH_GRID)


GROUP_HEADER_FIXED = 50.0
"""A collapsed group card's header room besides its title: chevron, margins."""
FRAME_TITLE_FIXED = 60.0
"""A frame's title bar room besides its title and subtitle: chevron, gaps, margins."""
COUNT_CHARS = len(" · 99999 nodes")
"""Room a collapsed card's subtitle line keeps for its node count."""


def group_card_width(group: Group) -> float:
    """A collapsed group's card width, so that its title and its subtitle line are
    never cut: the studio draws the card this wide (one formula for the core's layout
    and the canvas, like ``card_width``)."""
    header = GROUP_HEADER_FIXED + TITLE_CHAR * len(group.title)
    line = 20.0 + SMALL_CHAR * (len(group.subtitle) + COUNT_CHARS)
    return max(DEFAULT_CARD_WIDTH, math.ceil(max(header, line) / WIDTH_GRID) * WIDTH_GRID)


def frame_title_width(group: Group) -> float:
    """The least width of an expanded group's frame: its title bar shows the title and
    the subtitle whole (the studio widens a frame around narrow members to this)."""
    widest = FRAME_TITLE_FIXED + TITLE_CHAR * len(group.title) + SMALL_CHAR * len(group.subtitle)
    return math.ceil(widest / WIDTH_GRID) * WIDTH_GRID


def default_card_size(
    node_type: NodeType, label: str | None = None, params: Mapping[str, Any] | None = None
) -> Size:
    """The space a node of this type gets when the caller knows no real card sizes.

    Cards grow with their ports, so one height for all would either overlap the tall
    cards or spread the short ones far apart (a one-row card is about 100 px tall, a
    three-row one about 140).  Counting the catalogue's port rows keeps imported graphs
    compact; the per-row height and the base are rounded up from the studio's cards, so
    the estimate is never smaller than the card it stands for (a UI test holds the two
    to that) and a file laid out here needs no tidying when it is opened.  The width is
    the studio's own (``card_width``); without a label, the type's title stands for it.
    """
    rows = max(len(node_type.inputs), len(node_type.outputs), 1)
    width = card_width(node_type, node_type.title if label is None else label, params)
    return (width, DEFAULT_CARD_BASE + DEFAULT_CARD_ROW * rows)


def node_card_size(node: Node) -> Size:
    """``default_card_size`` for a document node: its own label and parameters."""
    return default_card_size(node.type, node.label, node.params)


def columns_by_flow_and_time(doc: Document, graph: nx.MultiDiGraph) -> dict[str, int]:
    """Each node's column: after its inputs, and after the actions that ran before it.

    Data flow alone would draw ``w.grad`` (read after ``loss.backward()``) beside ``w``;
    a learner reads the canvas as a program, so an action (backward, zero grads,
    autograd.grad) sits right of everything before it, and what follows it sits
    further right.  Consecutive actions share one column.
    """
    order = list(nx.topological_sort(graph)) if not doc.order else list(doc.order)
    return _columns_in_time(
        order,
        graph.predecessors,
        lambda node_id: doc.node(node_id).type.kind is NodeKind.ACTION,
    )


def _columns_in_time(
    order: list[str],
    preds: Callable[[str], Iterable[str]],
    is_action: Callable[[str], bool],
) -> dict[str, int]:
    """The column rule of ``columns_by_flow_and_time`` over units in program order
    (nodes, or a group's blocks): after their inputs, consecutive actions in one column
    right of everything before them, what follows further right."""
    column: dict[str, int] = {}
    barrier = pending = 0  # barrier: first column free after the last run of actions
    max_plain = -1
    run: int | None = None  # column of the current run of consecutive actions
    for unit in order:
        base = max((column[p] + 1 for p in preds(unit) if p in column), default=0)
        if is_action(unit):
            if run is None:
                run = max(max_plain + 1, barrier)
            column[unit] = max(base, run)
            pending = max(pending, column[unit] + 1)
        else:
            if run is not None:
                barrier, run = pending, None
            column[unit] = max(base, barrier)
            max_plain = max(max_plain, column[unit])
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
    size = {n.id: sizes.get(n.id) or node_card_size(n) for n in doc.nodes()}
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
    """New positions for every node: ``layered_positions`` from the origin
    (``grouped_positions`` when the document has groups, so frames hold their nodes).

    ``sizes`` are the real ``(width, height)`` of the cards, by node id, when the caller
    draws them; without it every node gets ``default_card_size`` (see the module's
    docstring for why the core estimates instead of knowing).
    """
    if doc.groups:
        return grouped_positions(doc, sizes)
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
    taken = [(n.x, n.y, *node_card_size(n)) for n in doc.nodes() if n.id not in ignore]
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


GROUP_PAD = 24.0
"""Room the layout keeps around a group's members (over-estimates the studio's frame)."""
GROUP_TITLE = 36.0
"""Room the layout keeps above a group's members for the frame's title bar."""


def grouped_positions(
    doc: Document, sizes: Mapping[str, Size] | None = None
) -> dict[str, tuple[float, float]]:
    """``layered_positions`` for a document with groups: each group is laid out as one
    block (its own members and inner groups laid out inside it, recursively), so a
    group's frame holds its nodes and no others.  A collapsed group's block is as big
    as its card; its nodes are laid out from the card's corner, ready to expand.

    Blocks are ordered by their first step; a wire from a later block back into an
    earlier one (a loop's state flowing back into it) is left out of the columns.
    """
    sizes = sizes or {}
    size = {n.id: sizes.get(n.id) or node_card_size(n) for n in doc.nodes()}
    groups = doc.groups
    graph = doc.graph
    step = {n: i for i, n in enumerate(doc.order)}
    inner_groups: dict[str | None, list[str]] = {}
    for g in groups.values():
        inner_groups.setdefault(g.parent, []).append(g.id)
    loose: dict[str | None, list[str]] = {}
    for node_id in doc.order:
        holder = doc.group_of(node_id)
        loose.setdefault(holder.id if holder else None, []).append(node_id)

    def block(container: str | None) -> tuple[Size, dict[str, tuple[float, float]]]:
        """The size of ``container``'s content and each deep node's place in it."""
        units = [*loose.get(container, []), *inner_groups.get(container, [])]
        inside: dict[str, dict[str, tuple[float, float]]] = {}
        unit_size: dict[str, Size] = {}
        first: dict[str, int] = {}
        for unit in units:
            if unit in groups:
                (w, h), places = block(unit)
                inside[unit] = places
                if groups[unit].collapsed:
                    unit_size[unit] = _collapsed_size(doc, unit)
                else:
                    unit_size[unit] = (
                        max(w + 2 * GROUP_PAD, frame_title_width(groups[unit])),
                        h + 2 * GROUP_PAD + GROUP_TITLE,
                    )
                first[unit] = min((step[n] for n in places), default=len(step))
            else:
                unit_size[unit] = size[unit]
                first[unit] = step[unit]
        order = sorted(units, key=first.__getitem__)
        unit_of: dict[str, str] = {}
        for unit in units:
            for node_id in inside.get(unit, {unit: (0.0, 0.0)}):
                unit_of[node_id] = unit
        preds: dict[str, set[str]] = {u: set() for u in units}
        for node_id, v in unit_of.items():  # each node's wires once per nesting level
            for src in graph.predecessors(node_id):
                u = unit_of.get(src)
                if u is not None and u != v and first[u] < first[v]:
                    preds[v].add(u)
        # a loop's iterations run one after another: left to right, even where the state
        # they share reaches them by in-place updates rather than by wires
        loops = [u for u in order if u in groups and groups[u].kind == "loop"]
        for before, after in itertools.pairwise(loops):
            preds[after].add(before)
        places = _layered(doc, order, preds, unit_size, groups)
        out: dict[str, tuple[float, float]] = {}
        for unit, (x, y) in places.items():
            if unit not in groups:
                out[unit] = (x, y)
                continue
            if groups[unit].collapsed:
                dx, dy = x, y
            else:
                dx, dy = x + GROUP_PAD, y + GROUP_PAD + GROUP_TITLE
            for node_id, (nx_, ny) in inside[unit].items():
                out[node_id] = (nx_ + dx, ny + dy)
        right = max((places[u][0] + unit_size[u][0] for u in units), default=0.0)
        bottom = max((places[u][1] + unit_size[u][1] for u in units), default=0.0)
        return (right, bottom), out

    _, places = block(None)
    return {n: (round(x, 1), round(y, 1)) for n, (x, y) in places.items()}


def _collapsed_size(doc: Document, group_id: str) -> Size:
    """A collapsed group's card: a row per wire end crossing its border, as the studio draws it."""
    inside = doc.group_members(group_id)
    ins = {
        (e.dst, e.dst_port)
        for n in inside
        for e in doc.edges_of(n)
        if e.dst == n and e.src not in inside
    }
    outs = {
        (e.src, e.src_port)
        for n in inside
        for e in doc.edges_of(n)
        if e.src == n and e.dst not in inside
    }
    return (
        group_card_width(doc.groups[group_id]),
        DEFAULT_CARD_BASE + 18.0 + DEFAULT_CARD_ROW * max(len(ins), len(outs), 1),
    )


def _layered(
    doc: Document,
    order: list[str],
    preds: Mapping[str, set[str]],
    size: Mapping[str, Size],
    groups: Mapping[str, Group],
) -> dict[str, tuple[float, float]]:
    """``layered_positions``'s columns and barycentre rows over blocks and nodes."""
    column = _columns_in_time(
        order,
        preds.__getitem__,
        lambda unit: unit not in groups and doc.node(unit).type.kind is NodeKind.ACTION,
    )
    columns: dict[int, list[str]] = {}
    for unit in order:
        columns.setdefault(column[unit], []).append(unit)
    lefts: dict[int, float] = {}
    x = 0.0
    for col in range(max(columns, default=-1) + 1):
        lefts[col] = x
        x += (
            max((size[u][0] for u in columns.get(col, [])), default=DEFAULT_CARD_WIDTH) + COLUMN_GAP
        )
    rank = {u: i for i, u in enumerate(order)}
    centre: dict[str, float] = {}
    places: dict[str, tuple[float, float]] = {}
    for col in sorted(columns):
        ids = columns[col]
        bary = {}
        for u in ids:
            ys = [centre[p] for p in preds[u] if p in centre]
            bary[u] = sum(ys) / len(ys) if ys else float("inf")
        if col > 0:
            ids.sort(key=lambda u: (bary[u], rank[u]))
        total = sum(size[u][1] for u in ids) + ROW_GAP * (len(ids) - 1)
        anchors = [b for b in bary.values() if b != float("inf")]
        top = (sum(anchors) / len(anchors) - total / 2) if anchors else 0.0
        y = max(top, 0.0) if col > 0 else 0.0
        for u in ids:
            places[u] = (lefts[col], y)
            centre[u] = y + size[u][1] / 2
            y += size[u][1] + ROW_GAP
    return places
