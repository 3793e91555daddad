"""One evaluation's results: every step's result, and the state after any step
(``Snapshot``) answered from a per-tensor index of what each step changed."""

from __future__ import annotations

import operator
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from gradstudio.catalogue import PortType
from gradstudio.evaluation.facts import (
    BackwardTrace,
    GradFnFacts,
    OutputRef,
    StepError,
    StepResult,
    TensorFacts,
    waiting_text,
)
from gradstudio.evaluation.history import History, Overlay

if TYPE_CHECKING:
    from gradstudio.evaluation.plan import Plan, PlanStep


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
