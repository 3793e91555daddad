"""Fused multiply-add with one rounding, emulated in NumPy.

PyTorch's CPU kernels are built with ``-mfma`` and GCC contracts ``a * b + c``
into an FMA, so ``uniform_(from, to)``, ``normal_(mean, std)`` and the AVX2
polynomials round once where plain NumPy rounds twice.  Float32 products are
exact in float64 and a float64 sum rounded *to odd* rounds correctly to float32;
float64 uses Boldo and Melquiond's emulation (exact product by Veltkamp
splitting, exact sums, one rounding to odd).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_SPLIT = 134217729.0  # 2**27 + 1


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = a * _SPLIT
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _sum_round_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b`` rounded to odd: an inexact result keeps an odd last bit."""
    s, err = _two_sum(a, b)
    even = (s.view(np.int64) & 1) == 0
    return np.where((err != 0) & even, np.nextafter(s, s + err), s)


def fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` in float32 with a single rounding."""
    a64, b64, c64 = np.broadcast_arrays(
        np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64)
    )
    return _sum_round_odd(a64 * b64, c64).astype(np.float32)


def fma64(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` in float64 with a single rounding."""
    a64, b64, c64 = np.broadcast_arrays(
        np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64)
    )
    with np.errstate(all="ignore"):
        uh, ul = _two_prod(a64, b64)
        th, tl = _two_sum(c64, uh)
        return th + _sum_round_odd(tl, ul)
