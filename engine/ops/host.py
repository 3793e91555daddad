"""Forwards NumPy has and CuPy (or the engine's CuPy simulator) may not: run on the host.

``on_host(fn)`` is ``fn`` itself for NumPy arrays; for device arrays it copies the array
arguments (parameters included) to the host, runs ``fn`` with NumPy and copies the
result back, so one forward serves both devices where a device kernel is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def _device_array(a: Any) -> bool:
    return hasattr(a, "shape") and not isinstance(a, np.ndarray | np.generic)


def on_host(fn: Callable[..., Any]) -> Callable[..., Any]:
    def forward(xp: Any, *args: Any, **kwargs: Any) -> Any:
        if xp is np:
            return fn(np, *args, **kwargs)

        def host(a: Any) -> Any:
            return xp.asnumpy(a) if _device_array(a) else a

        out = fn(np, *[host(a) for a in args], **{k: host(v) for k, v in kwargs.items()})
        if isinstance(out, tuple):
            return tuple(xp.asarray(o) for o in out)
        return xp.asarray(out)

    forward.__name__ = getattr(fn, "__name__", "forward")
    return forward
