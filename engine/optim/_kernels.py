"""The arithmetic of PyTorch's in-place optimizer kernels, on storage arrays.

Python scalars are rounded to the array's dtype before use, as ATen's CPU kernels
do (``scalar_t`` operands); each formula keeps the kernel's order of operations and
its fused multiply-adds, so results agree with PyTorch bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from engine.backend import array_module
from engine.creation import tensor
from engine.numerics import fma
from engine.tensor import Tensor


def c(value: float, like: Any) -> Any:
    """``value`` as a scalar of ``like``'s dtype."""
    return like.dtype.type(value)


def _fma(a: Any, b: Any, addend: Any) -> Any:
    """``numerics.fma``; for float32 arrays of one shape (a float32 scalar factor
    allowed) the same float64 arithmetic in three NumPy calls, without the trial
    ``a * b + c`` that ``fma`` makes to learn the result's dtype: an optimizer step
    runs it once or twice per parameter element."""
    if type(addend) is np.ndarray and addend.dtype == _F32:
        arr, other = (a, b) if type(a) is np.ndarray else (b, a)
        if (
            type(arr) is np.ndarray
            and arr.dtype == _F32
            and arr.ndim  # (0-d arrays give NumPy scalars)
            and arr.shape == addend.shape
            and (
                type(other) is np.float32
                or (type(other) is np.ndarray and other.dtype == _F32 and other.shape == arr.shape)
            )
        ):
            wide = np.multiply(a, b, dtype=np.float64)  # exact: 24-bit by 24-bit digits
            np.add(wide, addend, out=wide)
            return wide.astype(_F32)
    return fma(a, b, addend)


_F32 = np.dtype(np.float32)


def add(a: Any, b: Any, alpha: float = 1.0) -> Any:
    """``a.add(b, alpha=alpha)``."""
    return a + b if alpha == 1 else _fma(b, c(alpha, a), a)


def lerp(start: Any, end: Any, weight: float) -> Any:
    """``start.lerp(end, weight)`` with a scalar weight (ATen's two-sided formula)."""
    w = c(weight, start)
    if abs(w) < 0.5:
        return _fma(w, end - start, start)
    return _fma(-(end - start), c(1, start) - w, end)


def addcmul(a: Any, t1: Any, t2: Any, value: float = 1.0) -> Any:
    return _fma(c(value, a) * t1, t2, a)


def addcdiv(a: Any, t1: Any, t2: Any, value: float = 1.0) -> Any:
    return a + c(value, a) * t1 / t2


def sqrt(a: Any) -> Any:
    return array_module(a).sqrt(a)


def maximum(a: Any, b: Any) -> Any:
    return array_module(a).maximum(a, b)


#: Elements per block: a block of every array an update reads and writes, float64
#: temporaries included, stays in the processor's cache.
BLOCK = 1 << 14


def blocks(arrays: list[Any]) -> Iterator[list[Any]]:
    """The arrays as aligned flat blocks, so that a chain of elementwise ops runs in
    cache; the whole arrays where they are not all C-contiguous NumPy arrays of one
    shape (each op is elementwise, so either way gives the same values)."""
    first = arrays[0]
    n = first.size
    if n <= BLOCK or not all(
        type(a) is np.ndarray and a.shape == first.shape and a.flags.c_contiguous for a in arrays
    ):
        yield arrays
        return
    flat = [a.reshape(-1) for a in arrays]
    for lo in range(0, n, BLOCK):
        yield [a[lo : lo + BLOCK] for a in flat]


def bump(t: Tensor, ops: int = 1) -> None:
    """Count ``ops`` in-place ops on ``t`` (its version), its storage already written."""
    t._counter()[0] += ops


def write(t: Tensor, arr: Any, ops: int = 1) -> None:
    """Store ``arr`` into ``t``'s storage as ``ops`` in-place ops would (versions too)."""
    t._data[...] = arr
    t._counter()[0] += ops


def step_tensor() -> Tensor:
    """PyTorch keeps an optimizer's step count as a float32 0-d CPU tensor."""

    return tensor(0.0)


def bump_step(step: Tensor) -> float:
    """``step_t += 1``; returns the new count as a Python float."""
    write(step, step._data + step._data.dtype.type(1))
    return float(step._data)
