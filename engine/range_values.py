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
#: Elements computed at a time (a multiple of every vector group below).
BLOCK = 1 << 16
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


def _blocks(begin: int, end: int, size: int = BLOCK) -> list[tuple[int, int]]:
    return [(b, min(end, b + size)) for b in range(begin, end, size)]


def arange_values(start: float, step: float, n: int, np_dtype: Any) -> Any:
    """``n`` values of ``arange`` from ``start`` by ``step`` in a float dtype.

    Computed ``BLOCK`` elements at a time into the output, so the peak is the result
    plus a few blocks whatever ``n``: a 200-million-element float32 range is its 800 MB,
    not the several GB its float64 intermediates would take at once (each value depends
    only on its position, its chunk and its lane group, never on a neighbour)."""
    dt = np.dtype(np_dtype)
    out = np.empty(n, dt)
    lanes = _LANES.get(dt)
    if lanes is None:  # half precision: accumulate in float32, no vector path
        s32, st32 = np.float32(start), np.float32(step)
        for b, e in _blocks(0, n):
            out[b:e] = s32 + st32 * np.arange(b, e, dtype=np.float64).astype(np.float32)
        return out
    f_start, f_step = np.float64(start), np.float64(step)
    width = 2 * lanes
    for begin, end in parallel_chunks(n):
        whole = begin + (end - begin) // width * width
        for b, e in _blocks(begin, whole):  # BLOCK is a multiple of every lane group
            pos = np.arange(b, e)
            base_idx = begin + (pos - begin) // lanes * lanes
            base = fma(f_step, base_idx.astype(np.float64), f_start).astype(dt)
            k = (pos - base_idx).astype(np.float64)
            out[b:e] = fma(k, f_step, base.astype(np.float64)).astype(dt)
        for b, e in _blocks(whole, end):
            out[b:e] = fma(f_step, np.arange(b, e, dtype=np.float64), f_start).astype(dt)
    return out


def integer_values(start: int, step: int, n: int, np_dtype: Any) -> Any:
    """``start + step * i`` in int64, cast to the output's integer dtype, block by block."""
    out = np.empty(n, np.dtype(np_dtype))
    for b, e in _blocks(0, n):
        out[b:e] = start + step * np.arange(b, e, dtype=np.int64)
    return out


def range_values(start: float, step: float, n: int, np_dtype: Any) -> Any:
    """``n`` values of the deprecated ``range``: ``start + i * step`` rounded twice."""
    dt = np.dtype(np_dtype)
    acc = np.float32 if dt == np.float16 else np.float64
    out = np.empty(n, dt)
    for b, e in _blocks(0, n):
        out[b:e] = acc(start) + np.arange(b, e, dtype=acc) * acc(step)
    return out
