"""Evaluation with a timeline: run the steps in order, record what PyTorch would report.

``prepare`` copies what evaluation needs out of the document (on the UI thread);
``Plan.run`` executes it (on a worker thread, cancellable, with progress).  After
every step the facts of every tensor are known: a step records only what it
changed (its new outputs; for steps that may touch anything — in-place ops,
backward — every tensor is re-read and compared).  ``Evaluation.snapshot(step)``
answers from a per-tensor index of those changes (``history``), so a position's
facts cost a lookup per tensor asked, and ``changed_between`` tells a view which
tensors to re-read when the position moves.  That keeps a re-evaluation linear in
the number of nodes and a scrub proportional to what changed.
"""

from __future__ import annotations

import functools
import operator
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from gradstudio.catalogue import (
    HOOK_LOG,
    Effect,
    HookFiring,
    NodeInputError,
    NodeKind,
    NodeType,
    NotTrustedError,
    PortType,
    RunCall,
)
from gradstudio.document.events import DocumentEvent, Unsubscribe
from gradstudio.evaluation.budget import DEFAULT_BUDGET, Ledger, MemoryBudgetError
from gradstudio.evaluation.history import History, Overlay

if TYPE_CHECKING:
    from gradstudio.document.model import Document

CancelCheck = Callable[[], bool]
Progress = Callable[[int, int], None]


# ------------------------------------------------------------------------- the facts


def same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """``np.array_equal`` (NaN equal to NaN in float arrays), with the common answers
    first: other shapes, or the same bytes of an integer, bool or float array (equal
    NaNs included); anything else (-0.0 against 0.0, other dtypes, complex numbers)
    asks NumPy.  A tensor's facts are compared after every step and between runs."""
    if a.shape != b.shape:
        return False
    kind = a.dtype.kind
    if a.dtype == b.dtype and kind in "biuf":
        if a is b or a.tobytes() == b.tobytes():
            return True
        if kind != "f":
            return False
    return bool(np.array_equal(a, b, equal_nan=kind == "f"))


class OutputRef(NamedTuple):
    """One tensor output of a node (``index`` picks an item of a list output).

    A named tuple: views look refs up per node on every scrub, and a tuple's hash
    and equality run in C.
    """

    node_id: str
    port: str = "out"
    index: int | None = None  # type: ignore[assignment]  # (shadows tuple.index, unused here)


@dataclass(frozen=True, eq=False)
class GradValue:
    """A tensor's value as plain data: a gradient, a saved tensor, an edge's gradient."""

    array: np.ndarray
    shape: tuple[int, ...]
    dtype: str
    device: str

    @property
    def value(self) -> Any:
        return self.array.tolist()

    def same_as(self, other: GradValue | None) -> bool:
        return (
            other is not None
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.device == other.device
            and same_values(self.array, other.array)
        )


@dataclass(frozen=True)
class NextFunction:
    """One entry of ``grad_fn.next_functions``: the node it leads to and the input index."""

    key: int
    name: str
    index: int


@dataclass(frozen=True, eq=False)
class SavedValue:
    """One ``_saved_*`` attribute of a grad_fn.

    ``kind``: ``tensor`` (``value`` is a GradValue), ``value`` (a number/tuple, its
    repr in ``value``), ``none``, ``freed`` (released by backward), ``modified``
    (changed in place since it was saved; ``value`` holds PyTorch's message).
    """

    name: str
    kind: str
    value: Any = None
    #: The graph output this saved tensor is (``w`` for ``_saved_self``), if any.
    ref: OutputRef | None = None

    def same_as(self, other: SavedValue) -> bool:
        if (self.name, self.kind) != (other.name, other.kind):
            return False
        if isinstance(self.value, GradValue):
            return self.value.same_as(other.value)
        return bool(self.value == other.value)


@dataclass(frozen=True, eq=False)
class GradFnFacts:
    key: int
    name: str
    next_functions: tuple[NextFunction | None, ...]
    saved: tuple[SavedValue, ...]
    #: For ``AccumulateGrad``: the graph output whose leaf it accumulates into.
    variable: OutputRef | None = None

    def same_as(self, other: GradFnFacts | None) -> bool:
        return (
            other is not None
            and (self.key, self.name, self.next_functions, self.variable)
            == (other.key, other.name, other.next_functions, other.variable)
            and len(self.saved) == len(other.saved)
            and all(a.same_as(b) for a, b in zip(self.saved, other.saved, strict=True))
        )


@dataclass(frozen=True, eq=False)
class TensorFacts:
    """What PyTorch reports about one tensor at one moment."""

    tensor_id: int  # equal for outputs that are the same tensor object
    array: np.ndarray
    shape: tuple[int, ...]
    dtype: str
    device: str
    requires_grad: bool
    is_leaf: bool
    grad_fn: GradFnFacts | None
    grad: GradValue | None
    retains_grad: bool
    version: int
    #: Reading ``.grad`` here warns in PyTorch (a non-leaf that does not retain grad).
    grad_access_warns: bool
    #: For a view (``._base`` set): the ``tensor_id`` of the tensor whose storage it
    #: shares, when that tensor was recorded before (memory counts the storage once).
    base_id: int | None = None

    @property
    def value(self) -> Any:
        return self.array.tolist()

    @property
    def grad_fn_name(self) -> str | None:
        return None if self.grad_fn is None else self.grad_fn.name

    @property
    def retained_grad(self) -> GradValue | None:
        """``.grad`` of a non-leaf that called ``retain_grad()``."""
        return self.grad if (not self.is_leaf and self.retains_grad) else None

    def same_as(self, other: TensorFacts | None) -> bool:
        if other is None:
            return False
        same_grad = (self.grad is None and other.grad is None) or (
            self.grad is not None and self.grad.same_as(other.grad)
        )
        same_fn = (self.grad_fn is None and other.grad_fn is None) or (
            self.grad_fn is not None and self.grad_fn.same_as(other.grad_fn)
        )
        return (
            (self.tensor_id, self.shape, self.dtype, self.device, self.requires_grad)
            == (other.tensor_id, other.shape, other.dtype, other.device, other.requires_grad)
            and (self.is_leaf, self.retains_grad, self.version, self.grad_access_warns)
            == (other.is_leaf, other.retains_grad, other.version, other.grad_access_warns)
            and same_grad
            and same_fn
            and same_values(self.array, other.array)
        )

    def to_json(self) -> dict[str, Any]:
        """The facts in the shape ``main.py run --json`` and exported scripts print."""
        fn = self.grad_fn
        return {
            "shape": list(self.shape),
            "dtype": self.dtype,
            "device": self.device,
            "requires_grad": self.requires_grad,
            "is_leaf": self.is_leaf,
            "grad_fn": None if fn is None else fn.name,
            "next_functions": None
            if fn is None
            else [None if n is None else [n.name, n.index] for n in fn.next_functions],
            "grad": None if self.grad is None else self.grad.value,
            "retains_grad": self.retains_grad,
            "version": self.version,
            "value": self.value,
        }


@dataclass(frozen=True)
class TraceExecution:
    """One grad_fn run by backward: gradients arriving (per output) and leaving (per edge).

    ``wrote`` holds the ``.grad`` this execution left on graph outputs: an
    ``AccumulateGrad`` on its leaf (every output holding that tensor), a grad_fn on
    the non-leaf outputs it made that retain grad (PyTorch's retain-grad hook fires
    as the gradient reaches the tensor, i.e. when its grad_fn runs).  A grad_fn runs
    once per backward, so the value is the one read when the step ended.
    """

    key: int
    name: str
    incoming: tuple[GradValue | None, ...]
    outgoing: tuple[tuple[NextFunction | None, GradValue | None], ...]
    wrote: tuple[tuple[OutputRef, GradValue | None], ...] = ()


@dataclass(frozen=True)
class BackwardTrace:
    """The grad_fn nodes one backward step ran, in order, with their gradients.

    ``keys`` is known at once; ``executions`` (the gradient values) is converted on
    first use, since only a replay in the UI looks at it.
    """

    node_id: str
    step: int
    keys: tuple[int, ...]
    _convert: Callable[[], tuple[TraceExecution, ...]] = field(repr=False, compare=False)
    #: grad_fn key -> the ``.grad`` it wrote (see ``TraceExecution.wrote``), read at once.
    wrote: dict[int, tuple[tuple[OutputRef, GradValue | None], ...]] = field(
        default_factory=dict, repr=False, compare=False
    )
    #: The hook nodes' functions that fired during this backward, in firing order.
    hooks: tuple[HookFiring, ...] = ()

    @functools.cached_property
    def executions(self) -> tuple[TraceExecution, ...]:
        return self._convert()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (from the evaluation process) with the gradient values converted:
        the live engine objects ``_convert`` reads stay behind."""
        ready = functools.partial(tuple, self.executions)
        return (BackwardTrace, (self.node_id, self.step, self.keys, ready, {}, self.hooks))


@dataclass(frozen=True)
class StepWarning:
    node_id: str
    step: int
    category: str
    message: str
    explanation: str | None = None


@dataclass(frozen=True)
class StepError:
    node_id: str
    step: int
    exc_type: str
    message: str  # PyTorch's (or the engine's) text
    title: str
    explanation: str
    fix: str
    traceback: str | None = None  # for errors inside custom Function code

    @classmethod
    def explained(
        cls, node_id: str, step: int, exc_type: str, message: str, tb: str | None = None
    ) -> StepError:
        """The error with its plain-language explanation attached."""
        from gradstudio.evaluation.explain import explain

        e = explain(message, exc_type)
        return cls(node_id, step, exc_type, message, e.title, e.explanation, e.fix, tb)

    def to_json(self, label: str) -> dict[str, Any]:
        return {
            "label": label,
            "step": self.step,
            "type": self.exc_type,
            "message": self.message,
            "title": self.title,
            "explanation": self.explanation,
            "fix": self.fix,
        }


@dataclass
class StepResult:
    step: int
    node_id: str
    status: str = "not run"  # "ok" | "error" | "waiting" | "not run"
    error: StepError | None = None
    #: A waiting step's unconnected required inputs (it waits for the user to wire them).
    missing: tuple[str, ...] = ()
    #: ... or the label of the waiting step it needs a value from.
    waits_for: str = ""
    warnings: list[StepWarning] = field(default_factory=list)
    changed: dict[OutputRef, TensorFacts | None] = field(default_factory=dict)
    grad_fns: dict[int, GradFnFacts] = field(default_factory=dict)
    trace: BackwardTrace | None = None
    seconds: float = 0.0


def waiting_text(missing: tuple[str, ...], waits_for: str) -> str:
    """What a waiting step asks of the learner, in every view's words."""
    if missing:
        noun = "input" if len(missing) == 1 else "inputs"
        return f"connect {noun} " + ", ".join(f"`{name}`" for name in missing)
    return f"waits for `{waits_for}`" if waits_for else ""


class Snapshot:
    """Every tensor's facts right after one step (``step == -1``: before any step).

    A view: the mappings answer from the evaluation's index, nothing is copied.
    """

    def __init__(
        self,
        step: int,
        facts: Mapping[OutputRef, TensorFacts | None],
        grad_fns: Mapping[int, GradFnFacts],
    ) -> None:
        self.step = step
        self._facts = facts
        self._grad_fns = grad_fns

    def facts(
        self, node_id: str, port: str = "out", index: int | None = None
    ) -> TensorFacts | None:
        """The facts of one output (None if it is None or has not run yet)."""
        return self._facts.get(OutputRef(node_id, port, index))

    def has(self, ref: OutputRef) -> bool:
        return ref in self._facts

    def items(self) -> list[tuple[OutputRef, TensorFacts | None]]:
        return list(self._facts.items())

    def grad_fn(self, key: int) -> GradFnFacts:
        return self._grad_fns[key]

    def grad_fns(self) -> Mapping[int, GradFnFacts]:
        return self._grad_fns

    def with_facts(self, replaced: Mapping[OutputRef, TensorFacts | None]) -> Snapshot:
        """This snapshot with some outputs' facts replaced (their keys must exist)."""
        return Snapshot(self.step, Overlay(self._facts, replaced), self._grad_fns)


class Evaluation:
    """The result of one evaluation: per step its result, errors and backward traces."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.device = plan.device
        self.steps = [StepResult(i, s.node_id) for i, s in enumerate(plan.steps)]
        self.cancelled = False
        self.seconds = 0.0
        self._cache: tuple[int, Snapshot] | None = None
        self._indexed: list[StepResult] = []  # the results the index below holds
        self._facts_index: History[OutputRef, TensorFacts | None] = History()
        self._fn_index: History[int, GradFnFacts] = History()

    @property
    def errors(self) -> list[StepError]:
        return [s.error for s in self.steps if s.error is not None]

    @property
    def ok(self) -> bool:
        """No step failed and the run was not stopped (a step waiting for an input the
        user has not wired yet is no failure: the graph is still being built)."""
        return not self.cancelled and all(s.status in ("ok", "waiting") for s in self.steps)

    @property
    def waiting(self) -> list[StepResult]:
        """The steps that wait for an input, in order (``missing`` or ``waits_for``)."""
        return [s for s in self.steps if s.status == "waiting"]

    @property
    def traces(self) -> list[BackwardTrace]:
        return [s.trace for s in self.steps if s.trace is not None]

    def error_for(self, node_id: str) -> StepError | None:
        return next((e for e in self.errors if e.node_id == node_id), None)

    def result_for(self, node_id: str) -> StepResult:
        return self.steps[self.plan.step_of[node_id]]

    def snapshot(self, step: int) -> Snapshot:
        """The state right after ``step`` (steps that did not run change nothing)."""
        step = min(step, len(self.steps) - 1)
        fresh = self.catch_up()
        if fresh and self._cache is not None and self._cache[0] == step:
            return self._cache[1]
        snap = Snapshot(step, self._facts_index.as_of(step), self._fn_index.as_of(step))
        self._cache = (step, snap)
        return snap

    def in_order(
        self, step: int
    ) -> tuple[Iterator[tuple[OutputRef, TensorFacts | None]], Iterator[tuple[int, GradFnFacts]]]:
        """Every output's facts and every grad_fn's right after ``step``, each in order
        of first appearance (the memory panel lists the first few): the items of the
        step's snapshot, which a scrub to that step has already made whole, so a
        position where the first few are far down costs no lookup per tensor."""
        snap = self.snapshot(step)
        return iter(snap._facts.items()), iter(snap._grad_fns.items())

    def catch_up(self) -> bool:
        """Bring the per-tensor index up to the finished steps (False: it changed).

        ``snapshot`` calls it; ``worker.run_plan`` calls it as each batch of results
        arrives, so the index is built while later steps still run, not all at the end.

        Results arrive in step order (a worker replaces its "not run" placeholders);
        a step is indexed once it has run, and a result replaced under it (rare: a
        test editing ``steps``) rebuilds the index.
        """
        done = self._indexed
        if len(done) > len(self.steps) or not all(map(operator.is_, done, self.steps[: len(done)])):
            done.clear()
            self._facts_index, self._fn_index = History(), History()
        before = len(done)
        for result in self.steps[len(done) :]:
            if result.status == "not run":
                break
            self._facts_index.add(result.step, result.changed)
            self._fn_index.add(result.step, result.grad_fns)
            done.append(result)
        return len(done) == before

    def changed_between(self, a: int, b: int) -> tuple[set[OutputRef], set[int]]:
        """The outputs and grad_fn keys whose facts differ between the states after
        steps ``a`` and ``b`` (either order; -1 is before any step): only what the
        steps between them changed."""
        lo, hi = (a, b) if a <= b else (b, a)
        refs: set[OutputRef] = set()
        keys: set[int] = set()
        for result in self.steps[max(lo + 1, 0) : hi + 1]:
            refs.update(result.changed)
            keys.update(result.grad_fns)
        return refs, keys

    @property
    def final(self) -> Snapshot:
        return self.snapshot(len(self.steps) - 1)

    def rows(self) -> list[tuple[str, OutputRef, TensorFacts | None]]:
        """One row per tensor output in the final state: (display label, ref, facts)."""
        snap = self.final
        rows = []
        for step in self.plan.steps:
            for ref, facts in _refs_of(step, snap):
                rows.append((self.plan.display_label(ref), ref, facts))
        return rows

    def to_json(self) -> dict[str, Any]:
        """``{"nodes": [...], "errors": [...], "waiting": [...]}``: ``main.py run --json``."""
        nodes = []
        for label, ref, facts in self.rows():
            row: dict[str, Any] = {"label": label, "node": ref.node_id}
            row.update(facts.to_json() if facts is not None else {"value": None})
            nodes.append(row)
        errors = [e.to_json(self.plan.labels[e.node_id]) for e in self.errors]
        waiting = [
            {
                "label": self.plan.labels[s.node_id],
                "step": s.step,
                "message": waiting_text(s.missing, s.waits_for),
            }
            for s in self.waiting
        ]
        return {"device": self.device, "nodes": nodes, "errors": errors, "waiting": waiting}


def _refs_of(step: PlanStep, snap: Snapshot) -> Iterator[tuple[OutputRef, TensorFacts | None]]:
    for port in step.type.outputs:
        if port.type is PortType.TENSORS:
            index = 0
            while snap.has(OutputRef(step.node_id, port.name, index)):
                ref = OutputRef(step.node_id, port.name, index)
                yield ref, snap.facts(ref.node_id, ref.port, index)
                index += 1
        else:
            ref = OutputRef(step.node_id, port.name)
            if snap.has(ref):
                yield ref, snap.facts(ref.node_id, ref.port)


# ------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class PlanStep:
    node_id: str
    label: str
    type: NodeType
    params: Mapping[str, Any]
    inputs: Mapping[str, tuple[tuple[str, str], ...]]  # port -> (src node, src port) in slot order


@dataclass(frozen=True)
class Plan:
    """An immutable copy of what evaluation needs from a document."""

    steps: tuple[PlanStep, ...]
    device: str
    seed: int
    trusted: bool
    labels: Mapping[str, str]
    step_of: Mapping[str, int]
    #: ``doc.revision`` when prepared: a result is current while the document's matches.
    revision: int = 0
    #: Bytes of tensor data the whole run may hold (``None``: no limit); see ``budget``.
    memory_budget: int | None = DEFAULT_BUDGET

    def display_label(self, ref: OutputRef) -> str:
        label = self.labels[ref.node_id]
        step = self.steps[self.step_of[ref.node_id]]
        if ref.index is not None:
            return f"{label}[{ref.index}]"
        if len(step.type.outputs) > 1:
            return f"{label}.{ref.port}"
        return label

    def run(
        self,
        cancel: CancelCheck | None = None,
        progress: Progress | None = None,
        backend: Any = None,
        on_step: Callable[[StepResult], None] | None = None,
    ) -> Evaluation:
        """Run every step; ``on_step`` sees each step's result as soon as it is final."""
        if backend is None:
            import engine as backend
        return _Runner(self, backend).run(cancel, progress, on_step)


def prepare(
    doc: Document, device: str | None = None, memory_budget: int | None = DEFAULT_BUDGET
) -> Plan:
    """Copy the document's steps, wiring and settings (cheap; call on the UI thread)."""
    wiring: dict[str, dict[str, list[tuple[int, str, str]]]] = {}
    for edge in doc.edges():
        ports = wiring.setdefault(edge.dst, {})
        ports.setdefault(edge.dst_port, []).append((edge.slot, edge.src, edge.src_port))
    steps = []
    for node in doc.nodes():
        inputs = wiring.get(node.id, {})
        steps.append(
            PlanStep(
                node.id,
                node.label,
                node.type,
                dict(node.params),
                {p: tuple((s, sp) for _, s, sp in sorted(v)) for p, v in inputs.items()},
            )
        )
    return Plan(
        steps=tuple(steps),
        device=device or doc.settings["device"],
        seed=doc.settings["seed"],
        trusted=doc.trusted,
        labels={n.id: n.label for n in doc.nodes()},
        step_of={s.node_id: i for i, s in enumerate(steps)},
        revision=doc.revision,
        memory_budget=memory_budget,
    )


def with_params(plan: Plan, doc: Document, node_ids: Iterable[str]) -> Plan:
    """``prepare(doc)``, made from ``plan`` (prepared from ``doc`` before) when only the
    parameters of ``node_ids`` changed since: editing a value copies one step, not the
    whole document (a 5,000-node graph takes tens of milliseconds to copy)."""
    steps = list(plan.steps)
    for node_id in node_ids:
        index = plan.step_of[node_id]
        steps[index] = replace(steps[index], params=dict(doc.node(node_id).params))
    return replace(plan, steps=tuple(steps), revision=doc.revision)


def evaluate(
    doc: Document,
    device: str | None = None,
    cancel: CancelCheck | None = None,
    progress: Progress | None = None,
    backend: Any = None,
    memory_budget: int | None = DEFAULT_BUDGET,
) -> Evaluation:
    """Evaluate the whole document now, in this process (``worker.run_plan`` runs a plan
    in a separate process that can be stopped whatever the user's code does)."""
    return prepare(doc, device, memory_budget).run(cancel, progress, backend)


# ----------------------------------------------------------------------- the runner


@contextmanager
def _hook_log(fired: list[HookFiring], trace: Any) -> Iterator[None]:
    """Hook nodes' firings during one backward step, each placed after the grad_fn
    executions the observer had seen when it fired."""

    def log(name: str, on: str, returned: str) -> None:
        before = len(getattr(trace, "executions", ()))
        fired.append(HookFiring(name, on, returned, before))

    HOOK_LOG.append(log)
    try:
        yield
    finally:
        HOOK_LOG.remove(log)


def missing_inputs(step: PlanStep) -> tuple[str, ...]:
    """The required inputs of a step that nothing feeds: no wire, and no number set for
    a port that takes one.  Such a step waits rather than fails: a node just added from
    the palette is not an error, it is a question of which input to connect."""
    missing = []
    for port in step.type.inputs:
        if port.optional or step.inputs.get(port.name):
            continue
        if port.scalar_ok and step.params.get(port.name) is not None:
            continue
        missing.append(port.name)
    return tuple(missing)


def _display_name(fn: Any) -> str:
    return str(fn.name()).removeprefix("torch::autograd::")


@functools.lru_cache(maxsize=64)
def _dtype_name(dtype: Any) -> str:
    return str(dtype).rsplit(".", 1)[-1]


@functools.lru_cache(maxsize=64)
def _device_name(device: Any) -> str:
    return str(device)


class _Runner:
    """Runs a plan once; keeps the live engine objects the facts are read from."""

    def __init__(self, plan: Plan, backend: Any) -> None:
        self.plan = plan
        self.backend = backend
        self.values: dict[tuple[str, str], Any] = {}
        self.live: dict[OutputRef, Any] = {}
        self.last: dict[OutputRef, TensorFacts | None] = {}
        self.owner: dict[int, OutputRef] = {}  # id(tensor) -> first output holding it
        self.keep: list[Any] = []  # keeps objects alive so their ids stay unique
        self.tensor_ids: dict[int, int] = {}
        self.dir_cache: dict[type, list[str]] = {}
        self.fn_next: dict[int, tuple[NextFunction | None, ...]] = {}
        self.fn_names: dict[int, str] = {}
        self.fn_tensors: dict[int, list[OutputRef]] = {}  # grad_fn key -> outputs it made
        self.fingerprints: dict[OutputRef, tuple[Any, ...]] = {}
        self.fn_keys: dict[int, int] = {}
        self.fn_objects: dict[int, Any] = {}
        self.fn_last: dict[int, GradFnFacts] = {}
        graph = getattr(backend.autograd, "graph", None)
        self.observe = getattr(graph, "observe_backward", None)
        self.ledger = Ledger(plan.memory_budget)

    # -- reading facts ---------------------------------------------------------

    def array_of(self, t: Any) -> np.ndarray:
        """A private copy of the tensor's values."""
        data = getattr(t, "_data", None)
        if type(data) is np.ndarray:  # the engine on the CPU: its array, no detached wrapper
            return np.array(data, copy=True)
        d = t.detach()
        if d.is_cuda:
            d = d.cpu()
        return np.array(d.numpy(), copy=True)

    def value_of(self, t: Any) -> GradValue:
        return GradValue(
            self.array_of(t),
            tuple(t.shape),
            _dtype_name(t.dtype),
            _device_name(t.device),
        )

    def fn_key(self, fn: Any) -> int:
        key = self.fn_keys.get(id(fn))
        if key is None:
            key = len(self.fn_keys)
            self.fn_keys[id(fn)] = key
            self.fn_objects[key] = fn
            self.keep.append(fn)
        return key

    def next_of(self, fn: Any) -> tuple[NextFunction | None, ...]:
        """``next_functions`` as facts (fixed for a grad_fn's life, so read once)."""
        key = self.fn_key(fn)
        nexts = self.fn_next.get(key)
        if nexts is None:
            nexts = self.fn_next[key] = tuple(
                None if nxt is None else NextFunction(self.fn_key(nxt), self.fn_name(nxt), index)
                for nxt, index in fn.next_functions
            )
        return nexts

    def fn_name(self, fn: Any) -> str:
        key = self.fn_key(fn)
        name = self.fn_names.get(key)
        if name is None:
            name = self.fn_names[key] = _display_name(fn)
        return name

    def saved_names(self, fn: Any) -> list[str]:
        """The ``_saved_*`` attributes, as torchviz lists them (engine nodes say directly)."""
        names = getattr(fn, "saved_names", None)
        if callable(names):
            return [f"_saved_{n}" for n in names()]
        cls = type(fn)
        if cls not in self.dir_cache:
            self.dir_cache[cls] = [a for a in dir(fn) if a.startswith("_saved_")]
        return self.dir_cache[cls]

    def saved_of(self, fn: Any) -> tuple[SavedValue, ...]:
        saved = []
        for name in self.saved_names(fn):
            short = name.removeprefix("_saved_")
            try:
                value = getattr(fn, name)
            except RuntimeError as exc:
                kind = "modified" if "inplace" in str(exc) else "freed"
                saved.append(SavedValue(short, kind, str(exc) if kind == "modified" else None))
                continue
            except AttributeError:
                continue
            if value is None:
                saved.append(SavedValue(short, "none"))
            elif hasattr(value, "grad_fn") and hasattr(value, "shape"):
                ref = self.owner.get(id(value))
                last = self.last.get(ref) if ref is not None else None
                if last is not None and last.version == value._version:
                    grad_value = GradValue(last.array, last.shape, last.dtype, last.device)
                else:
                    grad_value = self.value_of(value)
                saved.append(SavedValue(short, "tensor", grad_value, ref))
            else:
                saved.append(SavedValue(short, "value", repr(value)))
        return tuple(saved)

    def fn_facts(self, fn: Any) -> GradFnFacts:
        variable = getattr(fn, "variable", None)
        return GradFnFacts(
            key=self.fn_key(fn),
            name=self.fn_name(fn),
            next_functions=self.next_of(fn),
            saved=self.saved_of(fn),
            variable=None if variable is None else self.owner.get(id(variable)),
        )

    def capture_graph(self, fn: Any, result: StepResult) -> GradFnFacts:
        """Facts of ``fn`` and of every node behind it not yet recorded."""
        top = None
        stack = [fn]
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            key = self.fn_key(node)
            if key in seen:
                continue
            seen.add(key)
            if key in self.fn_last:
                facts = self.fn_last[key]
            else:
                facts = self.fn_facts(node)
                if not facts.same_as(self.fn_last.get(key)):
                    self.fn_last[key] = facts
                    result.grad_fns[key] = facts
                facts = self.fn_last[key]
                stack.extend(n for n, _ in node.next_functions if n is not None)
            if top is None:
                top = facts
        assert top is not None
        return top

    def fingerprint(self, t: Any) -> tuple[Any, ...]:
        """What a backward-like step can change about a tensor, read cheaply."""
        is_leaf, retains = t.is_leaf, t.retains_grad
        g = t.grad if (is_leaf or retains) else None
        grad = None if g is None else (id(g), g._version)
        return (t.requires_grad, is_leaf, retains, t._version, id(t.grad_fn), grad)

    def tensor_facts(
        self, t: Any, result: StepResult, array: np.ndarray | None = None
    ) -> TensorFacts:
        is_leaf = bool(t.is_leaf)
        retains = bool(t.retains_grad)
        grad = None
        if is_leaf or retains:
            g = t.grad
            grad = None if g is None else self.value_of(g)
        fn = t.grad_fn
        return TensorFacts(
            tensor_id=self.tensor_id(t),
            array=self.array_of(t) if array is None else array,
            shape=tuple(t.shape),
            dtype=_dtype_name(t.dtype),
            device=_device_name(t.device),
            requires_grad=bool(t.requires_grad),
            is_leaf=is_leaf,
            grad_fn=None if fn is None else self.capture_graph(fn, result),
            grad=grad,
            retains_grad=retains,
            version=int(t._version),
            grad_access_warns=not is_leaf and not retains,
            base_id=self.base_id(t),
        )

    def base_id(self, t: Any) -> int | None:
        base = getattr(t, "_base", None)
        return None if base is None else self.tensor_ids.get(id(base))

    def tensor_id(self, t: Any) -> int:
        key = self.tensor_ids.get(id(t))
        if key is None:
            key = self.tensor_ids[id(t)] = len(self.tensor_ids)
            self.keep.append(t)
        return key

    def record(self, ref: OutputRef, value: Any, result: StepResult) -> None:
        if value is not None and not (hasattr(value, "grad_fn") and hasattr(value, "shape")):
            return
        if value is not None and id(value) not in self.owner:
            self.owner[id(value)] = ref
            self.keep.append(value)
        self.live[ref] = value
        facts = None if value is None else self.tensor_facts(value, result)
        self.remember(ref, facts)
        result.changed[ref] = facts
        if facts is not None:
            self.fingerprints[ref] = self.fingerprint(value)

    def remember(self, ref: OutputRef, facts: TensorFacts | None) -> None:
        """``facts`` are now what ``ref`` shows; its grad_fn (which an in-place op may
        have changed since ``ref`` was made) will mark it stale when backward changes
        that node's facts (its saved values freed)."""
        self.last[ref] = facts
        if facts is not None and facts.grad_fn is not None:
            refs = self.fn_tensors.setdefault(facts.grad_fn.key, [])
            if ref not in refs:
                refs.append(ref)

    def refresh_grads(self, result: StepResult, fn_keys: set[int] | None) -> None:
        """After backward, autograd.grad, zero grads, retain_grad, requires_grad_.

        Tensor values cannot change here, so only a cheap fingerprint is compared
        (gradients by identity and version), and only the grad_fns backward ran are
        re-read (``None``: all of them).
        """
        stale: set[OutputRef] = set()
        keys = list(self.fn_objects) if fn_keys is None else fn_keys
        for key in keys:
            fn = self.fn_facts(self.fn_objects[key])
            if not fn.same_as(self.fn_last.get(key)):
                self.fn_last[key] = fn
                result.grad_fns[key] = fn
                stale.update(self.fn_tensors.get(key, ()))
        for ref, value in self.live.items():
            if value is None:
                continue
            fingerprint = self.fingerprint(value)
            if fingerprint == self.fingerprints.get(ref) and ref not in stale:
                continue
            last = self.last[ref]
            kept = last.array if last is not None and last.version == value._version else None
            facts = self.tensor_facts(value, result, kept)
            self.fingerprints[ref] = fingerprint
            if not facts.same_as(last):
                self.remember(ref, facts)
                result.changed[ref] = facts

    def refresh_all(self, result: StepResult) -> None:
        for key, fn in list(self.fn_objects.items()):
            fn_facts = self.fn_facts(fn)
            if not fn_facts.same_as(self.fn_last.get(key)):
                self.fn_last[key] = fn_facts
                result.grad_fns[key] = fn_facts
        for ref, value in self.live.items():
            if value is None:
                continue
            facts = self.tensor_facts(value, result)
            self.fingerprints[ref] = self.fingerprint(value)
            if not facts.same_as(self.last.get(ref)):
                self.remember(ref, facts)
                result.changed[ref] = facts

    # -- running -----------------------------------------------------------------

    def inputs_for(self, step: PlanStep) -> dict[str, Any]:
        inputs: dict[str, Any] = {}
        for port in step.type.inputs:
            sources = step.inputs.get(port.name, ())
            values = [self.values.get(src) for src in sources]
            for (src, src_port), value in zip(sources, values, strict=True):
                if value is None and (src, src_port) in self.values:
                    raise NodeInputError(
                        f"input {port.name!r} received None from '{self.plan.labels[src]}'"
                    )
            if port.variadic:
                inputs[port.name] = values
            else:
                inputs[port.name] = values[0] if values else None
        return inputs

    def wait(self, step: PlanStep, result: StepResult, waiting: dict[str, str]) -> bool:
        """Mark ``step`` waiting when a required input is not wired, or when it reads an
        output of a waiting step; ``waiting`` maps waiting node ids to the label of the
        step they wait for (their own, when the missing input is theirs)."""
        missing = missing_inputs(step)
        upstream = next(
            (
                waiting[src]
                for sources in step.inputs.values()
                for src, _ in sources
                if src in waiting
            ),
            "",
        )
        if not missing and not upstream:
            return False
        result.status = "waiting"
        result.missing = missing
        result.waits_for = "" if missing else upstream
        waiting[step.node_id] = step.label if missing else upstream
        return True

    def run(
        self,
        cancel: CancelCheck | None,
        progress: Progress | None,
        on_step: Callable[[StepResult], None] | None = None,
    ) -> Evaluation:
        ev = Evaluation(self.plan)
        waiting: dict[str, str] = {}
        total = len(self.plan.steps)
        started = time.perf_counter()
        if hasattr(self.backend, "manual_seed"):
            self.backend.manual_seed(self.plan.seed)
        for index, step in enumerate(self.plan.steps):
            if cancel is not None and cancel():
                ev.cancelled = True
                break
            if progress is not None:
                progress(index, total)
            result = ev.steps[index]
            if self.wait(step, result, waiting):
                if on_step is not None:
                    on_step(result)
                continue
            t0 = time.perf_counter()
            ok = self.run_step(index, step, result)
            result.seconds = time.perf_counter() - t0
            if on_step is not None:
                on_step(result)
            if not ok:
                break
        else:
            if progress is not None:
                progress(total, total)
        ev.seconds = time.perf_counter() - started
        return ev

    def run_step(self, index: int, step: PlanStep, result: StepResult) -> bool:
        node_type = step.type
        trace_box: list[Any] = []
        fired: list[HookFiring] = []
        caught: list[Any] = []
        try:
            with warnings.catch_warnings(record=True) as recorded:
                caught = recorded
                warnings.simplefilter("always")
                call = RunCall(
                    backend=self.backend,
                    device=self.plan.device,
                    inputs=self.inputs_for(step),
                    params=dict(step.params),
                    trusted=self.plan.trusted,
                    label=step.label,
                )
                self.ledger.before(step, call)
                with ExitStack() as stack:
                    if step.params.get("no_grad"):
                        stack.enter_context(self.backend.no_grad())
                    if node_type.kind is NodeKind.ACTION and self.observe is not None:
                        trace_box.append(stack.enter_context(self.observe()))
                        stack.enter_context(_hook_log(fired, trace_box[0]))
                    outputs = node_type.run(call)
                self.ledger.after(step, outputs)
        # a Function's code may raise SystemExit or KeyboardInterrupt: an error of its step
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            result.status = "error"
            result.error = self.error(index, step, exc)
            self.warnings(index, step, result, caught)
            return False
        self.warnings(index, step, result, caught)
        for port in node_type.outputs:
            value = outputs.get(port.name)
            self.values[(step.node_id, port.name)] = value
            if port.type is PortType.TENSORS:
                for i, item in enumerate(value or []):
                    self.record(OutputRef(step.node_id, port.name, i), item, result)
            else:
                self.record(OutputRef(step.node_id, port.name), value, result)
        if trace_box:
            result.trace = self.trace(index, step, trace_box[0], tuple(fired))
        if node_type.effect is Effect.GLOBAL:
            self.refresh_all(result)
        elif node_type.effect is Effect.GRADS:
            if result.trace is not None:
                executed: set[int] | None = set(result.trace.keys)
            else:
                executed = None if node_type.kind is NodeKind.ACTION else set()
            self.refresh_grads(result, executed)
        if result.trace is not None:
            result.trace.wrote.update(self.grad_writes(result.trace.keys))
        result.status = "ok"
        return True

    def warnings(self, index: int, step: PlanStep, result: StepResult, caught: list[Any]) -> None:
        if not caught:
            return  # most steps; and the import below stays off the per-step path
        # the explanations (a table of compiled patterns) load with the first warning
        # or error, not with the studio's window
        from gradstudio.evaluation.explain import explain_warning

        for w in caught:
            message = str(w.message)
            explained = explain_warning(message)
            result.warnings.append(
                StepWarning(
                    step.node_id,
                    index,
                    w.category.__name__,
                    message,
                    None if explained is None else explained.explanation,
                )
            )

    def error(self, index: int, step: PlanStep, exc: BaseException) -> StepError:
        from gradstudio.evaluation.budget import out_of_memory_message

        exc_type = type(exc).__name__
        message = str(exc) or exc_type
        if isinstance(exc, MemoryError) and not isinstance(exc, MemoryBudgetError):
            message = out_of_memory_message(step.label, exc, self.plan.memory_budget)
        elif isinstance(exc, SystemExit | KeyboardInterrupt):
            message = (
                f"the code raised {exc_type}({exc})" if str(exc) else f"the code raised {exc_type}"
            )
        tb = None
        if step.type.kind is NodeKind.CUSTOM_FUNCTION and not isinstance(exc, NotTrustedError):
            frames = [
                f
                for f in traceback.extract_tb(exc.__traceback__)
                if f.filename.startswith("<Function")
            ]
            if frames:
                tb = "".join(traceback.format_list(frames)) + f"{exc_type}: {message}"
            elif isinstance(exc, SyntaxError):
                tb = f"line {exc.lineno}: {exc.msg}"
        return StepError.explained(step.node_id, index, exc_type, message, tb)

    def trace(
        self, index: int, step: PlanStep, trace: Any, hooks: tuple[HookFiring, ...] = ()
    ) -> BackwardTrace:
        records = list(trace.executions)
        keys = tuple(self.fn_key(ex.node) for ex in records)

        def convert() -> tuple[TraceExecution, ...]:
            executions = []
            for key, ex in zip(keys, records, strict=True):
                nexts = self.next_of(ex.node)
                outgoing = tuple(
                    (nexts[i] if i < len(nexts) else None, self.grad_value(g))
                    for i, g in enumerate(ex.outgoing)
                )
                incoming = tuple(self.grad_value(g) for g in ex.incoming)
                wrote = written.get(key, ())
                executions.append(
                    TraceExecution(key, self.fn_name(ex.node), incoming, outgoing, wrote)
                )
            return tuple(executions)

        written: dict[int, tuple[tuple[OutputRef, GradValue | None], ...]] = {}
        return BackwardTrace(step.node_id, index, keys, convert, written, hooks)

    def grad_writes(
        self, keys: tuple[int, ...]
    ) -> dict[int, tuple[tuple[OutputRef, GradValue | None], ...]]:
        """Per executed grad_fn, the outputs whose ``.grad`` it writes, with the value.

        Called right after the backward step and its refresh, so ``self.last`` holds
        the ``.grad`` each execution left (no copy: the facts' own values).
        """
        holders: dict[int, list[OutputRef]] = {}  # id(tensor) -> outputs holding it
        retaining: dict[int, list[OutputRef]] = {}  # id(grad_fn) -> outputs retaining grad
        for ref, value in self.live.items():
            if value is None:
                continue
            holders.setdefault(id(value), []).append(ref)
            if value.grad_fn is not None and value.retains_grad:
                retaining.setdefault(id(value.grad_fn), []).append(ref)
        writes: dict[int, tuple[tuple[OutputRef, GradValue | None], ...]] = {}
        for key in set(keys):
            fn = self.fn_objects[key]
            variable = getattr(fn, "variable", None)
            refs = holders.get(id(variable), []) if variable is not None else []
            refs = refs + retaining.get(id(fn), [])
            if refs:
                writes[key] = tuple(
                    (ref, facts.grad if (facts := self.last.get(ref)) is not None else None)
                    for ref in refs
                )
        return writes

    def grad_value(self, g: Any) -> GradValue | None:
        """A gradient the backward observer recorded (already a private copy)."""
        if g is None:
            return None
        if hasattr(g, "detach"):
            arr = getattr(g, "_data", None)
            if type(arr) is not np.ndarray:  # not the engine's CPU array: ask the tensor
                d = g.detach()
                arr = d.cpu().numpy() if d.is_cuda else d.numpy()
            return GradValue(arr, tuple(g.shape), _dtype_name(g.dtype), _device_name(g.device))
        arr = np.asarray(g)
        return GradValue(np.array(arr, copy=True), tuple(arr.shape), str(arr.dtype), "cpu")


# -------------------------------------------------------------------- live results


class LiveEvaluation:
    """Keeps an evaluation of a document current: stale after any edit that matters."""

    def __init__(self, doc: Document, device: str | None = None, backend: Any = None) -> None:
        self.doc = doc
        self.device = device
        self.backend = backend
        self.result: Evaluation | None = None
        self.stale = True
        self._unsubscribe: Unsubscribe = doc.subscribe(self._changed)

    def _changed(self, event: DocumentEvent) -> None:
        if event.affects_evaluation:
            self.stale = True

    def refresh(self) -> Evaluation:
        if self.stale or self.result is None:
            self.result = evaluate(self.doc, self.device, backend=self.backend)
            self.stale = False
        return self.result

    def close(self) -> None:
        self._unsubscribe()
