"""A backward step's trace: which ``grad_fn`` ran in what order, the gradients that
flowed in and out of each, the ``.grad`` each wrote, and the hook nodes that fired
between them (read from the backend's backward observer).

A part of ``Runner``, over the facts it reads (``runner_facts``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from gradstudio.catalogue import HOOK_LOG, HookFiring
from gradstudio.evaluation.facts import BackwardTrace, GradValue, OutputRef, TraceExecution
from gradstudio.evaluation.runner_facts import RunnerFacts, device_name, dtype_name

if TYPE_CHECKING:
    from gradstudio.evaluation.plan import PlanStep


@contextmanager
def hook_log(fired: list[HookFiring], trace: Any) -> Iterator[None]:
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


class RunnerTrace(RunnerFacts):
    """``Runner``'s backward traces (a part of it)."""

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
            return GradValue(arr, tuple(g.shape), dtype_name(g.dtype), device_name(g.device))
        arr = np.asarray(g)
        return GradValue(np.array(arr, copy=True), tuple(arr.shape), str(arr.dtype), "cpu")
