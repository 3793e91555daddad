"""Running a plan's steps once on the engine (or a backend like it): each step's
outputs, what it changed, its backward trace, hooks fired, warnings and error.

``Runner`` runs the steps; the facts it reads are ``runner_facts``', the backward
traces ``runner_trace``'s.
"""

from __future__ import annotations

import time
import traceback
import warnings
from collections.abc import Callable
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from gradstudio.catalogue import (
    Effect,
    HookFiring,
    NodeInputError,
    NodeKind,
    NotTrustedError,
    PortType,
    RunCall,
)
from gradstudio.evaluation.budget import Ledger, MemoryBudgetError, out_of_memory_message
from gradstudio.evaluation.facts import OutputRef, StepError, StepResult, StepWarning
from gradstudio.evaluation.results import Evaluation
from gradstudio.evaluation.runner_trace import RunnerTrace, hook_log

if TYPE_CHECKING:
    from gradstudio.evaluation.plan import Plan, PlanStep


CancelCheck = Callable[[], bool]
Progress = Callable[[int, int], None]


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


class Runner(RunnerTrace):
    """Runs a plan once; keeps the live engine objects the facts are read from."""

    def __init__(self, plan: Plan, backend: Any) -> None:
        super().__init__()
        self.plan = plan
        self.backend = backend
        self.values: dict[tuple[str, str], Any] = {}
        graph = getattr(backend.autograd, "graph", None)
        self.observe = getattr(graph, "observe_backward", None)
        self.ledger = Ledger(plan.memory_budget)

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
                        stack.enter_context(hook_log(fired, trace_box[0]))
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
