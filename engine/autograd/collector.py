"""The cyclic garbage collector's policy while graphs are built and run.

PyTorch's graph lives in C++ and the collector never sees it; ours is Python
objects (nodes, edge tuples, saved tensors, gradient buffers), about five per
op.  They form no reference cycles (a graph is freed by reference counting
alone), yet while a graph grows every one of them is counted and scanned: on a
wide graph the collections, above all the full ones that the surviving nodes
keep triggering (each scans everything alive), cost about a sixth of the step.

Backward creates no reference cycles of its own, so the collector is paused
while it runs and restored afterwards, exceptions included; the allocations it
counted (cycles made by user code inside it, in hooks or a custom Function,
too) trigger the next collection as soon as it is back on.

While a graph grows, the first generation's threshold is raised instead (never
lowered, never switched off), as CPython 3.13 raised its default for the same
reason: collections stay on, so cycles made by user code are still found, only
in batches of ``YOUNG_WHILE_GROWING`` allocations rather than 700.  A callback
that runs at each collection (no cost per op) sees how many nodes were made
since the previous one; once the program makes few nodes again, the threshold
that was in force comes back.  Only the thresholds found when the policy was
installed (the interpreter's, unless the program set its own before importing
the engine) are ever changed: a program that sets its own, before a raise or
during one, keeps them from then on.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from engine.autograd.graph import new_seq

P = ParamSpec("P")
R = TypeVar("R")

#: The first generation's threshold while a graph grows (the studio's own figure).
YOUNG_WHILE_GROWING = 20_000
#: A graph grows when at least one node was made per this many allocations.
ALLOCATIONS_PER_NODE = 20


def collector_paused(fn: Callable[P, R]) -> Callable[P, R]:
    """Run ``fn`` with the collector off (unless it already was: nested calls, or a
    program that turned it off itself), then turn it back on."""

    @functools.wraps(fn)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return paused


class GrowthPolicy:
    """Raises the young threshold while nodes are made quickly, restores it after.

    ``base`` is the thresholds it may raise (those in force when installed), ``ours``
    the ones it set while raised (None otherwise).
    """

    def __init__(self) -> None:
        self.last_seq = new_seq()
        self.base = gc.get_threshold()
        self.ours: tuple[int, ...] | None = None

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "start":
            return
        seq = new_seq()  # a gap in the numbering: only the order of nodes matters
        made, self.last_seq = seq - self.last_seq - 1, seq
        now = gc.get_threshold()
        if self.ours is None:
            if (
                now == self.base
                and now[0] < YOUNG_WHILE_GROWING
                and made * ALLOCATIONS_PER_NODE >= now[0]
            ):
                self.ours = (YOUNG_WHILE_GROWING, *now[1:])
                gc.set_threshold(*self.ours)
        elif now != self.ours:
            self.ours = None  # the program set its own: they stand
        elif made * ALLOCATIONS_PER_NODE < now[0]:
            gc.set_threshold(*self.base)
            self.ours = None


POLICY = GrowthPolicy()


def install() -> None:
    """Let ``POLICY`` watch the collections, raising from the thresholds in force now."""
    uninstall()
    POLICY.last_seq = new_seq()
    POLICY.base = gc.get_threshold()
    gc.callbacks.append(POLICY)


def uninstall() -> None:
    """Stop watching, and give back the thresholds in force before any raise."""
    if POLICY in gc.callbacks:
        gc.callbacks.remove(POLICY)
    if POLICY.ours is not None and gc.get_threshold() == POLICY.ours:
        gc.set_threshold(*POLICY.base)
    POLICY.ours = None


install()
