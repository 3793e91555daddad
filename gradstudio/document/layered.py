"""Layered drawing of a directed graph (Sugiyama's method, as graphviz's ``dot`` does it).

Given the layers (which node sits in which rank), two steps remain, and both live here
so that every layered picture of the studio shares them: the backward-graph view and the
canvas's auto-layout.

1. **Order** the nodes inside each layer so that few edges cross: edges that span
   several layers get a dummy node in every layer between (so they take part, and can
   be drawn straight through them); then sweeps down and up place each node at the
   weighted median of its neighbours in the layer just swept, a *transpose* pass swaps
   neighbours while that removes crossings, and the best order seen is kept (counted
   exactly, Barth–Jünger–Mutzel's accumulator).
2. **Place** the nodes along the layer (the *priority method*): each node moves towards
   the median of its neighbours, never past one that matters more, never overlapping; a
   dummy matters most, so long edges come out straight.

Big graphs get fewer sweeps and no transposes (``work`` budgets), so laying out a
thousand-node graph stays a matter of a second, not minutes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field

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


# ====================================================================== crossings


def count_crossings(proper: Proper) -> int:
    """Edge crossings between every pair of neighbouring layers, exactly."""
    total = 0
    for upper, lower in itertools.pairwise(proper.layers):
        total += _bilayer_crossings(upper, {v: i for i, v in enumerate(lower)}, proper.down)
    return total


def _bilayer_crossings(
    upper: Sequence[Node], lower_pos: Mapping[Node, int], down: Mapping[Node, list[Node]]
) -> int:
    """Inversions of the lower ends, edges sorted by upper then lower end (a Fenwick tree)."""
    n = len(lower_pos)
    if n < 2:
        return 0
    tree = [0] * (n + 1)
    seen = crossings = 0
    for u in upper:
        ends = sorted(lower_pos[w] for w in down[u])
        for p in ends:  # edges already seen whose lower end is right of p cross this one
            i, below = p + 1, 0
            while i > 0:
                below += tree[i]
                i -= i & -i
            crossings += seen - below
        for p in ends:
            i = p + 1
            while i <= n:
                tree[i] += 1
                i += i & -i
            seen += 1
    return crossings


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
    edges = sum(map(len, proper.down.values()))
    per_sweep = max(edges + proper.size, 1)
    iterations = max(2, min(iterations, work // (3 * per_sweep)))
    best, best_count = _sweeps(proper, [list(layer) for layer in proper.layers], iterations)
    if proper.size > STARTS_LIMIT:
        proper.layers[:] = best
        return proper
    for start in (_depth_first_order(proper, proper.down), _depth_first_order(proper, proper.up)):
        if not best_count:
            break
        other, count = _sweeps(proper, start, iterations)
        if count < best_count:
            best, best_count = other, count
    proper.layers[:] = best
    return proper


def _sweeps(
    proper: Proper, start: list[list[Node]], iterations: int
) -> tuple[list[list[Node]], int]:
    """Median sweeps with transposes from ``start``: the best order seen and its crossings."""
    layers = proper.layers
    layers[:] = start
    transpose = proper.size <= TRANSPOSE_LIMIT
    pos = _positions(layers)
    best = [list(layer) for layer in layers]
    best_count = count_crossings(proper)
    stale = 0
    for it in range(iterations):
        if best_count == 0:
            break
        down = it % 2 == 0
        flip = (it // 2) % 2 == 1  # ties broken the other way every other round trip
        if down:
            for li in range(1, len(layers)):
                _median_sort(layers[li], proper.up, pos, flip)
        else:
            for li in range(len(layers) - 2, -1, -1):
                _median_sort(layers[li], proper.down, pos, flip)
        if transpose:
            _transpose(layers, proper, pos, flip)
        count = count_crossings(proper)
        if count < best_count:
            best, best_count, stale = [list(layer) for layer in layers], count, 0
        else:
            stale += 1
            if stale >= PATIENCE:
                break
    return best, best_count


def _depth_first_order(proper: Proper, near: Mapping[Node, list[Node]]) -> list[list[Node]]:
    """Each layer in the order a depth-first walk meets it: down from the first layer
    (``near`` is ``proper.down``) or up from the last (``proper.up``)."""
    layer_of = {v: li for li, layer in enumerate(proper.layers) for v in layer}
    out: list[list[Node]] = [[] for _ in proper.layers]
    seen: set[Node] = set()
    for layer in proper.layers if near is proper.down else reversed(proper.layers):
        for root in layer:
            if root in seen:
                continue
            seen.add(root)
            stack = [root]
            while stack:
                v = stack.pop()
                out[layer_of[v]].append(v)
                for w in reversed(near[v]):
                    if w not in seen:
                        seen.add(w)
                        stack.append(w)
    return out


def _positions(layers: Sequence[Sequence[Node]]) -> dict[Node, int]:
    return {v: i for layer in layers for i, v in enumerate(layer)}


def _median_sort(
    layer: list[Node], near: Mapping[Node, list[Node]], pos: dict[Node, int], flip: bool
) -> None:
    """Sort ``layer`` by the weighted median of its neighbours in the layer swept before;
    a node without such neighbours keeps its place."""
    keyed = []
    fixed = []
    for i, v in enumerate(layer):
        m = _weighted_median(sorted(pos[u] for u in near[v]))
        if m is None:
            fixed.append((i, v))
        else:
            keyed.append((m, -i if flip else i, v))
    keyed.sort(key=lambda k: (k[0], k[1]))
    movers = iter(v for _, _, v in keyed)
    slots = dict(fixed)
    layer[:] = [slots[i] if i in slots else next(movers) for i in range(len(layer))]
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


def _pair_crossings(v: Node, w: Node, proper: Proper, pos: Mapping[Node, int]) -> int:
    """Crossings between the edges of ``v`` and of ``w`` when ``v`` is left of ``w``."""
    count = 0
    for near in (proper.up, proper.down):
        for a in near[v]:
            pa = pos[a]
            for b in near[w]:
                if pos[b] < pa:
                    count += 1
    return count


def _transpose(
    layers: list[list[Node]], proper: Proper, pos: dict[Node, int], ties: bool = False
) -> None:
    """Swap neighbours in a layer while a swap removes crossings (a few passes at most);
    with ``ties``, also where it changes nothing, to leave a plateau (as ``dot`` does)."""
    for _ in range(4):
        improved = False
        for layer in layers:
            for i in range(len(layer) - 1):
                v, w = layer[i], layer[i + 1]
                now = _pair_crossings(v, w, proper, pos)
                swapped = _pair_crossings(w, v, proper, pos)
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

    def width(v: Node) -> float:
        return dummy_width if isinstance(v, Dummy) else widths[v]

    thin = gap if dummy_gap is None else dummy_gap

    def apart(u: Node, v: Node) -> float:
        space = thin if isinstance(u, Dummy) or isinstance(v, Dummy) else gap
        return (width(u) + width(v)) / 2 + space

    x: dict[Node, float] = {}
    for layer in proper.layers:
        at = 0.0
        for i, v in enumerate(layer):
            if i:
                at += apart(layer[i - 1], v)
            x[v] = at
        shift = at / 2  # centred on 0, so the first sweep starts from a balanced picture
        for v in layer:
            x[v] -= shift
    rank: dict[Node, float] = {}
    for v in x:
        rank[v] = float("inf") if isinstance(v, Dummy) else priority(v)
    layers = proper.layers
    for sweep in range(sweeps):
        down = sweep % 2 == 0
        indices = range(1, len(layers)) if down else range(len(layers) - 2, -1, -1)
        near = proper.up if down else proper.down
        for li in indices:
            _place_layer(layers[li], near, x, rank, apart)
    low = min(x.values(), default=0.0)
    return {v: c - low for v, c in x.items()}


def _place_layer(
    layer: list[Node],
    near: Mapping[Node, list[Node]],
    x: dict[Node, float],
    rank: Mapping[Node, float],
    apart: Callable[[Node, Node], float],
) -> None:
    n = len(layer)
    xs = [x[v] for v in layer]
    sep = [apart(layer[i], layer[i + 1]) for i in range(n - 1)]
    weight = [
        (rank[v] * (1 + len(near[v])) if rank[v] != float("inf") else rank[v], -i)
        for i, v in enumerate(layer)
    ]
    fixed = [False] * n
    for i in sorted(range(n), key=lambda k: weight[k], reverse=True):
        nbrs = sorted(x[u] for u in near[layer[i]])
        if nbrs:
            m = len(nbrs) // 2
            target = nbrs[m] if len(nbrs) % 2 else (nbrs[m - 1] + nbrs[m]) / 2
            if target > xs[i]:
                limit, room = float("inf"), 0.0
                for j in range(i + 1, n):
                    room += sep[j - 1]
                    if fixed[j]:
                        limit = xs[j] - room
                        break
                xs[i] = max(xs[i], min(target, limit))
                for j in range(i + 1, n):
                    if xs[j] >= xs[j - 1] + sep[j - 1]:
                        break
                    xs[j] = xs[j - 1] + sep[j - 1]
            elif target < xs[i]:
                limit, room = float("-inf"), 0.0
                for j in range(i - 1, -1, -1):
                    room += sep[j]
                    if fixed[j]:
                        limit = xs[j] + room
                        break
                xs[i] = min(xs[i], max(target, limit))
                for j in range(i - 1, -1, -1):
                    if xs[j] <= xs[j + 1] - sep[j]:
                        break
                    xs[j] = xs[j + 1] - sep[j]
        fixed[i] = True
    for v, c in zip(layer, xs, strict=True):
        x[v] = c
