"""What an evaluation recorded, less its values: two runs that differ only in values.

Editing a leaf's numbers and running again records the same tensors, grad_fns,
shapes and steps with other values.  Everything drawn from that structure alone
(the backward graph's boxes and links, which node owns a grad_fn, the bytes held
per step) is then the same picture, and a view can carry its work over from the
run before instead of walking the new run's thousands of facts again.
``structure(ev)`` is that structure as plain tuples (compared in C), made once per
evaluation; ``warm(ev)`` makes the part of the steps that ran so far, so that a
run's results are described while its last steps still run in the worker.
"""

from __future__ import annotations

import operator
import weakref
from typing import Any

from gradstudio.evaluation.facts import GradFnFacts, GradValue, SavedValue, StepResult, TensorFacts
from gradstudio.evaluation.plan import Plan
from gradstudio.evaluation.results import Evaluation


class _Made:
    """The structure of an evaluation so far: per step result described, its tuple."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.results: list[StepResult] = []
        self.steps: list[tuple[Any, ...]] = []
        self.whole: tuple[Any, ...] | None = None


_MADE: weakref.WeakKeyDictionary[Evaluation, _Made] = weakref.WeakKeyDictionary()


def structure(ev: Evaluation) -> tuple[Any, ...]:
    """Every step's node, status, the outputs it recorded (each tensor's identity,
    shape, dtype, flags, grad_fn key, and its gradient's shape) and the grad_fns it
    recorded (name, next_functions, variable, saved tensors' shapes), and the labels."""
    made = _made(ev, ran_only=False)
    if made.whole is None:
        plan = ev.plan
        made.whole = (ev.cancelled, plan.device, plan.labels, tuple(made.steps))
    return made.whole


def warm(ev: Evaluation) -> None:
    """Describe the steps that have run (an evaluation still arriving from the worker):
    ``structure`` then has only the last ones left to describe."""
    _made(ev, ran_only=True)


def same_structure(a: Evaluation | None, b: Evaluation | None) -> bool:
    """Whether ``a`` and ``b`` recorded the same graph (their values may differ)."""
    if a is None or b is None:
        return False
    if a is b:
        return True
    first, second = structure(a), structure(b)
    if first is second:
        return True
    if first != second:
        return False
    made = _MADE.get(b)
    if made is not None:
        made.whole = first  # one object: the next comparison is one identity check
    return True


def _made(ev: Evaluation, ran_only: bool) -> _Made:
    made = _MADE.get(ev)
    results = ev.steps
    if (
        made is None
        or made.plan is not ev.plan
        or len(made.results) > len(results)
        or not all(map(operator.is_, made.results, results))
    ):
        made = _MADE[ev] = _Made(ev.plan)
    if len(made.results) == len(results) and made.whole is not None:
        return made
    made.whole = None
    for result in results[len(made.results) :]:
        if ran_only and result.status == "not run":
            break  # (the worker replaces it with the step's result)
        made.results.append(result)
        made.steps.append(
            (
                result.node_id,
                result.status,
                tuple((ref, _facts(f)) for ref, f in result.changed.items()),
                tuple(map(_fn, result.grad_fns.values())),
            )
        )
    return made


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
