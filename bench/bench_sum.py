"""Cost of summing in PyTorch's order (``engine.cascade_sum``) against NumPy's own sum
and PyTorch's kernel, for float32 tensors from 16 to 10^6 elements.

    .venv/bin/python bench/bench_sum.py

Prints microseconds per call (median of repeated timings) for full and per-dim sums.
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from engine.cascade_sum import reduce_sum

CASES = [
    ((16,), None),
    ((1000,), None),
    ((2000,), None),
    ((100_000,), None),
    ((1_000_000,), None),
    ((64, 256), (0,)),
    ((64, 256), (1,)),
    ((1000, 1000), (0,)),
    ((1000, 1000), (1,)),
]


def _us(fn: object, number: int) -> float:
    times = timeit.repeat(fn, number=number, repeat=5)  # type: ignore[arg-type]
    return median(times) / number * 1e6


def main() -> None:
    try:
        import torch
    except ImportError:
        torch = None
    rng = np.random.default_rng(0)
    print(f"{'shape':>14} {'dims':>6} {'cascade us':>11} {'numpy us':>9} {'torch us':>9}")
    for shape, dims in CASES:
        a = rng.standard_normal(shape).astype(np.float32)
        number = max(3, 200_000 // a.size)
        ours = _us(lambda a=a, dims=dims: reduce_sum(a, dims, False), number)
        theirs = _us(lambda a=a, dims=dims: np.sum(a, axis=dims), number)
        ref = float("nan")
        if torch is not None:
            t = torch.from_numpy(a)
            ref = _us(lambda t=t, dims=dims: t.sum() if dims is None else t.sum(dims), number)
        print(f"{shape!s:>14} {dims!s:>6} {ours:11.1f} {theirs:9.1f} {ref:9.1f}")


if __name__ == "__main__":
    main()
