"""The playhead: one position on the timeline, and what is true there.

A learner scrubs through the steps of an evaluation and, inside a backward step,
replays its ``grad_fn`` executions one at a time.  Every view (canvas badges,
inspector, backward-graph view, timeline, status bar) shows that one position,
so the position and the answers to "what is true here" live in this one headless
object: views subscribe to its events and read it, and never derive their own
picture.  The facts inside a replay come from what the evaluation recorded per
execution (``TraceExecution.wrote``), not from a reconstruction.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, TypeVar, cast

from gradstudio.catalogue import HookFiring
from gradstudio.document.events import Observable
from gradstudio.evaluation.facts import (
    BackwardTrace,
    GradValue,
    OutputRef,
    TensorFacts,
    TraceExecution,
)
from gradstudio.evaluation.grad_fn_index import GradFnIndex, index_for
from gradstudio.evaluation.results import Evaluation, Snapshot
from gradstudio.evaluation.structure import same_structure
from gradstudio.instruments.diff import Change, diff
from gradstudio.instruments.memory import MemoryStep, carried_over, freed_by, memory

#: A gradient on the backward graph: ``("next", fn key, slot)`` leaves a grad_fn along
#: its slot-th ``next_functions`` edge; ``("acc", key)`` reaches an AccumulateGrad's
#: leaf; ``("out", key)`` arrives at a grad_fn from the tensor it made.
Flow = tuple
T = TypeVar("T")


@dataclass(frozen=True)
class PlayheadEvent:
    """Base of the playhead's events."""


@dataclass(frozen=True)
class EvaluationShown(PlayheadEvent):
    """The playhead now plays another evaluation (or none).

    It stands for a new position too (the step may have moved to the end): one event
    per evaluation, so that every view re-reads a new evaluation once, not twice.
    """


@dataclass(frozen=True)
class PositionChanged(PlayheadEvent):
    step: int
    replay: int | None


@dataclass(frozen=True)
class TraceAt:
    """The backward trace to show at a position, and how far it has run."""

    trace: BackwardTrace
    executed: tuple[TraceExecution, ...]  # run so far (all of them unless replaying)
    current: TraceExecution | None  # the one being executed (only while replaying)
    live: bool  # the trace belongs to the current step (else: the last backward before it)


@dataclass(frozen=True)
class Caption:
    """The position in words, for the timeline and the status bar."""

    step: str  # "step 3 / 7  (end)" or "no steps"
    node: str  # the label of the node run at the step
    node_type: str  # its type id
    replay: str  # "grad_fn 2 / 3: MulBackward0 → b" ("" outside a backward step)

    @property
    def text(self) -> str:
        """One line: the status bar's."""
        parts = [self.step]
        if self.node:
            parts.append(f"{self.node} ({self.node_type})")
        if self.replay:
            parts.append(self.replay)
        return " · ".join(parts)


class Playhead(Observable[PlayheadEvent]):
    """The timeline position of one studio, and the facts at it.

    ``step`` is -1 for "the end" (the last step; it follows re-runs after edits),
    ``replay`` counts the executions of the step's backward trace already run
    (``None``: all of them, the step as a whole).
    """

    def __init__(self) -> None:
        super().__init__()
        self.evaluation: Evaluation | None = None
        self.step = -1
        self.replay: int | None = None
        self._memo: dict[str, Any] = {}  # answers at the current position
        self._memo_key: tuple[int, int, int | None] | None = None
        #: The evaluation shown before this one (what "what changed" compares with).
        self.previous: Evaluation | None = None
        self._memory: tuple[Evaluation, list[MemoryStep]] | None = None
        self._changes: tuple[Evaluation, Evaluation, dict[str, tuple[Change, ...]]] | None = None
        self._flows: tuple[Evaluation | None, tuple | None, dict[Flow, GradValue | None]] | None = (
            None
        )

    def _memoised(self, name: str, compute: Callable[[], T]) -> T:
        """An answer computed once per position (views ask once per node)."""
        key = (id(self.evaluation), self.step, self.replay)
        if key != self._memo_key:
            self._memo, self._memo_key = {}, key
        if name not in self._memo:
            self._memo[name] = compute()
        return cast(T, self._memo[name])

    # -- changing it -----------------------------------------------------------
    def set_evaluation(self, evaluation: Evaluation | None) -> None:
        """Play another evaluation; the position stays where it still exists."""
        if evaluation is None:
            self.previous = None
        elif self.evaluation is not None and evaluation is not self.evaluation:
            self.previous = self.evaluation
        self.evaluation = evaluation
        self._memo_key = None
        if self.step >= self.step_count:
            self.step, self.replay = -1, None
        n = self.replay_length
        if self.replay is not None and (n == 0 or self.replay > n):
            self.replay = None  # the step has no replay of that length now
        self.emit(EvaluationShown())

    def relabel(self, node_id: str, label: str) -> None:
        """A node was renamed: the evaluation shown names it anew at once (a label
        changes nothing the engine computed, so there is nothing to re-run)."""
        ev = self.evaluation
        if ev is None or ev.plan.labels.get(node_id) in (None, label):
            return
        plan = ev.plan
        ev.plan = dataclasses.replace(
            plan,
            labels={**plan.labels, node_id: label},
            steps=tuple(
                dataclasses.replace(s, label=label) if s.node_id == node_id else s
                for s in plan.steps
            ),
        )
        self._memo_key = None
        self.emit(EvaluationShown())

    def set_position(self, step: int, replay: int | None = None) -> None:
        if (step, replay) != (self.step, self.replay):
            self.step, self.replay = step, replay
            self.emit(PositionChanged(step, replay))

    def go_to_step(self, step: int) -> None:
        """Show the state after ``step``; the last step means "the end"."""
        n = self.step_count
        if n == 0:
            return
        step = max(0, min(step, n - 1))
        self.set_position(-1 if step == n - 1 else step, None)

    def go_to_replay(self, replay: int) -> None:
        """Inside the current backward step: show it after ``replay`` executions."""
        n = self.replay_length
        if n == 0:
            return
        self.set_position(self.step, max(0, min(replay, n)))

    def positions(self) -> list[tuple[int, int | None]]:
        """Every position, in timeline order: each step, and inside a backward step
        each replay count from 0 to all (what a walk through the timeline visits)."""
        ev = self.evaluation
        if ev is None:
            return []
        out: list[tuple[int, int | None]] = []
        n = len(ev.steps)
        for i, result in enumerate(ev.steps):
            step = -1 if i == n - 1 else i
            out.append((step, None))
            if result.trace is not None and result.trace.executions:
                out.extend((step, r) for r in range(len(result.trace.executions) + 1))
        return out

    # -- where it is -------------------------------------------------------------
    @property
    def step_count(self) -> int:
        return 0 if self.evaluation is None else len(self.evaluation.steps)

    @property
    def effective_step(self) -> int:
        """The step shown (-1: no evaluation, or one without steps)."""
        n = self.step_count
        if n == 0:
            return -1
        return n - 1 if self.step < 0 else min(self.step, n - 1)

    @property
    def at_end(self) -> bool:
        return self.step < 0 or self.effective_step >= self.step_count - 1

    @property
    def shows_end(self) -> bool:
        """Whether what is shown is the end of the program: the last step, whole.  Inside
        a replay of the last backward that has not run all its grad_fns yet, the facts
        shown are not the end's, and no panel may say "(end)"."""
        return self.step < 0 and (self.replay is None or self.replay >= self.replay_length)

    @property
    def index(self) -> GradFnIndex | None:
        return None if self.evaluation is None else index_for(self.evaluation)

    @property
    def replay_length(self) -> int:
        """How many grad_fn executions the current step's backward trace has (0: none)."""
        trace = self._live_trace()
        return 0 if trace is None else len(trace.executions)

    @property
    def replayed(self) -> int:
        """Executions shown in the current backward step (all of them when not replaying)."""
        n = self.replay_length
        return n if self.replay is None else min(self.replay, n)

    def hooks_now(self) -> tuple[HookFiring, ...]:
        """The hook nodes' firings at the position: those of the grad_fn being executed
        while replaying, every one of the backward step otherwise."""
        trace = self._live_trace()
        if trace is None:
            return ()
        if self.replay is None:
            return trace.hooks
        return tuple(h for h in trace.hooks if h.before == self.replayed - 1)

    def _live_trace(self) -> BackwardTrace | None:
        step = self.effective_step
        if self.evaluation is None or step < 0:
            return None
        return self.evaluation.steps[step].trace

    # -- what is true there --------------------------------------------------------
    def snapshot(self) -> Snapshot | None:
        """Every tensor's facts at the position, a partly replayed backward included."""
        return self._memoised("snapshot", self._snapshot_now)

    def _snapshot_now(self) -> Snapshot | None:
        ev = self.evaluation
        step = self.effective_step
        if ev is None or step < 0:
            return None
        after = ev.snapshot(step)
        trace = ev.steps[step].trace
        if trace is not None and self.replay is not None and self.replay < len(trace.executions):
            return self._replayed(ev, step, after, trace, self.replay)
        return after

    @staticmethod
    def _replayed(
        ev: Evaluation, step: int, after: Snapshot, trace: BackwardTrace, replay: int
    ) -> Snapshot:
        """The step's snapshot with each ``.grad`` as the first ``replay`` executions left it."""
        grads: dict[OutputRef, GradValue | None] = {}
        for ex in trace.executions[:replay]:
            grads.update(ex.wrote)
        pending = {ref for ex in trace.executions[replay:] for ref, _ in ex.wrote}
        before = ev.snapshot(step - 1) if step > 0 else None
        for ref in pending - grads.keys():
            earlier = before.facts(ref.node_id, ref.port, ref.index) if before else None
            grads[ref] = None if earlier is None else earlier.grad
        replaced: dict[OutputRef, TensorFacts | None] = {}
        for ref, grad in grads.items():
            now = after.facts(ref.node_id, ref.port, ref.index)
            if now is not None and now.grad is not grad:
                replaced[ref] = dataclasses.replace(now, grad=grad)
        return after.with_facts(replaced)

    def facts(
        self, node_id: str, port: str = "out", index: int | None = None
    ) -> TensorFacts | None:
        """One tensor's facts at the position (None: None, or not run yet)."""
        snap = self.snapshot()
        return None if snap is None else snap.facts(node_id, port, index)

    def trace_at(self) -> TraceAt | None:
        """The trace of the current step, or of the last backward before it."""
        return self._memoised("trace_at", self._trace_at_now)

    def _trace_at_now(self) -> TraceAt | None:
        """A step ran a backward when its trace executed a grad_fn: an action that runs
        none (zeroing grads records an empty trace) shows the last real backward, as
        any other step after it does."""
        ev = self.evaluation
        step = self.effective_step
        if ev is None or step < 0:
            return None
        for s in range(step, -1, -1):
            trace = ev.steps[s].trace
            if trace is None or not trace.keys:
                continue
            live = s == step
            if live and self.replay is not None:
                executed = trace.executions[: self.replayed]
                return TraceAt(trace, executed, executed[-1] if executed else None, True)
            return TraceAt(trace, trace.executions, None, live)
        return None

    @property
    def current(self) -> TraceExecution | None:
        """The grad_fn execution the replay stands on (None outside a replay)."""
        at = self.trace_at()
        return None if at is None else at.current

    @property
    def executing_node(self) -> str | None:
        """The document node whose grad_fn is executing now (None: none, or op-internal)."""
        current = self.current
        index = self.index
        return None if current is None or index is None else index.node_for(current.key)

    def touched_nodes(self) -> frozenset[str]:
        """The nodes the executing grad_fn touches: its own node, the nodes whose
        ``.grad`` it writes, and the nodes of the grad_fns it sends gradients to."""
        return self._memoised("touched", self._touched_now)

    def _touched_now(self) -> frozenset[str]:
        current = self.current
        index = self.index
        if current is None or index is None:
            return frozenset()
        nodes = {ref.node_id for ref, _ in current.wrote}
        keys = [current.key] + [nxt.key for nxt, _ in current.outgoing if nxt is not None]
        nodes.update(n for k in keys if (n := index.node_for(k)) is not None)
        return frozenset(nodes)

    def nodes_changed_since(self, step: int, replay: int | None) -> set[str]:
        """The nodes whose facts may differ between position (``step``, ``replay``) of
        the evaluation shown and the position now: what a view re-reads after a scrub.

        Only the steps between the two positions (their nodes turn pending or done,
        and the outputs they changed) and, inside a replayed backward, the executions
        between the two replay counts: a scrub costs what it changes, not the graph.
        """
        ev = self.evaluation
        n = self.step_count
        if ev is None or n == 0:
            return set()
        old = n - 1 if step < 0 else min(step, n - 1)
        new = self.effective_step
        lo, hi = min(old, new), max(old, new)
        nodes: set[str] = set()
        node_of = itemgetter(0)  # an output ref's node id, read in C
        for result in ev.steps[max(lo + 1, 0) : hi + 1]:  # the outputs they changed
            nodes.update(map(node_of, result.changed))
        nodes.update(s.node_id for s in ev.plan.steps[lo + 1 : hi + 1])
        index = self.index
        for at, count in ((old, replay), (new, self.replay)):
            trace = ev.steps[at].trace
            if count is None or trace is None:
                continue
            # a replayed backward shows its own copy of every .grad the trace writes
            executions = trace.executions
            for ex in executions:
                nodes.update(ref.node_id for ref, _ in ex.wrote)
            if index is not None and 0 < count <= len(executions):
                ex = executions[count - 1]  # the execution shown as running there
                keys = [ex.key] + [nxt.key for nxt, _ in ex.outgoing if nxt is not None]
                nodes.update(k for k in map(index.node_for, keys) if k is not None)
        return nodes

    def edge_gradients(self) -> dict[Flow, GradValue | None]:
        """The gradient that has flowed along every backward-graph edge by now.

        The same dict (do not change it) at every position that has run the same
        executions of the same trace: views compare it by identity, and a scrub
        across forward steps after a backward re-reads nothing.
        """
        at = self.trace_at()
        key = None if at is None else (id(at.trace), len(at.executed))
        cached = self._flows
        if cached is not None and cached[0] is self.evaluation and cached[1] == key:
            return cached[2]
        flows = self._edge_gradients(at)
        self._flows = (self.evaluation, key, flows)
        return flows

    @staticmethod
    def _edge_gradients(at: TraceAt | None) -> dict[Flow, GradValue | None]:
        flows: dict[Flow, GradValue | None] = {}
        for ex in at.executed if at is not None else ():
            for slot, (nxt, grad) in enumerate(ex.outgoing):
                if nxt is not None:
                    flows[("next", ex.key, slot)] = grad
            if ex.incoming:
                flows[("acc", ex.key)] = ex.incoming[0]
                flows[("out", ex.key)] = ex.incoming[0]
        return flows

    def current_flows(self) -> frozenset[Flow]:
        """The edges the executing grad_fn reads and writes (drawn strong)."""
        current = self.current
        if current is None:
            return frozenset()
        flows: set[Flow] = {("next", current.key, s) for s in range(len(current.outgoing))}
        return frozenset(flows | {("acc", current.key), ("out", current.key)})

    def caption(self) -> Caption:
        ev = self.evaluation
        n = self.step_count
        if ev is None or n == 0:
            return Caption("no steps", "", "", "")
        step = self.effective_step
        plan_step = ev.plan.steps[step]
        step_text = f"step {step + 1} / {n}" + ("  (end)" if self.shows_end else "")
        return Caption(step_text, plan_step.label, plan_step.type.id, self._replay_text())

    def _replay_text(self) -> str:
        n = self.replay_length
        if n == 0:
            return ""
        hooks = self.hooks_now()
        if self.replay is None:
            fired = f", {len(hooks)} hook call{'s' if len(hooks) != 1 else ''}" if hooks else ""
            return f"backward ran {n} grad_fn node{'s' if n != 1 else ''}{fired}"
        current = self.current
        if current is None:
            return f"grad_fn 0 / {n}: backward about to start"
        owner = self.executing_node
        index = self.index
        where = f" → {index.label(owner)}" if owner is not None and index is not None else ""
        return " · ".join(
            [f"grad_fn {self.replayed} / {n}: {current.name}{where}", *(h.text for h in hooks)]
        )

    # -- instruments -------------------------------------------------------------
    def memory_steps(self) -> list[MemoryStep]:
        """Bytes held after every step of the evaluation shown (``instruments.memory``),
        computed once per evaluation: the timeline's strip and the inspector read these.
        A re-run that changed values alone holds the same bytes: its numbers carry over."""
        ev = self.evaluation
        if ev is None:
            return []
        before = self._memory
        if before is None or before[0] is not ev:
            if before is not None and same_structure(before[0], ev):
                self._memory = (ev, carried_over(before[1], ev))
            else:
                self._memory = (ev, memory(ev))
        return self._memory[1] if self._memory is not None else []

    def memory_now(self) -> MemoryStep | None:
        """The memory picture at the position (None: no evaluation, or a step that
        did not run)."""
        steps = self.memory_steps()
        step = self.effective_step
        return steps[step] if 0 <= step < len(steps) else None

    def freed_now(self) -> int:
        """Saved-tensor bytes the step at the position released."""
        return freed_by(self.memory_steps(), self.effective_step)

    def changes(self) -> dict[str, tuple[Change, ...]]:
        """``{node_id: changes}`` from the evaluation shown before to the one shown now
        (empty when there is no earlier one: the first run of a document)."""
        ev, before = self.evaluation, self.previous
        if ev is None or before is None:
            return {}
        cached = self._changes
        if cached is None or cached[0] is not before or cached[1] is not ev:
            cached = self._changes = (before, ev, diff(before, ev))
        return cached[2]
