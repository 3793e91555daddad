"""What an evaluation recorded, less its values: two runs that differ only in values.

Editing a leaf's numbers and running again records the same tensors, grad_fns,
shapes and steps with other values.  Everything drawn from that structure alone
(the backward graph's boxes and links, the bytes held per step) is then the same
picture, and a view can carry its work over from the run before instead of
walking the new run's thousands of facts again.  ``structure(ev)`` is that
structure as plain tuples (compared in C), made once per evaluation.
"""

from __future__ import annotations

import weakref
from typing import Any

from gradstudio.evaluation.evaluate import (
    Evaluation,
    GradFnFacts,
    GradValue,
    Plan,
    SavedValue,
    TensorFacts,
)

#: Per evaluation: the plan it was made for (a rename replaces it) and its structure.
_MADE: weakref.WeakKeyDictionary[Evaluation, tuple[Plan, int, tuple[Any, ...]]] = (
    weakref.WeakKeyDictionary()
)


def structure(ev: Evaluation) -> tuple[Any, ...]:
    """Every step's node, status, the outputs it recorded (each tensor's identity,
    shape, dtype, flags, grad_fn key, and its gradient's shape) and the grad_fns it
    recorded (name, next_functions, variable, saved tensors' shapes), and the labels."""
    made = _MADE.get(ev)
    if made is not None and made[0] is ev.plan and made[1] == len(ev.steps):
        return made[2]
    plan = ev.plan
    steps = tuple(
        (
            result.node_id,
            result.status,
            tuple((ref, _facts(f)) for ref, f in result.changed.items()),
            tuple(_fn(fn) for fn in result.grad_fns.values()),
        )
        for result in ev.steps
    )
    made_now = (ev.cancelled, plan.device, plan.labels, steps)
    _MADE[ev] = (plan, len(ev.steps), made_now)
    return made_now


def same_structure(a: Evaluation | None, b: Evaluation | None) -> bool:
    """Whether ``a`` and ``b`` recorded the same graph (their values may differ)."""
    return a is not None and b is not None and (a is b or structure(a) == structure(b))


def _facts(f: TensorFacts | None) -> tuple[Any, ...] | None:
    if f is None:
        return None
    fn, grad = f.grad_fn, f.grad
    return (
        f.tensor_id,
        f.shape,
        f.dtype,
        f.device,
        f.requires_grad,
        f.is_leaf,
        f.retains_grad,
        f.version,
        f.base_id,
        None if fn is None else fn.key,
        None if grad is None else (grad.shape, grad.dtype, grad.device),
    )


def _fn(fn: GradFnFacts) -> tuple[Any, ...]:
    return (
        fn.key,
        fn.name,
        tuple(None if n is None else (n.key, n.name, n.index) for n in fn.next_functions),
        fn.variable,
        tuple(map(_saved, fn.saved)),
    )


def _saved(s: SavedValue) -> tuple[Any, ...]:
    value = s.value
    if isinstance(value, GradValue):
        value = (value.shape, value.dtype, value.device)
    return (s.name, s.kind, value, s.ref)
