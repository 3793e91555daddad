"""Layered drawing of a directed graph (Sugiyama's method, as graphviz's ``dot`` does it).

Given the layers (which node sits in which rank), two steps remain, and both live here
so that every layered picture of the studio shares them: the backward-graph view and the
canvas's auto-layout.

1. **Order** the nodes inside each layer so that few edges cross: edges that span
   several layers get a dummy node in every layer between (so they take part, and can
   be drawn straight through them); then sweeps down and up place each node at the
   weighted median of its neighbours in the layer just swept, a *transpose* pass swaps
   neighbours while that removes crossings, and the best order seen is kept (counted
   exactly, as inversions among the edges' lower ends).
2. **Place** the nodes along the layer (the *priority method*): each node moves towards
   the median of its neighbours, never past one that matters more, never overlapping; a
   dummy matters most, so long edges come out straight.

Big graphs get fewer sweeps and no transposes (``work`` budgets), so laying out a
thousand-node graph stays a matter of a second, not minutes.  Both steps run on node
numbers (``Numbered``: lists indexed by ints, not dictionaries keyed by hashable nodes),
which for a backward graph of ten thousand boxes and dummies halves their time.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right, insort
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from itertools import accumulate, chain, compress, count, islice
from operator import add, ge, le, sub

Node = Hashable

ITERATIONS = 24
"""Sweeps of the ordering step at most (``dot``'s default)."""
PATIENCE = 6
"""Sweeps without a better order before the ordering step stops."""
WORK = 150_000
"""About how many neighbour visits the ordering step may spend in all."""
TRANSPOSE_LIMIT = 1_500
"""Graphs with more nodes than this (dummies included) skip the transpose pass."""
STARTS_LIMIT = 3_000
"""Graphs with more nodes than this (dummies included) order from the given start only."""
DUMMY_BUDGET = 8_000
"""At most this many dummy nodes; the longest edges beyond it are drawn without them."""


@dataclass(frozen=True)
class Dummy:
    """Where edge number ``edge`` passes through layer ``layer``."""

    edge: int
    layer: int


@dataclass
class Proper:
    """The layers with a dummy wherever an edge passes, and the edges between neighbours.

    ``down[v]`` are ``v``'s neighbours in the next layer, ``up[v]`` in the previous one
    (repeated for parallel edges); ``chains[i]`` are the dummies of edge ``i`` from its
    upper end to its lower end.
    """

    layers: list[list[Node]]
    down: dict[Node, list[Node]] = field(default_factory=dict)
    up: dict[Node, list[Node]] = field(default_factory=dict)
    chains: dict[int, list[Dummy]] = field(default_factory=dict)
    #: The crossings of ``layers`` as ``order_layers`` left them (None: not ordered yet).
    crossings: int | None = None

    @property
    def size(self) -> int:
        return sum(map(len, self.layers))


def make_proper(
    layers: Sequence[Sequence[Node]],
    edges: Sequence[tuple[Node, Node]],
    dummy_budget: int = DUMMY_BUDGET,
) -> Proper:
    """``layers`` with dummies for ``edges`` that span more than one layer.

    Edge direction does not matter here (an edge joins its upper and its lower end);
    edges inside one layer, and loops, do not take part in the ordering.  When the
    dummies would exceed ``dummy_budget``, the shortest edges get theirs first.
    """
    out = Proper([list(layer) for layer in layers])
    layer_of = {v: i for i, layer in enumerate(out.layers) for v in layer}
    for v in layer_of:
        out.down[v], out.up[v] = [], []
    spans = []
    for i, (a, b) in enumerate(edges):
        if a not in layer_of or b not in layer_of or layer_of[a] == layer_of[b]:
            continue
        if layer_of[a] > layer_of[b]:
            a, b = b, a
        spans.append((layer_of[b] - layer_of[a], i, a, b))
    budget = dummy_budget
    routed = set()
    for span, i, _a, _b in sorted(spans):
        if span > 1 and span - 1 <= budget:
            budget -= span - 1
            routed.add(i)
    for span, i, a, b in spans:
        if span > 1 and i not in routed:
            continue  # over budget: this edge is drawn without taking part
        chain = [Dummy(i, li) for li in range(layer_of[a] + 1, layer_of[b])]
        if chain:
            out.chains[i] = chain
        path = [a, *chain, b]
        for d in chain:
            out.layers[d.layer].append(d)
            out.down[d], out.up[d] = [], []
        for u, w in itertools.pairwise(path):
            out.down[u].append(w)
            out.up[w].append(u)
    return out


class Numbered:
    """``proper`` with its nodes numbered in layer order: what ordering and placement
    loop over (list indexing costs a fraction of hashing a ``Dummy`` or a tuple id)."""

    __slots__ = ("down", "layers", "nodes", "up")

    def __init__(self, proper: Proper) -> None:
        self.nodes: list[Node] = [v for layer in proper.layers for v in layer]
        number = {v: i for i, v in enumerate(self.nodes)}
        self.layers: list[list[int]] = [[number[v] for v in layer] for layer in proper.layers]
        self.down: list[list[int]] = [[number[w] for w in proper.down[v]] for v in self.nodes]
        self.up: list[list[int]] = [[number[w] for w in proper.up[v]] for v in self.nodes]

    def positions(self) -> list[int]:
        """Each node's index inside its layer."""
        pos = [0] * len(self.nodes)
        for layer in self.layers:
            for i, v in enumerate(layer):
                pos[v] = i
        return pos


# ====================================================================== crossings


def count_crossings(proper: Proper) -> int:
    """Edge crossings between every pair of neighbouring layers, exactly."""
    graph = Numbered(proper)
    return _crossings(graph.layers, graph.down, graph.positions())


def _crossings(layers: Sequence[Sequence[int]], down: Sequence[list[int]], pos: list[int]) -> int:
    """Inversions of the lower ends, edges sorted by upper then lower end, over each pair
    of neighbouring layers; ``pos`` is every node's index in its layer.  The ends seen so
    far are kept sorted (bisection and insertion run in C, which for layers of hundreds
    of nodes beats a Fenwick tree walked in Python)."""
    total = 0
    for upper, lower in itertools.pairwise(layers):
        if len(lower) < 2:
            continue
        seen: list[int] = []
        for u in upper:
            near = down[u]
            if len(near) == 1:
                p = pos[near[0]]
                total += len(seen) - bisect_right(seen, p)  # earlier edges ending right of p
                insort(seen, p)
            elif near:
                ends = [pos[w] for w in near]
                n = len(seen)
                for p in ends:
                    total += n - bisect_right(seen, p)
                for p in ends:
                    insort(seen, p)
    return total


# ======================================================================= ordering


def order_layers(proper: Proper, iterations: int = ITERATIONS, work: int = WORK) -> Proper:
    """Reorder ``proper.layers`` in place to reduce crossings; returns it.

    Three starts, as ``dot`` tries several: the order given (kept where nothing argues
    against it, so callers pass a meaningful one: the program's, the graph's) and
    depth-first walks down from the first layer and up from the last; the fewest
    crossings win, and of equals the order given.
    """
    if len(proper.layers) < 2:
        return proper
    graph = Numbered(proper)
    size = len(graph.nodes)
    edges = sum(map(len, graph.down))
    per_sweep = max(edges + size, 1)
    iterations = max(2, min(iterations, work // (3 * per_sweep)))
    transpose = size <= TRANSPOSE_LIMIT
    best, best_count = _sweeps(
        graph, [list(layer) for layer in graph.layers], iterations, transpose
    )
    if size <= STARTS_LIMIT:
        # both walks start from the layers as the first sweeps left them
        starts = [_depth_first_order(graph, True), _depth_first_order(graph, False)]
        for start in starts:
            if not best_count:
                break
            other, count = _sweeps(graph, start, iterations, transpose)
            if count < best_count:
                best, best_count = other, count
    nodes = graph.nodes
    proper.layers[:] = [[nodes[v] for v in layer] for layer in best]
    proper.crossings = best_count
    return proper


def _sweeps(
    graph: Numbered, start: list[list[int]], iterations: int, transpose: bool
) -> tuple[list[list[int]], int]:
    """Median sweeps with transposes from ``start``: the best order seen and its crossings."""
    layers = graph.layers
    layers[:] = start
    up, down = graph.up, graph.down
    pos = graph.positions()
    best = [list(layer) for layer in layers]
    best_count = _crossings(layers, down, pos)
    stale = 0
    for it in range(iterations):
        if best_count == 0:
            break
        downwards = it % 2 == 0
        flip = (it // 2) % 2 == 1  # ties broken the other way every other round trip
        if downwards:
            for li in range(1, len(layers)):
                _median_sort(layers[li], up, pos, flip)
        else:
            for li in range(len(layers) - 2, -1, -1):
                _median_sort(layers[li], down, pos, flip)
        if transpose:
            _transpose(layers, graph, pos, flip)
        count = _crossings(layers, down, pos)
        if count < best_count:
            best, best_count, stale = [list(layer) for layer in layers], count, 0
        else:
            stale += 1
            if stale >= PATIENCE:
                break
    return best, best_count


def _depth_first_order(graph: Numbered, downwards: bool) -> list[list[int]]:
    """Each layer in the order a depth-first walk meets it: down from the first layer
    (along ``down``) or up from the last (along ``up``)."""
    layer_of = [0] * len(graph.nodes)
    for li, layer in enumerate(graph.layers):
        for v in layer:
            layer_of[v] = li
    near = graph.down if downwards else graph.up
    out: list[list[int]] = [[] for _ in graph.layers]
    seen = [False] * len(graph.nodes)
    for layer in graph.layers if downwards else reversed(graph.layers):
        for root in layer:
            if seen[root]:
                continue
            seen[root] = True
            stack = [root]
            while stack:
                v = stack.pop()
                out[layer_of[v]].append(v)
                for w in reversed(near[v]):
                    if not seen[w]:
                        seen[w] = True
                        stack.append(w)
    return out


def _median_sort(layer: list[int], near: Sequence[list[int]], pos: list[int], flip: bool) -> None:
    """Sort ``layer`` by the weighted median of its neighbours in the layer swept before;
    a node without such neighbours keeps its place."""
    keyed = []
    fixed = {}
    for i, v in enumerate(layer):
        ns = near[v]
        if not ns:
            fixed[i] = v
            continue
        m = float(pos[ns[0]]) if len(ns) == 1 else _weighted_median(sorted([pos[u] for u in ns]))
        keyed.append((m, -i if flip else i, v))
    keyed.sort()  # (median, place) is unique: the node itself is never compared
    if fixed:
        movers = iter([v for _, _, v in keyed])
        layer[:] = [fixed[i] if i in fixed else next(movers) for i in range(len(layer))]
    else:
        layer[:] = [v for _, _, v in keyed]
    for i, v in enumerate(layer):
        pos[v] = i


def _weighted_median(ps: list[int]) -> float | None:
    """Gansner et al.'s median: between the two middle values, leaning to the denser side."""
    n = len(ps)
    if n == 0:
        return None
    m = n // 2
    if n % 2:
        return float(ps[m])
    if n == 2:
        return (ps[0] + ps[1]) / 2
    left, right = ps[m - 1] - ps[0], ps[-1] - ps[m]
    if left + right == 0:
        return (ps[m - 1] + ps[m]) / 2
    return (ps[m - 1] * right + ps[m] * left) / (left + right)


def _pair_crossings(v: int, w: int, graph: Numbered, pos: list[int]) -> int:
    """Crossings between the edges of ``v`` and of ``w`` when ``v`` is left of ``w``."""
    count = 0
    for near in (graph.up, graph.down):
        ends = [pos[b] for b in near[w]]
        for a in near[v]:
            pa = pos[a]
            for pb in ends:
                if pb < pa:
                    count += 1
    return count


def _transpose(
    layers: list[list[int]], graph: Numbered, pos: list[int], ties: bool = False
) -> None:
    """Swap neighbours in a layer while a swap removes crossings (a few passes at most);
    with ``ties``, also where it changes nothing, to leave a plateau (as ``dot`` does)."""
    for _ in range(4):
        improved = False
        for layer in layers:
            for i in range(len(layer) - 1):
                v, w = layer[i], layer[i + 1]
                now = _pair_crossings(v, w, graph, pos)
                swapped = _pair_crossings(w, v, graph, pos)
                if swapped < now or (ties and swapped == now and now > 0):
                    layer[i], layer[i + 1] = w, v
                    pos[v], pos[w] = i + 1, i
                    improved = improved or swapped < now
        if not improved:
            return


# ===================================================================== placement


def place(
    proper: Proper,
    widths: Mapping[Node, float],
    gap: float,
    priority: Callable[[Node], float] | None = None,
    dummy_width: float = 10.0,
    sweeps: int = 6,
    dummy_gap: float | None = None,
) -> dict[Node, float]:
    """The centre of every node along its layer (dummies included), smallest at 0.

    Neighbours in a layer are at least their half-widths plus ``gap`` apart, or plus
    ``dummy_gap`` (default ``gap``) where one of them is a dummy: edges passing
    between nodes need less room than nodes do from each other.  Sweeps
    alternate down and up; in each, a layer's nodes move (highest ``priority`` first,
    dummies above all) towards the median of their neighbours in the layer before,
    pushing lower-priority nodes aside but never one already placed.
    """
    priority = priority or (lambda v: 1.0)
    graph = Numbered(proper)
    nodes, layers = graph.nodes, graph.layers
    dummy = [isinstance(v, Dummy) for v in nodes]
    width = [dummy_width if d else widths[v] for v, d in zip(nodes, dummy, strict=True)]
    thin = gap if dummy_gap is None else dummy_gap
    # the room between each node and the next in its layer (the layers' order is fixed)
    seps: list[list[float]] = []
    for layer in layers:
        seps.append(
            [
                (width[u] + width[v]) / 2 + (thin if dummy[u] or dummy[v] else gap)
                for u, v in itertools.pairwise(layer)
            ]
        )
    x = [0.0] * len(nodes)
    for layer, sep in zip(layers, seps, strict=True):
        at = 0.0
        for i, v in enumerate(layer):
            if i:
                at += sep[i - 1]
            x[v] = at
        shift = at / 2  # centred on 0, so the first sweep starts from a balanced picture
        for v in layer:
            x[v] -= shift
    inf = float("inf")
    rank = [inf if d else priority(v) for v, d in zip(nodes, dummy, strict=True)]
    plans: dict[tuple[bool, int], list[tuple[int, list[int]]]] = {}
    for sweep in range(sweeps):
        downwards = sweep % 2 == 0
        indices = range(1, len(layers)) if downwards else range(len(layers) - 2, -1, -1)
        near = graph.up if downwards else graph.down
        for li in indices:
            plan = plans.get((downwards, li))
            if plan is None:  # the same for every sweep in this direction
                plan = plans[downwards, li] = _plan(layers[li], near, rank)
            _place_layer(layers[li], seps[li], plan, x)
    low = min(x, default=0.0)
    return {v: c - low for v, c in zip(nodes, x, strict=True)}


def _plan(
    layer: list[int], near: Sequence[list[int]], rank: list[float]
) -> list[tuple[int, list[int]]]:
    """The order in which ``_place_layer`` moves a layer's nodes (the weightiest first:
    rank times neighbours, dummies above all, then from the left), each with the
    neighbours it moves towards."""
    inf = float("inf")
    weight = [
        (rank[v] * (1 + len(near[v])) if rank[v] != inf else inf, -i) for i, v in enumerate(layer)
    ]
    order = sorted(range(len(layer)), key=weight.__getitem__, reverse=True)
    return [(i, near[layer[i]]) for i in order]


def _place_layer(
    layer: list[int], sep: list[float], plan: list[tuple[int, list[int]]], x: list[float]
) -> None:
    """One layer's nodes in ``plan``'s order, each towards the median of its neighbours
    and no further than the nearest node already placed allows."""
    n = len(layer)
    xs = [x[v] for v in layer]
    inf = float("inf")
    placed: list[int] = []  # indices already placed, ascending
    for i, ns in plan:
        if ns:
            if len(ns) == 1:
                target = x[ns[0]]
            else:
                nbrs = sorted([x[u] for u in ns])
                m = len(nbrs) // 2
                target = nbrs[m] if len(nbrs) % 2 else (nbrs[m - 1] + nbrs[m]) / 2
            if target > xs[i]:
                k = bisect_right(placed, i)
                if k < len(placed):
                    j = placed[k]
                    limit = xs[j] - reduce(add, sep[i:j], 0.0)  # summed as it is walked
                else:
                    limit = inf
                xs[i] = max(xs[i], min(target, limit))
                if i + 1 < n and xs[i + 1] < xs[i] + sep[i]:
                    _push_right(xs, sep, i)
            elif target < xs[i]:
                k = bisect_right(placed, i) - 1
                if k >= 0:
                    j = placed[k]
                    limit = xs[j] + reduce(add, reversed(sep[j:i]), 0.0)
                else:
                    limit = -inf
                xs[i] = min(xs[i], max(target, limit))
                if i > 0 and xs[i - 1] > xs[i] - sep[i - 1]:
                    _push_left(xs, sep, i)
        insort(placed, i)
    for v, c in zip(layer, xs, strict=True):
        x[v] = c


def _push_right(xs: list[float], sep: list[float], i: int) -> None:
    """Move the nodes right of ``i`` right until each is ``sep`` clear of the one before,
    as far as the first that already is: the walk node by node, in C (the positions are
    a running sum from ``xs[i]``, added in the same order, so bit for bit the same)."""
    run = islice(accumulate(islice(sep, i, None), initial=xs[i]), 1, None)
    stop = next(compress(count(i + 1), map(ge, islice(xs, i + 1, None), run)), len(xs))
    xs[i + 1 : stop] = islice(accumulate(sep[i : stop - 1], initial=xs[i]), 1, None)


def _push_left(xs: list[float], sep: list[float], i: int) -> None:
    """``_push_right``'s mirror: the nodes left of ``i``, moved left."""
    run = islice(accumulate(chain([xs[i]], reversed(sep[:i])), sub), 1, None)
    stop = next(compress(count(i - 1, -1), map(le, reversed(xs[:i]), run)), -1)
    pushed = list(islice(accumulate(chain([xs[i]], reversed(sep[stop + 1 : i])), sub), 1, None))
    xs[stop + 1 : i] = pushed[::-1]
