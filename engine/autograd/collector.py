"""The cyclic garbage collector's policy during backward.

PyTorch's graph lives in C++ and the collector never sees it; ours is Python
objects (nodes, edge tuples, gradient buffers), and on a wide graph the
collector's scans, triggered by the allocations backward makes, cost about a
fifth of the backward.  Backward creates no reference cycles of its own, so the
collector is paused while it runs and restored afterwards, exceptions included;
the allocations it counted (cycles made by user code inside it, in hooks or a
custom Function, too) trigger the next collection as soon as it is back on.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


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
