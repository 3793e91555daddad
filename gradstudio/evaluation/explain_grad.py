"""How a tensor's ``.grad`` came to be, at one timeline position, in words and numbers.

Every fact comes from the evaluation (the engine's trace of the backward: the
gradient arriving at each grad_fn and leaving on each edge, the ``.grad`` each one
wrote); each grad_fn's local rule is the formula its op declares
(``engine.ops.formula``), shown with the learner's labels and that step's numbers.
The same explanation feeds ``main.py explain`` and the studio's Explain panel.
"""

from __future__ import annotations

import ast
import contextlib
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.autograd.graph import AccumulateGrad
from engine.ops import formula
from gradstudio.evaluation.facts import (
    BackwardTrace,
    GradFnFacts,
    GradValue,
    OutputRef,
    TensorFacts,
    TraceExecution,
)
from gradstudio.evaluation.function_saved import argument_sources, saved_for_backward
from gradstudio.evaluation.grad_fn_index import GradFnIndex, accumulate_key, index_for
from gradstudio.evaluation.results import Evaluation, Snapshot
from gradstudio.text import shape_text

MAX_PATHS = 24
CUSTOM_FUNCTION = "torch.autograd.Function"


class CannotExplain(ValueError):
    """A label or step that names nothing in the evaluation (said as one line)."""


@dataclass(frozen=True)
class Hop:
    """One edge of a path: ``grad_fn`` sends a gradient along its ``slot``-th edge."""

    grad_fn: str
    key: int
    slot: int
    rule: str  # "MulBackward0: ∂y/∂a = b = 2" (the rule with its numbers)
    gradient: GradValue | None  # what the engine sent on the edge (all paths through it)


@dataclass(frozen=True)
class GradPath:
    name: str  # "a-path": named by the first tensor it passes
    hops: tuple[Hop, ...]
    #: This path's share of the gradient (the formulas chained), None where a grad_fn
    #: on it declares no formula.
    share: np.ndarray | None


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


def number(value: Any) -> str:
    """``5`` for 5.0, ``[2, 2.5]`` for a vector; long tensors end with ``…``."""
    arr = np.asarray(value)
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)

    def one(x: Any) -> str:
        if isinstance(x, float | np.floating):
            return np.format_float_positional(x, precision=6, trim="-", unique=True)
        return str(x)

    if arr.size == 1:
        return one(arr.reshape(()).item())
    flat = [one(x) for x in arr.reshape(-1)[:6].tolist()]
    more = ", …" if arr.size > 6 else ""
    shape = f" (shape {shape_text(arr.shape)})" if arr.ndim > 1 else ""
    return "[" + ", ".join(flat) + more + "]" + shape


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


def _atom(label: str) -> str:
    """A label as one operand of a formula: ``h * h`` in parentheses; ``w.t()``,
    ``(h * h).mean()`` and ``x`` as they are."""
    try:
        tree = ast.parse(label, mode="eval").body
    except SyntaxError:
        return f"({label})"
    atomic = ast.Name | ast.Attribute | ast.Call | ast.Subscript | ast.Constant
    return label if isinstance(tree, atomic) else f"({label})"


def _constant(expr: str) -> bool:
    """A rule that is a plain number (``1``): its value needs no second writing."""
    try:
        ast.literal_eval(expr)
    except (ValueError, SyntaxError):
        return False
    return True


class _Explainer:
    def __init__(self, ev: Evaluation, ref: OutputRef, step: int, replay: int | None) -> None:
        self.ev = ev
        self.ref = ref
        self.step = step
        self.replay = replay
        self.index: GradFnIndex = index_for(ev)
        self.label = ev.plan.display_label(ref)

    # -- labels and values -----------------------------------------------------
    def key_label(self, key: int, before: Snapshot) -> str:
        fn = before.grad_fn(key) if key in before.grad_fns() else None
        if fn is not None and fn.variable is not None:
            return self.ev.plan.display_label(fn.variable)
        node = self.index.node_for(key)
        if node is not None:
            return self.ev.plan.labels[node]
        if fn is None:
            return "(an op-internal tensor)"
        op = re.sub(r"Backward\d*$", "", fn.name).lower()  # an op-internal node: t(weight)
        args = ", ".join(self.key_label(n.key, before) for n in fn.next_functions if n is not None)
        return f"{op}({args})"

    def owner_facts(self, key: int, before: Snapshot) -> TensorFacts | None:
        node = self.index.node_for(key)
        if node is None:
            return None
        for ref, facts in before.items():
            if (
                ref.node_id == node
                and facts is not None
                and facts.grad_fn is not None
                and facts.grad_fn.key == key
            ):
                return facts
        return None

    def env_of(self, fn: GradFnFacts, before: Snapshot, inputs: tuple[str, ...]) -> dict[str, Any]:
        env: dict[str, Any] = {}
        node = self.index.node_for(fn.key)
        if node is not None:
            params = self.ev.plan.steps[self.ev.plan.step_of[node]].params
            env.update({k: v for k, v in params.items() if isinstance(v, int | float)})
        for i, nxt in enumerate(fn.next_functions[: len(inputs)]):
            if nxt is None:
                continue
            facts = self.input_facts(nxt.key, before)
            if facts is not None:
                env[inputs[i]] = facts.array
        own = self.owner_facts(fn.key, before)
        if own is not None:
            env["result"] = own.array
        for saved in fn.saved:
            if saved.kind == "tensor" and isinstance(saved.value, GradValue):
                env[saved.name] = saved.value.array
            elif saved.kind == "value":
                with contextlib.suppress(ValueError, SyntaxError):
                    env[saved.name] = ast.literal_eval(str(saved.value))
        return env

    def input_facts(self, key: int, before: Snapshot) -> TensorFacts | None:
        fn = before.grad_fn(key) if key in before.grad_fns() else None
        if fn is not None and fn.variable is not None:
            v = fn.variable
            return before.facts(v.node_id, v.port, v.index)
        return self.owner_facts(key, before)

    # -- one rule ----------------------------------------------------------------
    def rule(
        self, ex: TraceExecution, slot: int, before: Snapshot, grad: Any
    ) -> tuple[str, np.ndarray | None]:
        """The grad_fn's rule for one edge, with numbers; and the gradient it gives
        ``grad`` by the formula (None where no formula is declared)."""
        fn = before.grad_fn(ex.key) if ex.key in before.grad_fns() else None
        declared = formula.rules(ex.name)
        nxt, sent = ex.outgoing[slot]
        if fn is None or declared is None or nxt is None:
            return self.undeclared(ex, slot, before), None
        inputs, rules = declared
        if slot >= len(inputs) or inputs[slot] not in rules:
            return f"{ex.name}: sends {self.value(sent)}", None
        expr = rules[inputs[slot]]
        labels = {
            name: _atom(self.key_label(n.key, before))
            for name, n in zip(inputs, fn.next_functions, strict=False)
            if n is not None
        }
        labels["result"] = _atom(self.key_label(ex.key, before))
        for saved in fn.saved:
            if saved.ref is not None:
                labels.setdefault(saved.name, _atom(self.ev.plan.display_label(saved.ref)))
        out_label = labels["result"]
        env = self.env_of(fn, before, inputs)
        for operand, value in env.items():  # a constant without a label: its number (b = a * 2)
            if operand in inputs and operand not in labels and np.size(value) == 1:
                labels[operand] = number(value)
        text = formula.rule_text(expr, out_label, labels.get(inputs[slot], inputs[slot]), labels)
        shape = tuple(sent.shape) if sent is not None else None
        try:
            if formula.is_local(expr) and not _constant(expr):
                value = number(formula.evaluate(expr, env))
                text += "" if text.endswith(f" = {value}") else f" = {value}"
            share = (
                None if shape is None or grad is None else formula.gradient(expr, env, grad, shape)
            )
            if not formula.is_local(expr) and share is not None:
                text += f" = {number(share)}"
        except (formula.FormulaError, ValueError, TypeError):
            share = None
        return f"{ex.name}: {text}", share

    def undeclared(self, ex: TraceExecution, slot: int, before: Snapshot) -> str:
        node = self.index.node_for(ex.key)
        step = None if node is None else self.ev.plan.steps[self.ev.plan.step_of[node]]
        incoming = ", ".join(self.value(g) for g in ex.incoming)
        sent = ", ".join(self.value(g) for _, g in ex.outgoing)
        if step is not None and step.type.id == CUSTOM_FUNCTION:
            saved = self.function_saved(step, before)
            return f"{ex.name}: your backward(ctx, {incoming}) returned ({sent})" + (
                f"; saved: {saved}" if saved else ""
            )
        return f"{ex.name}: received {incoming}, sent ({sent}) (no formula declared)"

    def function_saved(self, step: Any, before: Snapshot) -> str:
        sources = argument_sources(step.params.get("args") or [], step.inputs)
        parts = []
        for saved in saved_for_backward(str(step.params.get("source", ""))):
            kind, i = saved.origin
            if kind == "input" and i < len(sources) and isinstance(sources[i], tuple):
                node, port = sources[i]
                facts = before.facts(node, port)
                value = "" if facts is None else f" = {number(facts.array)}"
                parts.append(f"{saved.name} = {self.ev.plan.labels.get(node, node)}{value}")
            elif kind == "output":
                facts = before.facts(step.node_id, "out")
                value = "" if facts is None else f" = {number(facts.array)}"
                parts.append(f"{saved.name} = {step.label}{value}")
            else:
                parts.append(f"{saved.name} (made inside forward)")
        return ", ".join(parts)

    @staticmethod
    def value(g: GradValue | None) -> str:
        return "None" if g is None else number(g.array)

    # -- the whole explanation -----------------------------------------------------
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

    def paths(
        self, executions: tuple[TraceExecution, ...], sink: int, before: Snapshot
    ) -> tuple[GradPath, ...]:
        by_key = {ex.key: ex for ex in executions}
        root = executions[0]
        found: list[list[tuple[TraceExecution, int]]] = []

        reaches = {sink}  # the grad_fns with a path to the sink: the walk enters no other
        for ex in reversed(executions):  # (backward runs a node before those it feeds)
            if any(n is not None and n.key in reaches for n, _ in ex.outgoing):
                reaches.add(ex.key)

        def walk(ex: TraceExecution, trail: list[tuple[TraceExecution, int]]) -> None:
            if len(found) >= MAX_PATHS:
                return
            if ex.key == sink:
                found.append(list(trail))
                return
            for slot, (nxt, _) in enumerate(ex.outgoing):
                if nxt is not None and nxt.key in by_key and nxt.key in reaches:
                    walk(by_key[nxt.key], [*trail, (ex, slot)])

        walk(root, [])
        edges_into: dict[int, int] = {}
        for ex in executions:
            for nxt, _ in ex.outgoing:
                if nxt is not None:
                    edges_into[nxt.key] = edges_into.get(nxt.key, 0) + 1
        out: list[GradPath] = []
        names = [self.path_name(trail, before) for trail in found]
        for trail, name in zip(found, names, strict=True):
            grad: Any = None
            hops = []
            whole = True  # every rule on the path declared: ``grad`` is the path's share
            merged = False  # passed a buffer where other paths joined in
            for ex, slot in trail:
                merged = merged or edges_into.get(ex.key, 0) > 1
                if not merged and ex.incoming and ex.incoming[0] is not None:
                    grad = ex.incoming[0].array  # all of it is this path's (after any hook)
                elif self.hooked(ex, executions):
                    whole = False  # a hook changed a sum: no share of it is any one path's
                text, grad = self.rule(ex, slot, before, grad)
                sent = ex.outgoing[slot][1]
                if grad is None:  # go on from what the engine sent on this edge
                    whole = False
                    grad = None if sent is None else sent.array
                hops.append(Hop(ex.name, ex.key, slot, text, sent))
            out.append(GradPath(name, tuple(hops), grad if whole else None))
        return tuple(self.distinct_names(out))

    def distinct_names(self, paths: list[GradPath]) -> list[GradPath]:
        """Paths of one name (``h * h`` reaches ``h`` twice) told apart by the first
        edge that is theirs alone."""
        out = []
        for p in paths:
            twins = [q for q in paths if q.name == p.name]
            if len(twins) == 1:
                out.append(p)
                continue
            shared = set.intersection(*({(h.key, h.slot) for h in q.hops} for q in twins))
            own = next((h for h in p.hops if (h.key, h.slot) not in shared), p.hops[-1])
            out.append(GradPath(f"{p.name} ({self.operand(own)})", p.hops, p.share))
        return out

    def path_name(self, trail: list[tuple[TraceExecution, int]], before: Snapshot) -> str:
        first = trail[0][0].outgoing[trail[0][1]][0] if trail else None
        return f"{self.key_label(first.key, before) if first is not None else self.label}-path"

    @staticmethod
    def operand(hop: Hop) -> str:
        declared = formula.rules(hop.grad_fn)
        if declared is not None and hop.slot < len(declared[0]):
            return f"as {declared[0][hop.slot]} of {hop.grad_fn}"
        return f"edge {hop.slot} of {hop.grad_fn}"

    @staticmethod
    def hooked(ex: TraceExecution, executions: tuple[TraceExecution, ...]) -> bool:
        arriving = [
            g.array
            for e in executions
            for n, g in e.outgoing
            if n is not None and n.key == ex.key and g is not None
        ]
        if not arriving or not ex.incoming or ex.incoming[0] is None:
            return False
        total = np.sum(arriving, axis=0)
        return total.shape != ex.incoming[0].array.shape or not np.allclose(
            total, ex.incoming[0].array, equal_nan=True
        )

    def path_line(self, path: GradPath) -> str:
        hops = " · ".join(f"({h.rule})" for h in path.hops)
        share = "" if path.share is None else f" → {number(path.share)}"
        edges = ", ".join(self.value(h.gradient) for h in path.hops)
        return f"{path.name}: {hops}{share}   [gradient on its edges: {edges}]"

    def summary(self, paths: tuple[GradPath, ...]) -> str:
        if not paths:
            return ""
        return " + ".join(f"{p.name} " + " · ".join(f"({h.rule})" for h in p.hops) for p in paths)

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
