"""Document nodes for the recorder's tensor-action events (the events ``actions`` writes).

Each builder takes one event and the keys seen so far; the node it adds is wired the way
the static importer wires the same code, so both importers give the same document.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from gradstudio.document.groups import MAX_TITLE, Group
from gradstudio.function_args import named_arguments
from gradstudio.interchange.quoting import one_line
from gradstudio.interchange.snippet_building import GraphBuilder, short_label
from gradstudio.interchange.snippet_values import Const, ImportProblem, TensorRef

Refs = dict[str, TensorRef]

#: A label that is a name or a path (``loss``, ``model.0.weight``, ``outs[0]``): an
#: iteration marks it ``loss_2``; any other (``pred - y``, ``opt.zero_grad()``) ``... #2``.
_NAME = re.compile(r"[\w.\[\]]+")
MAX_LABEL = 40


def _ref(refs: Refs, key: str | None, line: int | None) -> TensorRef:
    if key is None or key not in refs:
        raise ImportProblem("a tensor here was not recorded", line)
    return refs[key]


class Names:
    """The labels of the nodes being built.

    The recorder's ``labels`` are final (what a top-level variable holds when the program
    ends, and its numbered versions).  Its ``bases`` (the names statements bound, paths
    of parameters and modules, the expressions that made tensors) and the builder's own
    fallbacks are marked with the loop iteration the node is made in: ``loss_2`` in the
    second, ``loss_2_3`` in the third of an inner loop's second run, ``pred - y #2``; a
    name that repeats within one iteration then takes ``_2``, ``_3`` after that.  So a
    label says which iteration it belongs to, not how many came before, and the final
    labels are never taken by an earlier node."""

    def __init__(
        self,
        importer: GraphBuilder,
        frames: FrameGroups,
        labels: dict[str, str],
        bases: dict[str, str] | None = None,
    ) -> None:
        self.importer = importer
        self.frames = frames
        self.labels = labels
        self.bases = bases or {}
        self.reserved = {short_label(label) for label in labels.values()}

    def fixed(self, key: str | None) -> bool:
        return key is not None and key in self.labels

    def of(self, key: str | None, fallback: str) -> str:
        """``key``'s label: its final one, else its base (or ``fallback``) marked here."""
        if key is not None and key in self.labels:
            return self.labels[key]
        return self.here(self.bases.get(key or "") or fallback)

    def before(self, key: str, fallback: str) -> str:
        """``key``'s label where its tensor was made before the frame being built (a
        parameter first used in an iteration): not marked with that iteration."""
        if key in self.labels:
            return self.labels[key]
        return self.unique(self.bases.get(key) or fallback)

    def base(self, key: str | None) -> str | None:
        """The program's name for ``key`` without a version or an iteration (``w`` for
        ``w_3``): what an action on it is named after (``w.grad = None``)."""
        if key is not None and key in self.labels:
            label = self.labels[key]
            stem, _, number = label.rpartition("_")
            return stem if stem and number.isdigit() else label
        return self.bases.get(key or "")

    def here(self, base: str) -> str:
        """``base`` marked with the loop iterations of the frame being built, unique."""
        chain = self.frames.iterations(self.frames.current)
        base = short_label(base)
        if not chain:
            return self.unique(base)
        name = _NAME.fullmatch(base) is not None
        suffix = "_" + "_".join(chain) if name else " #" + ".".join(chain)
        if len(base) + len(suffix) > MAX_LABEL:
            base = base[: MAX_LABEL - len(suffix) - 3] + "..."
        return self.unique(base + suffix)

    def unique(self, label: str) -> str:
        """``label``, or with ``_2``, ``_3`` ... after it where a node (or a final
        label still to come) has it."""
        label = short_label(label)
        doc = self.importer.doc

        def taken(text: str) -> bool:
            return text in self.reserved or doc.node_by_label(text) is not None

        if not taken(label):
            return label
        k = 2
        while taken(f"{label}_{k}"):
            k += 1
        return f"{label}_{k}"


def _to(importer: GraphBuilder, event: dict[str, Any], refs: Refs, names: Names) -> None:
    line = event["line"]
    importer.no_grad = event.get("no_grad", False)
    node = importer.add(
        "Tensor.to",
        {"device": event["device"], "dtype": event["dtype"]},
        names.of(event["out"], "to"),
        line,
    )
    importer.no_grad = False
    importer.connect(_ref(refs, event["target"], line), node, "input", line)
    refs[event["out"]] = TensorRef(node)


def _getitem(importer: GraphBuilder, event: dict[str, Any], refs: Refs, names: Names) -> None:
    line = event["line"]
    importer.no_grad = event.get("no_grad", False)
    owner = names.base(event["target"]) or ""
    node = importer.add(
        "Tensor.__getitem__",
        {"key": event["key"]},
        names.of(event["out"], f"{owner}[{event['key']}]"),
        line,
    )
    importer.no_grad = False
    importer.connect(_ref(refs, event["target"], line), node, "input", line)
    for key in event["index"]:
        importer.connect(_ref(refs, key, line), node, "index", line)
    refs[event["out"]] = TensorRef(node)


def _setitem(importer: GraphBuilder, event: dict[str, Any], refs: Refs, names: Names) -> None:
    line = event["line"]
    value = event["value"]
    target = _ref(refs, event["target"], line)
    importer.no_grad = event.get("no_grad", False)
    owner = names.base(event["target"]) or importer.doc.node(target.node_id).label
    node = importer.add(
        "Tensor.__setitem__", {"key": event["key"]}, names.of(event["out"], owner), line
    )
    importer.no_grad = False
    importer.connect(target, node, "input", line)
    if isinstance(value, dict) and "tensor" in value:
        importer.connect(_ref(refs, value["tensor"], line), node, "value", line)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        importer.feed(node, "value", Const(value), line)
    else:
        raise ImportProblem("the value assigned at an index must be a tensor or a number", line)
    for key in event["index"]:
        importer.connect(_ref(refs, key, line), node, "index", line)
    refs[event["out"]] = TensorRef(node)


def _set_data(importer: GraphBuilder, event: dict[str, Any], refs: Refs, names: Names) -> None:
    """``x.data = v`` writes v's values into x's storage without autograd seeing it."""
    line = event["line"]
    target = _ref(refs, event["target"], line)
    owner = names.base(event["target"]) or ""
    data = importer.add("Tensor.data", {}, names.here(f"{owner}.data"), line)
    importer.connect(target, data, "input", line)
    copy = importer.add("Tensor.copy_", {}, names.here(f"{owner}.data ="), line)
    importer.connect(TensorRef(data), copy, "input", line)
    importer.connect(_ref(refs, event["value"], line), copy, "src", line)


def _connect_all(
    importer: GraphBuilder,
    node: str,
    port: str,
    keys: list[str | None] | None,
    refs: Refs,
    line: Any,
) -> None:
    for key in keys or []:
        if key is not None:
            importer.connect(_ref(refs, key, line), node, port, line)


def _grad(importer: GraphBuilder, event: dict[str, Any], refs: Refs, names: Names) -> None:
    line = event["line"]
    params: dict[str, Any] = {
        "create_graph": event["create_graph"],
        "allow_unused": event["allow_unused"],
    }
    if event["retain_graph"] is not None:
        params["retain_graph"] = event["retain_graph"]
    node = importer.add("torch.autograd.grad", params, names.here("autograd.grad"), line)
    for port in ("outputs", "inputs", "grad_outputs"):
        _connect_all(importer, node, port, event[port], refs, line)
    for index, key in enumerate(event["out"]):
        if key is None:
            continue
        item = importer.add(
            "gradstudio.select", {"index": index}, names.of(key, f"grad[{index}]"), line
        )
        importer.connect(TensorRef(node, "grads"), item, "list", line)
        refs[key] = TensorRef(item)


def _autograd_backward(
    importer: GraphBuilder, event: dict[str, Any], refs: Refs, names: Names
) -> None:
    line = event["line"]
    params: dict[str, Any] = {"create_graph": event["create_graph"]}
    if event["retain_graph"] is not None:
        params["retain_graph"] = event["retain_graph"]
    node = importer.add("torch.autograd.backward", params, names.here("autograd.backward"), line)
    _connect_all(importer, node, "tensors", event["tensors"], refs, line)
    _connect_all(importer, node, "grad_tensors", event["grad_tensors"], refs, line)


def _function(importer: GraphBuilder, event: dict[str, Any], refs: Refs, names: Names) -> None:
    line = event["line"]
    importer.no_grad = event.get("no_grad", False)
    inputs = event["inputs"] or []
    named, where = named_arguments(event["args"], len(inputs), event["source"], event["class_name"])
    params = {"class_name": event["class_name"], "source": event["source"], "args": named}
    out = event["out"]
    # a forward returning a tuple: one output port per tensor, each key its own port
    several = isinstance(out, list)
    if several:
        params["outputs"] = len(out)
    outputs = out if several else [out]
    first = next((k for k in outputs if names.fixed(k)), None)
    first = first or next((k for k in outputs if k in names.bases), None)
    label = names.of(first, f"{event['class_name']}.apply")
    node = importer.add("torch.autograd.Function", params, label, line)
    importer.no_grad = False
    for key, ports in zip(inputs, where, strict=True):
        for port, _ in ports:
            _connect_all(importer, node, port, [key], refs, line)
    if several:
        for index, key in enumerate(out):
            refs[key] = TensorRef(node, f"out{index}")
    elif out is not None:
        refs[out] = TensorRef(node)


def _hook(importer: GraphBuilder, event: dict[str, Any], refs: Refs, names: Names) -> None:
    """A hook whose code a node can hold (one that changes its gradient, or only looks):
    a node holding its code, wired to its tensor.  One that only looks at the program's
    state is left to ``left_out``; one that changes a gradient but cannot be held was
    refused when it fired."""
    if "source" not in event or event.get("target") is None:
        return
    line = event["line"]
    params = {"on": event["on"], "name": event["name"], "source": event["source"]}
    node = importer.add("gradstudio.hook", params, names.here(event["name"]), line)
    importer.connect(_ref(refs, event["target"], line), node, "tensor", line)


def left_out(events: list[dict[str, Any]]) -> list[str]:
    """What the import kept out of the document, one line each (the document's notes):
    hooks that only look at their gradient but use the program's state."""
    return [
        f"line {e['line']}: the {e.get('what', 'hook')} registered here only looks at its "
        f"gradient and is not in the document: {e.get('reason', 'its code cannot be held')}"
        for e in events
        if e.get("kind") == "hook" and not e.get("changes") and "source" not in e
    ]


ACTIONS: dict[str, Callable[[GraphBuilder, dict[str, Any], Refs, Names], None]] = {
    "to": _to,
    "getitem": _getitem,
    "setitem": _setitem,
    "set_data": _set_data,
    "grad": _grad,
    "autograd_backward": _autograd_backward,
    "function": _function,
    "hook": _hook,
}


class FrameGroups:
    """The recorder's frames as document groups: each node joins the frame of the event
    that made it; frames that hold no node (directly or inside) are left out."""

    def __init__(self, importer: GraphBuilder) -> None:
        self.frames: dict[str, dict[str, Any]] = {}
        self.members: dict[str, list[str]] = {}
        self.current: str | None = None
        add = importer.add

        def add_in_frame(type_id: str, params: dict[str, Any], label: str, line: Any) -> str:
            node = add(type_id, params, label, line)
            if self.current is not None:
                self.members.setdefault(self.current, []).append(node)
            return node

        importer.add = add_in_frame  # type: ignore[method-assign]

    def declare(self, event: dict[str, Any]) -> None:
        self.frames[event["id"]] = event

    def iterations(self, frame_id: str | None) -> list[str]:
        """The loop iterations ``frame_id`` is in, outermost first (a fold card counts
        as the last iteration it folded: what it carries is what that one left)."""
        chain: list[str] = []
        while frame_id is not None and frame_id in self.frames:
            frame = self.frames[frame_id]
            meta = frame.get("meta") or {}
            number = meta.get("iteration") or meta.get("last")
            if frame.get("frame_kind") == "loop" and number is not None:
                chain.append(str(number))
            frame_id = frame.get("parent")
        return chain[::-1]

    def groups(self) -> list[Group]:
        alive: set[str] = set()
        for frame_id in self.members:
            while frame_id is not None and frame_id not in alive:
                alive.add(frame_id)
                frame_id = self.frames[frame_id]["parent"]
        last = self._last_iterations(alive)
        return [
            Group(
                id=frame_id,
                title=one_line(frame["title"], MAX_TITLE) or frame_id,
                members=frozenset(self.members.get(frame_id, ())),
                kind=frame["frame_kind"],
                collapsed=bool(frame.get("collapsed", False))
                or (frame_id not in last and "iteration" in frame["meta"]),
                parent=frame["parent"],
                meta={k: str(v) for k, v in frame["meta"].items()},
            )
            for frame_id, frame in self.frames.items()
            if frame_id in alive
        ]

    def _last_iterations(self, alive: set[str]) -> set[str]:
        """The last recorded iteration of each loop: the one a learner reads first, open;
        the earlier ones start collapsed to a card each, so a loop opens as wide as one
        iteration rather than several (they expand with a double-click)."""
        last: dict[str, tuple[int, str]] = {}
        for frame_id, frame in self.frames.items():
            number = frame["meta"].get("iteration")
            if frame_id in alive and number is not None and frame.get("instance"):
                key = f"{frame['parent']}/{frame['instance']}"
                if key not in last or int(number) > last[key][0]:
                    last[key] = (int(number), frame_id)
        return {frame_id for _, frame_id in last.values()}
