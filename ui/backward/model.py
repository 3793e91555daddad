"""What the backward-graph view draws, and where: plain data, no Qt.

Kept apart from the widgets so the model and the layout can be tested and
profiled headless.  Which document node a ``grad_fn`` belongs to is the core's
``gradstudio.evaluation.grad_fn_index`` (the playhead answers with it too).

The view lays out the *union* of the graphs of every step once per evaluation
(``union_model``), then per timeline position only shows the part that exists
then (``model_at``): nodes keep their place while the learner scrubs, and
scrubbing costs no layout.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gradstudio.document.layered import count_crossings, make_proper, order_layers, place
from gradstudio.evaluation.facts import GradFnFacts, GradValue, OutputRef, TensorFacts
from gradstudio.evaluation.grad_fn_index import GradFnIndex
from gradstudio.evaluation.results import Evaluation, Snapshot
from gradstudio.text import shape_text

LAYER_GAP = 46.0
NODE_GAP = 22.0
WEIGHT = {"fn": 20.0, "leaf": 4.0, "out": 4.0, "saved": 1.0}  # who keeps its place in a layer

BoxId = tuple  # ("fn", key) | ("leaf", key) | ("out", key) | ("saved", key, i)
#: Per GradFnFacts object (by id, holding it): (facts, caption, tooltip, saved parts,
#: boxes and links, what it is drawn as); and per what it is drawn as (``_drawn_as``),
#: the parts shared by the equal grad_fns of another evaluation.
Memo = dict[Any, tuple[Any, ...]]


def parse_key(text: str) -> int | None:
    """``state.grad_fn_key`` (a string) as the evaluation's integer key."""
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


# ==================================================================== the graph model


@dataclass(frozen=True)
class Box:
    """One drawn node: ``kind`` is ``fn``, ``leaf``, ``out`` or ``saved``."""

    id: BoxId
    kind: str
    title: str
    subtitle: str = ""
    key: int | None = None  # the grad_fn it stands for or belongs to
    node_id: str | None = None  # the document node it maps to
    faded: bool = False
    tooltip: str = ""


@dataclass(frozen=True)
class Link:
    """An arrow ``tail → head`` in torchviz's direction; ``flow`` names its gradient."""

    tail: BoxId
    head: BoxId
    flow: tuple  # ("next", fn key, slot) | ("acc", key) | ("out", key) | ("saved", key, i)
    dashed: bool = False
    arrow: bool = True


@dataclass
class GraphModel:
    boxes: dict[BoxId, Box] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    #: Layering edges, from the outputs towards the leaves.
    layering: list[tuple[BoxId, BoxId]] = field(default_factory=list)
    #: grad_fn keys of tensors that nothing else uses yet (torchviz's green outputs).
    roots: set[int] = field(default_factory=set)
    #: How many grad_fn boxes, when the maker knows (a scrub asks at every step).
    known_fn_count: int | None = field(default=None, compare=False, repr=False)

    @property
    def fn_count(self) -> int:
        if self.known_fn_count is not None:
            return self.known_fn_count
        return sum(1 for b in self.boxes.values() if b.kind == "fn")


def model_at(
    evaluation: Evaluation,
    snapshot: Snapshot,
    index: GradFnIndex,
    show_saved: bool = True,
    memo: Memo | None = None,
) -> GraphModel:
    """Every grad_fn reachable from a tensor of the document at ``snapshot``."""
    tensors = [(ref, f) for ref, f in snapshot.items() if f is not None]
    return build_model(
        evaluation,
        tensors,
        snapshot.grad_fns(),
        lambda ref: snapshot.facts(ref.node_id, ref.port, ref.index),
        index,
        show_saved,
        memo,
    )


def union_model(
    evaluation: Evaluation, index: GradFnIndex, show_saved: bool = True, memo: Memo | None = None
) -> GraphModel:
    """The graphs of all steps together (facts as of the last step): what is laid out."""
    final = evaluation.final
    tensors = [
        (ref, f)
        for result in evaluation.steps
        for ref, f in result.changed.items()
        if f is not None
    ]
    return build_model(
        evaluation,
        tensors,
        final.grad_fns(),
        lambda ref: final.facts(ref.node_id, ref.port, ref.index),
        index,
        show_saved,
        memo,
    )


def build_model(
    evaluation: Evaluation,
    tensors: list[tuple[OutputRef, TensorFacts]],
    grad_fns: Mapping[int, GradFnFacts],
    facts_of: Callable[[OutputRef], TensorFacts | None],
    index: GradFnIndex,
    show_saved: bool = True,
    memo: Memo | None = None,
) -> GraphModel:
    """The boxes and links of the grad_fns reachable from ``tensors``.

    ``memo`` keeps what depends only on one (immutable) GradFnFacts object between
    calls: snapshots of neighbouring steps share most of them, so scrubbing the
    timeline rebuilds little.
    """
    memo = {} if memo is None else memo
    model = GraphModel()
    plan = evaluation.plan
    starts: list[int] = []
    caption: dict[int, str] = {}
    shape_of: dict[int, tuple[int, ...]] = {}
    for ref, facts in tensors:
        if facts.grad_fn is None:
            continue
        key = facts.grad_fn.key
        shape_of[key] = facts.shape
        if key not in caption:
            starts.append(key)
            owner = index.node_for(key) or ref.node_id
            caption[key] = plan.labels.get(owner, owner)
    fns: dict[int, GradFnFacts] = {}
    order: list[int] = []
    stack = list(reversed(starts))
    while stack:
        key = stack.pop()
        if key in fns or key not in grad_fns:
            continue
        fn = grad_fns[key]
        fns[key] = fn
        order.append(key)
        stack.extend(n.key for n in reversed(fn.next_functions) if n is not None)
    referenced = {n.key for fn in fns.values() for n in fn.next_functions if n is not None}
    model.roots = {k for k in caption if k in fns and k not in referenced}

    for key in order:
        fn = fns[key]
        named = fn.name != "AccumulateGrad" and key not in model.roots
        parts = fn_parts(fn, key, caption.get(key), index, memo)
        model.boxes[("fn", key)] = fn_box(
            parts, fn, key, caption.get(key, "") if named else "", index
        )
    for key in order:
        fn = fns[key]
        fn_id = ("fn", key)
        parts = memo[id(fn)]
        for nxt_key, link, layer in next_links(parts, fn, key):
            if nxt_key in fns:
                model.links.append(link)
                model.layering.append(layer)
        if fn.name == "AccumulateGrad" and fn.variable is not None:
            box, link = leaf_box(plan.display_label(fn.variable), facts_of(fn.variable), fn, key)
            model.boxes[box.id] = box
            model.links.append(link)
            model.layering.append((link.head, link.tail))
        if show_saved:
            for box, link in parts[3]:
                model.boxes[box.id] = box
                model.links.append(link)
                model.layering.append((fn_id, box.id))
    for key in order:
        if key in model.roots:
            box, link = out_box(key, caption[key], shape_of[key], fns[key], index)
            model.boxes[box.id] = box
            model.links.append(link)
            model.layering.append((box.id, ("fn", key)))
    return model


def fn_parts(
    fn: GradFnFacts, key: int, caption: str | None, index: GradFnIndex, memo: Memo
) -> tuple[Any, ...]:
    """What depends only on one GradFnFacts object and its tensor's caption, made once:
    (facts, caption, tooltip, saved parts, boxes by subtitle and links under None, what it
    is drawn as). Equal grad_fns of a re-run share all but the first two."""
    parts = memo.get(id(fn))
    if parts is None or parts[0] is not fn or parts[1] != caption:
        # a re-run after an edit of values: the equal grad_fn of the evaluation
        # before is drawn the same, so its boxes (the same objects) are taken over
        drawn_as = _drawn_as(fn, caption, index.node_for(key))
        shared = memo.get(drawn_as)
        if shared is None:
            tip = fn_tooltip(fn, caption)
            shared = memo[drawn_as] = (tip, _saved_parts(fn, key, index), {})
        parts = memo[id(fn)] = (fn, caption, *shared, drawn_as)
    return parts


def fn_box(parts: tuple, fn: GradFnFacts, key: int, sub: str, index: GradFnIndex) -> Box:
    """The box of a grad_fn: the same object while nothing about it changes (the view
    compares by identity)."""
    box = parts[4].get(sub)
    if box is None:
        box = parts[4][sub] = Box(
            ("fn", key), "fn", fn.name, sub, key, index.node_for(key), False, parts[2]
        )
    return box


def next_links(parts: tuple, fn: GradFnFacts, key: int) -> list[tuple[int, Link, tuple]]:
    """A grad_fn's links to its next_functions, made once per grad_fn: per link the
    next grad_fn's key, the link and its layering edge."""
    edges = parts[4].get(None)
    if edges is None:
        fn_id = ("fn", key)
        edges = parts[4][None] = [
            (nxt.key, Link(("fn", nxt.key), fn_id, ("next", key, slot)), (fn_id, ("fn", nxt.key)))
            for slot, nxt in enumerate(fn.next_functions)
            if nxt is not None
        ]
    return edges


def out_box(
    key: int, caption: str, shape: tuple[int, ...], fn: GradFnFacts, index: GradFnIndex
) -> tuple[Box, Link]:
    """The green box of an output (a tensor nothing uses yet) and its link."""
    out_id = ("out", key)
    text = shape_text(shape)
    box = Box(
        out_id,
        "out",
        caption,
        text,
        key,
        index.node_for(key),
        tooltip=f"{caption} {text}: an output, its grad_fn is {fn.name}",
    )
    return box, Link(("fn", key), out_id, ("out", key))


def leaf_box(label: str, var: TensorFacts | None, fn: GradFnFacts, key: int) -> tuple[Box, Link]:
    """The box of a leaf that requires grad (its AccumulateGrad's variable) and its link."""
    assert fn.variable is not None
    leaf_id = ("leaf", key)
    shape = shape_text(var.shape) if var is not None else ""
    box = Box(
        leaf_id,
        "leaf",
        label,
        shape,
        key,
        fn.variable.node_id,
        tooltip=f"{label} {shape}: a leaf that requires grad;\n"
        "backward adds its gradient into .grad (AccumulateGrad)",
    )
    return box, Link(leaf_id, ("fn", key), ("acc", key))


def _drawn_as(fn: GradFnFacts, caption: str | None, node_id: str | None) -> tuple[Any, ...]:
    """What a grad_fn's boxes, links and tooltip are made of (no tensor values)."""
    saved = tuple(
        (s.name, s.kind, s.value.shape if isinstance(s.value, GradValue) else s.value)
        for s in fn.saved
    )
    nexts = tuple(None if n is None else (n.key, n.name, n.index) for n in fn.next_functions)
    # plain tuples: hashed in C (a dataclass hashes by a Python call per entry)
    return ("drawn", fn.key, fn.name, nexts, caption, node_id, saved)


def prune_memo(memo: Memo) -> None:
    """Before a new evaluation is drawn: forget the grad_fn objects drawn so far, and
    keep what they were drawn as, for the equal ones of the new evaluation (those of
    earlier graphs too, until they outnumber the last graph's)."""
    objects = [k for k in memo if type(k) is int]
    if len(memo) - len(objects) > 2 * len(objects) + 1000:
        drawn = {memo[k][-1] for k in objects}
        kept = {k: memo[k] for k in drawn if k in memo}
        memo.clear()
        memo.update(kept)
    else:
        for k in objects:
            del memo[k]


def _saved_parts(fn: GradFnFacts, key: int, index: GradFnIndex) -> list[tuple[Box, Link]]:
    parts = []
    for i, saved in enumerate(fn.saved):
        if saved.kind not in ("tensor", "freed", "modified"):
            continue
        sid = ("saved", key, i)
        value = saved.value
        if saved.kind == "tensor" and isinstance(value, GradValue):
            sub = shape_text(value.shape)
            tip = f"saved tensor {saved.name} {sub} of {fn.name} (ctx.saved_tensors)"
        elif saved.kind == "freed":
            sub = "freed"
            tip = f"{saved.name}: freed by backward (retain_graph=False);\na second backward fails"
        else:
            sub = "modified"
            tip = f"{saved.name}: {value}"
        box = Box(
            sid, "saved", saved.name, sub, key, index.node_for(key), saved.kind != "tensor", tip
        )
        parts.append((box, Link(sid, ("fn", key), ("saved", key, i), dashed=True, arrow=False)))
    return parts


def fn_tooltip(fn: GradFnFacts, tensor: str | None) -> str:
    lines = [fn.name + (f"  (grad_fn of {tensor})" if tensor else "")]
    nexts = ", ".join("None" if n is None else f"({n.name}, {n.index})" for n in fn.next_functions)
    lines.append(f"next_functions: ({nexts})")
    for s in fn.saved:
        lines.append(f"_saved_{s.name}: {s.kind}")
    return "\n".join(lines)


# ======================================================================== the layout


def layout(
    model: GraphModel,
    sizes: Mapping[BoxId, tuple[float, float]],
    vertical: bool = True,
    layering: Layering | None = None,
) -> dict[BoxId, tuple[float, float]]:
    """Centres of the boxes (see ``arrange``, which also routes the long edges)."""
    return arrange(model, sizes, vertical, layering).positions


@dataclass
class Placement:
    """Where ``arrange`` put the boxes, and how the edges that span layers run."""

    positions: dict[BoxId, tuple[float, float]]
    #: Layering edge ``(a, b)`` -> the points it passes between its boxes, from ``a``.
    routes: dict[tuple[BoxId, BoxId], list[tuple[float, float]]]
    crossings: int


def arrange(
    model: GraphModel,
    sizes: Mapping[BoxId, tuple[float, float]],
    vertical: bool = True,
    layering: Layering | None = None,
    layer_gap: float = LAYER_GAP,
) -> Placement:
    """Layers by topological generation, outputs last; order and places by ``dot``'s method.

    ``vertical``: torchviz's top-to-bottom (leaves at the top, outputs at the
    bottom); otherwise left-to-right.  Inside a layer the order minimises edge
    crossings and the coordinates straighten long edges
    (``gradstudio.document.layered``); grad_fns keep their place before saved
    tensors do.  ``layering``: ``layers_of(model)``, when the caller has it already
    (``extents`` needs it too).  ``layer_gap``: room between layers, where the edges
    and their gradient labels go (left-to-right, labels are wide).
    """
    layers, succ, _pred = layering or layers_of(model)
    first = {box_id: i for i, box_id in enumerate(model.boxes)}
    ordered = [sorted(layer, key=first.__getitem__) for layer in layers]
    edges = [(a, b) for a in model.boxes for b in succ[a]]
    proper = order_layers(make_proper(ordered, edges))
    axis = 0 if vertical else 1
    cross = place(
        proper,
        {v: sizes[v][axis] for v in model.boxes},
        NODE_GAP,
        priority=lambda v: WEIGHT.get(v[0], 1.0),
    )
    offsets = [0.0] * len(layers)
    running = 0.0
    for li in range(len(layers) - 1, -1, -1):
        extent = max((sizes[v][1 - axis] for v in layers[li]), default=0.0)
        offsets[li] = running + extent / 2
        running += extent + layer_gap

    def point(c: float, li: int) -> tuple[float, float]:
        return (c, offsets[li]) if vertical else (offsets[li], c)

    layer_of = {v: li for li, layer in enumerate(layers) for v in layer}
    positions = {v: point(cross[v], layer_of[v]) for v in model.boxes}
    routes = {}
    for i, chain in proper.chains.items():
        a, b = edges[i]
        points = [point(cross[d], d.layer) for d in chain]  # from the upper end
        routes[edges[i]] = points if layer_of[a] < layer_of[b] else points[::-1]
    crossings = proper.crossings if proper.crossings is not None else count_crossings(proper)
    return Placement(positions, routes, crossings)


Adjacency = dict[BoxId, list[BoxId]]


Layering = tuple[list[list[BoxId]], Adjacency, Adjacency]


def layers_of(model: GraphModel) -> Layering:
    """The layers (outputs first) and the adjacency they were computed from."""
    succ, pred = _adjacency(model)
    layers = _generations(list(model.boxes), succ, pred)
    if sum(map(len, layers)) < len(model.boxes):  # a cycle: not from autograd; never hang
        succ, pred = _dfs_tree(list(model.boxes), succ)
        layers = _generations(list(model.boxes), succ, pred)
    return _pull_towards_inputs(layers, succ, pred), succ, pred


def extents(
    model: GraphModel,
    sizes: Mapping[BoxId, tuple[float, float]],
    layering: Layering | None = None,
    across_gap: float = LAYER_GAP,
) -> dict[bool, tuple[float, float]]:
    """About how wide and tall the layout is, top-to-bottom (True) and left-to-right.

    Without placing anything: layers stack along the main axis and the widest
    layer sets the other, so a view can choose the orientation that fits it best
    before paying for one layout.  ``across_gap``: the layer gap left-to-right.
    """
    layers = (layering or layers_of(model))[0]
    out: dict[bool, tuple[float, float]] = {}
    for vertical in (True, False):
        cross, along = (0, 1) if vertical else (1, 0)
        span = max(
            (sum(sizes[v][cross] for v in layer) + NODE_GAP * (len(layer) - 1) for layer in layers),
            default=0.0,
        )
        depth = sum(max(sizes[v][along] for v in layer) for layer in layers)
        depth += (LAYER_GAP if vertical else across_gap) * max(len(layers) - 1, 0)
        out[vertical] = (span, depth) if vertical else (depth, span)
    return out


def _adjacency(model: GraphModel) -> tuple[Adjacency, Adjacency]:
    """Successors and predecessors along ``model.layering`` (each edge once, in order)."""
    succ: Adjacency = {v: [] for v in model.boxes}
    pred: Adjacency = {v: [] for v in model.boxes}
    for a, b in dict.fromkeys(model.layering):
        if a in succ and b in succ and a != b:
            succ[a].append(b)
            pred[b].append(a)
    return succ, pred


def _generations(nodes: list[BoxId], succ: Adjacency, pred: Adjacency) -> list[list[BoxId]]:
    """Kahn's layers: each node one layer after its last predecessor (nodes on a
    cycle are left out, which the caller detects)."""
    indegree = {v: len(pred[v]) for v in nodes}
    layer = [v for v in nodes if indegree[v] == 0]
    layers = []
    while layer:
        layers.append(layer)
        following = []
        for v in layer:
            for w in succ[v]:
                indegree[w] -= 1
                if indegree[w] == 0:
                    following.append(w)
        layer = following
    return layers


def _pull_towards_inputs(
    layers: list[list[BoxId]], succ: Adjacency, pred: Adjacency
) -> list[list[BoxId]]:
    """Move each box to the layer just before the nearest box it points to.

    Generations put every box that nothing uses (a tensor computed and never used
    again, an output) in the first layer, however deep its inputs are: a graph
    with many such branches becomes one long row of long edges.  Pulled down,
    each branch sits next to what it was computed from.  Boxes that point nowhere
    (leaves, saved tensors) then go one layer after their last user, so they
    neither hold their user up nor wander off from it.
    """
    layer_of = {v: li for li, layer in enumerate(layers) for v in layer}
    for layer in reversed(layers):
        for v in layer:
            inner = [layer_of[w] for w in succ[v] if succ[w]]
            if inner:
                layer_of[v] = min(inner) - 1
    for layer in layers:
        for v in layer:
            if not succ[v] and pred[v]:
                layer_of[v] = max(layer_of[u] for u in pred[v]) + 1
    pulled: list[list[BoxId]] = [[] for _ in range(max(layer_of.values(), default=-1) + 1)]
    for layer in layers:
        for v in layer:
            pulled[layer_of[v]].append(v)
    return [layer for layer in pulled if layer]


def _dfs_tree(nodes: list[BoxId], succ: Adjacency) -> tuple[Adjacency, Adjacency]:
    """The depth-first tree's edges only: acyclic whatever the input."""
    tree_succ: Adjacency = {v: [] for v in nodes}
    tree_pred: Adjacency = {v: [] for v in nodes}
    seen: set[BoxId] = set()
    for root in nodes:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(succ[root]))]
        while stack:
            parent, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
            elif child not in seen:
                seen.add(child)
                tree_succ[parent].append(child)
                tree_pred[child].append(parent)
                stack.append((child, iter(succ[child])))
    return tree_succ, tree_pred
