"""What an edit changed: the facts that differ between two evaluations of a document.

``diff(previous, new)`` matches outputs by node id (a node keeps its id through
edits), compares each output's final facts and each node's error, and returns,
per node, the changes as ``(fact, before, after)`` in plain data (bools, names,
nested lists, ``None``) for a view to highlight and list.  Flip ``requires_grad``,
insert a ``detach``, wrap a step in ``no_grad`` or add ``retain_grad`` and this is
the list of consequences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gradstudio.evaluation.facts import GradValue, OutputRef, TensorFacts, same_values
from gradstudio.evaluation.results import Evaluation

#: The facts compared, in the order they are listed.
FACTS = ("tensor", "requires_grad", "is_leaf", "grad_fn", "retains_grad", "grad", "value")


@dataclass(frozen=True)
class Change:
    ref: OutputRef | None  # None for the node's error
    tensor: str  # the output's display label
    fact: str  # one of FACTS, or "error"
    before: Any
    after: Any


def diff(previous: Evaluation, new: Evaluation) -> dict[str, tuple[Change, ...]]:
    """``{node_id: changes}`` for every node whose outputs or error changed."""
    old_rows, new_rows = _final_facts(previous), _final_facts(new)
    changes: dict[str, list[Change]] = {}
    for ref in [*new_rows, *(r for r in old_rows if r not in new_rows)]:
        before = old_rows.get(ref, _ABSENT)
        after = new_rows.get(ref, _ABSENT)
        found = _fact_changes(before, after)
        if found:
            label = (new if ref in new_rows else previous).plan.display_label(ref)
            changes.setdefault(ref.node_id, []).extend(
                Change(ref, label, fact, x, y) for fact, x, y in found
            )
    node_ids = {s.node_id for s in previous.plan.steps} | {s.node_id for s in new.plan.steps}
    errors_before, errors_now = _errors(previous), _errors(new)
    for node_id in node_ids:
        x, y = errors_before.get(node_id), errors_now.get(node_id)
        if x != y:
            labels = new.plan.labels if node_id in new.plan.labels else previous.plan.labels
            changes.setdefault(node_id, []).append(Change(None, labels[node_id], "error", x, y))
    return {node_id: tuple(items) for node_id, items in changes.items()}


_ABSENT: Any = "absent"


def _final_facts(ev: Evaluation) -> dict[OutputRef, TensorFacts | None]:
    """Every output's final facts in the order of ``Evaluation.rows`` (by step, then as
    the step recorded them), without its display labels: only a change needs one."""
    by_node: dict[str, list[tuple[OutputRef, TensorFacts | None]]] = {}
    for ref, facts in ev.final.items():
        by_node.setdefault(ref.node_id, []).append((ref, facts))
    return {ref: facts for step in ev.plan.steps for ref, facts in by_node.get(step.node_id, ())}


def _errors(ev: Evaluation) -> dict[str, str]:
    """Each node's first error as text (one pass: asking per node is quadratic)."""
    out: dict[str, str] = {}
    for error in ev.errors:
        if error.node_id in ev.plan.step_of:
            out.setdefault(error.node_id, f"{error.exc_type}: {error.message}")
    return out


def _fact_changes(before: Any, after: Any) -> list[tuple[str, Any, Any]]:
    if not isinstance(before, TensorFacts) or not isinstance(after, TensorFacts):
        x, y = _presence(before), _presence(after)
        return [] if x == y else [("tensor", x, y)]
    out: list[tuple[str, Any, Any]] = []
    for fact in ("requires_grad", "is_leaf", "grad_fn_name", "retains_grad"):
        x, y = getattr(before, fact), getattr(after, fact)
        if x != y:
            out.append((fact.removesuffix("_name"), x, y))
    if not _same_grad(before.grad, after.grad):
        out.append(("grad", _plain(before.grad), _plain(after.grad)))
    if not same_values(before.array, after.array) or before.dtype != after.dtype:
        out.append(("value", before.value, after.value))
    return out


def _presence(facts: Any) -> str:
    return "absent" if facts is _ABSENT else "None" if facts is None else "tensor"


def _same_grad(a: GradValue | None, b: GradValue | None) -> bool:
    return (a is None and b is None) or (a is not None and a.same_as(b))


def _plain(g: GradValue | None) -> Any:
    return None if g is None else g.value
