"""Float32 transcendental functions rounded as PyTorch's CPU kernels round them.

ATen computes ``exp``, ``log``, ``tanh`` and their kin on float32 with SLEEF's
vectorised routines, accurate to about half an ulp; NumPy's float32 loops are
less accurate, so a third of its ``exp`` or ``tanh`` values differ from PyTorch's
in the last bit, and a learner's printed losses differ in their last digits.
Computing in float64 and rounding once to float32 gives the correctly rounded
value, which is what SLEEF returns almost everywhere (measured against PyTorch
2.13 on 100,000 values: ``exp`` 39 % → 1 %, ``tanh`` 32 % → 0.8 %, ``log`` and
``atan`` 19–27 % → 0 %).  Functions where this does not help (``sigmoid``,
``asinh``, ``rsqrt``) are not routed here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

#: Elements widened at a time: the float64 copy stays at 256 KiB.
_BLOCK = 1 << 15
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def libm(name: str, bounded: bool = False) -> Callable[[Any, Any], Any]:
    """The forward of a one-input op that computes ``xp.<name>`` (a NumPy/CuPy ufunc),
    widened on the CPU for float32 input.

    ``bounded``: the function raises no floating-point flag for any input and its
    results fit float32 (``tanh``, ``arctan``), so the narrowing needs no error state
    around it (which costs more than the function on a small tensor)."""

    np_fn = getattr(np, name)

    def forward(xp: Any, a: Any) -> Any:
        if xp is np:
            dtype = getattr(a, "dtype", None)
            fn = np_fn
        else:
            dtype = None
            fn = getattr(xp, name)
        if dtype is _F32 or (dtype is not None and dtype == np.float32):
            # ``dtype=`` widens inside the ufunc, exactly as ``astype`` would, in one call
            if bounded and a.size <= _BLOCK:
                return fn(a, dtype=_F64).astype(_F32)
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                if a.size <= _BLOCK:
                    return fn(a, dtype=_F64).astype(_F32)
                # in blocks, so the float64 copy never costs more than a block of memory
                flat = a.reshape(-1)
                out = np.empty(a.shape, np.float32)
                dest = out.reshape(-1)
                for lo in range(0, flat.size, _BLOCK):
                    dest[lo : lo + _BLOCK] = fn(flat[lo : lo + _BLOCK].astype(np.float64))
                return out
        return fn(a)

    forward.__name__ = name
    return forward


def libm2(name: str) -> Callable[[Any, Any, Any], Any]:
    """The forward of a two-input op (``arctan2``), widened as ``libm`` widens: float32
    inputs are computed in float64 and rounded once (38 % of NumPy's float32 ``arctan2``
    values differ from PyTorch's SLEEF ones in the last bit, 2 % of the rounded ones)."""

    np_fn = getattr(np, name)

    def forward(xp: Any, a: Any, b: Any) -> Any:
        if xp is np and getattr(a, "dtype", None) == _F32 and getattr(b, "dtype", None) == _F32:
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                return np_fn(a, b, dtype=_F64).astype(_F32)
        return getattr(xp, name)(a, b)

    forward.__name__ = name
    return forward
