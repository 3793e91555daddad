"""One grad_fn's local rule for one edge, in the learner's words and numbers: the
formula its op declares (``engine.ops.formula``) with the tensors' labels, the values
they held before the backward, and the gradient the rule gives; a custom Function's
own ``backward`` where no formula is declared.

The base of the ``.grad`` explainer (``explain_grad``).
"""

from __future__ import annotations

import ast
import contextlib
import re
from typing import Any

import numpy as np

from engine.ops import formula
from gradstudio.evaluation.facts import (
    GradFnFacts,
    GradValue,
    OutputRef,
    TensorFacts,
    TraceExecution,
)
from gradstudio.evaluation.function_saved import argument_sources, saved_for_backward
from gradstudio.evaluation.grad_fn_index import GradFnIndex, index_for
from gradstudio.evaluation.results import Evaluation, Snapshot
from gradstudio.text import shape_text

CUSTOM_FUNCTION = "torch.autograd.Function"


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


class GradRules:
    """The labels, values and local rules of one explanation (the explainer's base)."""

    def __init__(self, ev: Evaluation, ref: OutputRef, step: int, replay: int | None) -> None:
        self.ev = ev
        self.ref = ref
        self.step = step
        self.replay = replay
        self.index: GradFnIndex = index_for(ev)
        self.label = ev.plan.display_label(ref)

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
