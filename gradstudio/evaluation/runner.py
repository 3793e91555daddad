"""Running a plan's steps once on the engine (or a backend like it): each step's
outputs, what it changed, its backward trace, hooks fired, warnings and error."""

from __future__ import annotations

import functools
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from gradstudio.catalogue import (
    HOOK_LOG,
    Effect,
    HookFiring,
    NodeInputError,
    NodeKind,
    NotTrustedError,
    PortType,
    RunCall,
)
from gradstudio.evaluation.budget import Ledger, MemoryBudgetError, out_of_memory_message
from gradstudio.evaluation.facts import (
    BackwardTrace,
    GradFnFacts,
    GradValue,
    NextFunction,
    OutputRef,
    SavedValue,
    StepError,
    StepResult,
    StepWarning,
    TensorFacts,
    TraceExecution,
)
from gradstudio.evaluation.results import Evaluation

if TYPE_CHECKING:
    from gradstudio.evaluation.plan import Plan, PlanStep


CancelCheck = Callable[[], bool]
Progress = Callable[[int, int], None]


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


class Runner:
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
