"""How a tensor's ``.grad`` came to be, at one timeline position, in words and numbers.

Every fact comes from the evaluation (the engine's trace of the backward: the
gradient arriving at each grad_fn and leaving on each edge, the ``.grad`` each one
wrote); each grad_fn's local rule is the formula its op declares
(``engine.ops.formula``), shown with the learner's labels and that step's numbers.
The same explanation feeds ``main.py explain`` and the studio's Explain panel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.autograd.graph import AccumulateGrad
from gradstudio.evaluation.explain_grad_paths import MAX_PATHS, GradPath, GradPaths
from gradstudio.evaluation.explain_grad_rules import number
from gradstudio.evaluation.facts import (
    BackwardTrace,
    GradValue,
    OutputRef,
    TensorFacts,
    TraceExecution,
)
from gradstudio.evaluation.grad_fn_index import accumulate_key
from gradstudio.evaluation.results import Evaluation, Snapshot


class CannotExplain(ValueError):
    """A label or step that names nothing in the evaluation (said as one line)."""


@dataclass(frozen=True)
class GradExplanation:
    """The explanation of one tensor's ``.grad`` at one position."""

    target: str
    headline: str
    details: tuple[str, ...] = ()
    paths: tuple[GradPath, ...] = ()
    #: ``retain_grad``: inserting ``target.retain_grad()`` keeps the gradient.
    fix: str | None = None
    now: tuple[str, ...] = field(default=())  # during a replay: the running grad_fn

    def text(self) -> str:
        lines = [self.headline, *(f"  {d}" for d in self.details)]
        if self.now:
            lines += ["Now:", *(f"  {n}" for n in self.now)]
        if self.fix == "retain_grad":
            lines.append(
                f"Fix: call {self.target}.retain_grad() before backward (Insert retain_grad)"
            )
        return "\n".join(lines) + "\n"


def find_ref(evaluation: Evaluation, label: str) -> OutputRef:
    """The output a label names (a node's label, or ``label.port`` / ``label[i]``)."""
    plan = evaluation.plan
    snap = evaluation.final
    for ref, _ in snap.items():
        if ref.node_id in plan.labels and plan.display_label(ref) == label:
            return ref
    for node_id, name in plan.labels.items():
        if name == label:
            return OutputRef(node_id)
    known = ", ".join(sorted({plan.labels[r.node_id] for r, _ in snap.items()})[:12])
    raise CannotExplain(f"no tensor labelled {label!r} (tensors: {known})")


def _last_trace(ev: Evaluation, step: int) -> BackwardTrace | None:
    for s in range(step, -1, -1):
        trace = ev.steps[s].trace
        if trace is not None and trace.keys:  # (zeroing a grad records an empty one)
            return trace
    return None


class _Explainer(GradPaths):
    """One tensor's ``.grad`` explained: the headline, the paths' lines, where they
    meet, hooks and accumulation, and during a replay the grad_fn running now. The
    rules are ``explain_grad_rules``', the paths ``explain_grad_paths``'."""

    def explain(self) -> GradExplanation:
        snap = self.ev.snapshot(self.step)
        facts = snap.facts(self.ref.node_id, self.ref.port, self.ref.index)
        name = self.label
        if facts is None:
            return GradExplanation(
                name,
                f"{name} has no value at step {self.step + 1}: its step has not run (or gave None)",
            )
        trace = _last_trace(self.ev, self.step)
        if not facts.requires_grad:
            return GradExplanation(
                name,
                f"{name}.grad = None: {name} does not require grad, so autograd records "
                "nothing for it and backward never reaches it",
            )
        if trace is None:
            return GradExplanation(
                name, f"{name}.grad = None: no backward has run by step {self.step + 1}"
            )
        before = self.ev.snapshot(trace.step - 1) if trace.step > 0 else Snapshot(-1, {}, {})
        live = trace.step == self.step and self.replay is not None
        executions = trace.executions
        ran = executions[: self.replay] if live and self.replay is not None else executions
        if facts.is_leaf:
            sink = accumulate_key(before, facts)
        else:
            sink = facts.grad_fn.key if facts.grad_fn is not None else None
        by_key = {ex.key: ex for ex in executions}
        if sink is None or sink not in by_key:
            grad = "None" if facts.grad is None else number(facts.grad.array)
            return GradExplanation(
                name,
                f"{name}.grad = {grad}: the backward at step {trace.step + 1} did not reach "
                f"{name} (no path from its root leads to it)",
            )
        paths = self.paths(executions, sink, before)
        if executions[0].key == sink:
            paths = ()
            details = [
                f"{name} is the root of this backward: it starts with gradient "
                f"{self.value(executions[0].incoming[0] if executions[0].incoming else None)}"
            ]
        else:
            details = [self.path_line(p) for p in paths]
        if len(paths) >= MAX_PATHS:
            details.append(f"(the first {MAX_PATHS} paths; more reach {name})")
        elif len(paths) > 1 and all(p.share is not None for p in paths):
            shares = " + ".join(f"{number(p.share)} ({p.name})" for p in paths)
            total = number(np.sum([p.share for p in paths if p.share is not None], axis=0))
            details.append(f"the paths add up: {shares} = {total}")
        on_paths = {h.key for p in paths for h in p.hops} | {sink}
        details += self.meetings(executions, on_paths, before)
        details += self.notes(trace, by_key, sink, before, facts)
        now = self.now(ran, executions, before) if live else ()
        if not facts.is_leaf and not facts.retains_grad:
            reached = by_key[sink].incoming[0] if by_key[sink].incoming else None
            return GradExplanation(
                name,
                f"{name}.grad = None: {name} is not a leaf (it was made by "
                f"{facts.grad_fn_name}), and PyTorch keeps .grad only on leaves and on tensors "
                f"that called retain_grad(). The gradient {self.value(reached)} reached {name} "
                f"in the backward at step {trace.step + 1} and flowed on through "
                f"{facts.grad_fn_name} without being stored.",
                tuple(details),
                paths,
                "retain_grad",
                now,
            )
        cleared = self.cleared_by(trace.step, facts)
        if cleared is not None:
            return GradExplanation(
                name,
                f"{name}.grad = None: the backward at step {trace.step + 1} wrote it, then "
                f"step {cleared[0] + 1} '{cleared[1]}' set it to None",
                tuple(details),
                paths,
            )
        current = facts.grad if not live else self.grad_so_far(ran, before)
        headline = f"{name}.grad = {self.value(current)}"
        summary = self.summary(paths)
        old = before.facts(self.ref.node_id, self.ref.port, self.ref.index)
        if old is not None and old.grad is not None and facts.is_leaf and summary:
            summary = f"{self.value(old.grad)} (its .grad before) + {summary}"
        if summary and current is not None and not live:
            headline += f" = {summary}"
        if live and sink not in {ex.key for ex in ran}:
            headline += f" (so far: {len(ran)} of {len(executions)} grad_fns ran; "
            headline += f"{name}'s gradient has not arrived yet)"
        return GradExplanation(name, headline, tuple(details), paths, None, now)

    def cleared_by(self, backward: int, facts: TensorFacts) -> tuple[int, str] | None:
        """The step after the backward that set the tensor's ``.grad`` back to None."""
        if facts.grad is not None:
            return None
        for result in self.ev.steps[backward + 1 : self.step + 1]:
            changed = result.changed.get(self.ref)
            if self.ref in result.changed and (changed is None or changed.grad is None):
                return result.step, self.ev.plan.steps[result.step].label
        return None

    def grad_so_far(self, ran: tuple[TraceExecution, ...], before: Snapshot) -> GradValue | None:
        for ex in ran:
            for ref, g in ex.wrote:
                if ref == self.ref:
                    return g
        old = before.facts(self.ref.node_id, self.ref.port, self.ref.index)
        return None if old is None else old.grad

    def meetings(
        self, executions: tuple[TraceExecution, ...], keys: set[int], before: Snapshot
    ) -> list[str]:
        """Where edges meet on the paths: AccumulateGrad, or the input buffer of a
        grad_fn, sums them before it runs."""
        arriving: dict[int, list[tuple[int, str, GradValue | None]]] = {}
        for ex in executions:
            for nxt, g in ex.outgoing:
                if nxt is not None:
                    arriving.setdefault(nxt.key, []).append((ex.key, ex.name, g))
        lines = []
        for ex in executions:
            edges = arriving.get(ex.key, [])
            if len(edges) < 2 or ex.key not in keys:
                continue
            label = self.key_label(ex.key, before)
            where = (
                f"{label}'s AccumulateGrad"
                if ex.name == "AccumulateGrad"
                else f"the input buffer of {ex.name} ({label})"
            )
            terms = " + ".join(
                f"{self.value(g)} (from {n} of {self.key_label(k, before)})" for k, n, g in edges
            )
            total = self.value(ex.incoming[0] if ex.incoming else None)
            lines.append(f"paths meet at {where}: {terms} = {total}")
        return lines

    def notes(
        self,
        trace: BackwardTrace,
        by_key: dict[int, TraceExecution],
        sink: int,
        before: Snapshot,
        facts: TensorFacts,
    ) -> list[str]:
        lines = []
        arriving: dict[int, list[GradValue | None]] = {}
        for ex in by_key.values():
            for nxt, g in ex.outgoing:
                if nxt is not None:
                    arriving.setdefault(nxt.key, []).append(g)
        for hook in trace.hooks:
            lines.append(hook.text)
        for key, ex in by_key.items():
            edges = [g for g in arriving.get(key, []) if g is not None]
            if not edges or not ex.incoming or ex.incoming[0] is None:
                continue
            summed = np.sum([g.array for g in edges], axis=0) if len(edges) > 1 else edges[0].array
            if np.shape(summed) == ex.incoming[0].array.shape and not np.allclose(
                summed, ex.incoming[0].array, equal_nan=True
            ):
                lines.append(
                    f"a hook changed the gradient reaching {ex.name} of "
                    f"{self.key_label(key, before)}: {number(summed)} → "
                    f"{self.value(ex.incoming[0])}"
                )
        old = before.facts(self.ref.node_id, self.ref.port, self.ref.index)
        if facts.is_leaf and old is not None and old.grad is not None and sink in by_key:
            arrived = by_key[sink].incoming[0]
            total = self.value(facts.grad)
            lines.append(
                f"AccumulateGrad ({AccumulateGrad.formula}): {self.label}.grad was "
                f"{self.value(old.grad)} before this backward, so {self.value(old.grad)} + "
                f"{self.value(arrived)} = {total} (gradients accumulate until zeroed)"
            )
        step = self.ev.plan.steps[trace.step]
        if step.params.get("create_graph"):
            lines.append(
                "create_graph=True: this backward recorded its own computation as a graph, "
                f"so {self.label}.grad can be differentiated again (it requires grad where it "
                "depends on a tensor that does)"
            )
        lines.append(f"(the backward of step {trace.step + 1}, '{step.label}')")
        return lines

    def now(
        self,
        ran: tuple[TraceExecution, ...],
        executions: tuple[TraceExecution, ...],
        before: Snapshot,
    ) -> tuple[str, ...]:
        if not ran:
            return (f"replay at grad_fn 0 of {len(executions)}: backward has not started",)
        ex = ran[-1]
        got = ", ".join(self.value(g) for g in ex.incoming)
        lines = [f"grad_fn {len(ran)} of {len(executions)}: {ex.name} receives {got}"]
        for slot, (nxt, g) in enumerate(ex.outgoing):
            if nxt is None:
                continue
            grad = ex.incoming[0].array if ex.incoming and ex.incoming[0] is not None else None
            text, _ = self.rule(ex, slot, before, grad)
            lines.append(f"{text}; sends {self.value(g)} to {self.key_label(nxt.key, before)}")
        if ex.name == "AccumulateGrad" and ex.incoming:
            old = before.facts(self.ref.node_id, self.ref.port, self.ref.index)
            was = "0 (None)" if old is None or old.grad is None else self.value(old.grad)
            lines.append(
                f"AccumulateGrad: .grad = {AccumulateGrad.formula} = {was} + "
                f"{self.value(ex.incoming[0])}"
            )
        for ref, g in ex.wrote:
            lines.append(f"writes {self.ev.plan.display_label(ref)}.grad = {self.value(g)}")
        return tuple(lines)


def explain_gradient(
    evaluation: Evaluation, ref: OutputRef, step: int | None = None, replay: int | None = None
) -> GradExplanation:
    """How ``ref``'s ``.grad`` stands after ``step`` (0-based; None: the end) and, inside
    a backward step, after ``replay`` of its grad_fn executions."""
    n = len(evaluation.steps)
    if n == 0:
        raise CannotExplain("the document has no steps")
    if step is None or step < 0:
        step = n - 1
    if step >= n:
        raise CannotExplain(f"no step {step + 1}: the document has {n} steps")
    trace = evaluation.steps[step].trace
    if replay is not None and (trace is None or not 0 <= replay <= len(trace.executions)):
        replay = None
    return _Explainer(evaluation, ref, step, replay).explain()
