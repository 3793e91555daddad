"""The values ``torch.arange`` and ``torch.range`` write, bit for bit.

ATen's CPU ``arange`` kernel computes in the output's accumulation type (double for
float32 and float64) and is vectorised: in each parallel chunk it writes pairs of
vectors (eight floats or four doubles each), a vector as ``base + k * step`` with
``base = start + step * i`` rounded to the output dtype first, and the chunk's tail one
element at a time as ``start + step * i``.  Every one of these products-and-sums is
fused (one rounding), as the compiler contracts them in the vectorised kernels.  So
``arange(-8, 8, 0.1)`` holds ``4.4409e-16`` where ``-8 + 80 * 0.1`` rounds twice to 0.
``range`` (deprecated) is a plain loop, ``start + i * step`` with two roundings.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.cascade_sum import num_threads
from engine.numerics import fma

#: ATen's ``internal::GRAIN_SIZE``: below it a kernel runs in one chunk.
GRAIN_SIZE = 32768
#: Elements per vector register, by output dtype (256-bit vectors).
_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def parallel_chunks(n: int, grain: int = GRAIN_SIZE) -> list[tuple[int, int]]:
    """``at::parallel_for``'s split of ``[0, n)`` (OpenMP: equal chunks, one a thread),
    on which a kernel's rounding can depend."""
    if n < grain or num_threads() == 1:
        return [(0, n)]
    threads = min(num_threads(), -(-n // grain))
    size = -(-n // threads)
    return [(b, min(n, b + size)) for b in range(0, n, size)]


def arange_values(start: float, step: float, n: int, np_dtype: Any) -> Any:
    """``n`` values of ``arange`` from ``start`` by ``step`` in a float dtype."""
    dt = np.dtype(np_dtype)
    lanes = _LANES.get(dt)
    idx = np.arange(n, dtype=np.float64)
    if lanes is None:  # half precision: accumulate in float32, no vector path
        s32, st32 = np.float32(start), np.float32(step)
        return (s32 + st32 * idx.astype(np.float32)).astype(dt)
    out = fma(np.float64(step), idx, np.float64(start)).astype(dt)
    for begin, end in parallel_chunks(n):
        width = 2 * lanes
        whole = begin + (end - begin) // width * width
        if whole == begin:
            continue
        pos = np.arange(begin, whole)
        base_idx = begin + (pos - begin) // lanes * lanes
        base = fma(np.float64(step), base_idx.astype(np.float64), np.float64(start)).astype(dt)
        k = (pos - base_idx).astype(np.float64)
        out[begin:whole] = fma(k, np.float64(step), base.astype(np.float64)).astype(dt)
    return out


def range_values(start: float, step: float, n: int, np_dtype: Any) -> Any:
    """``n`` values of the deprecated ``range``: ``start + i * step`` rounded twice."""
    dt = np.dtype(np_dtype)
    acc = np.float32 if dt == np.float16 else np.float64
    idx = np.arange(n, dtype=acc)
    return (acc(start) + idx * acc(step)).astype(dt)
