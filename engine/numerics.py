"""Fused multiply-add, as ATen's vectorised CPU kernels compute it.

PyTorch's CPU kernels for ``add(alpha=)``, ``addcmul``, ``lerp`` and friends are
compiled with FMA contraction: ``a * b + c`` is rounded once.  NumPy has no FMA
ufunc, so the single rounding is reproduced: float32 (and narrower) operands are
exact products in float64, and float64 uses Dekker's error-free product and
Knuth's two-sum to carry the rounding error of ``a * b`` into the sum.
"""

from __future__ import annotations

from typing import Any

_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitter for float64


def _two_product(a: Any, b: Any) -> tuple[Any, Any]:
    p = a * b
    ca = _SPLIT * a
    ahi = ca - (ca - a)
    alo = a - ahi
    cb = _SPLIT * b
    bhi = cb - (cb - b)
    blo = b - bhi
    err = ((ahi * bhi - p) + ahi * blo + alo * bhi) + alo * blo
    return p, err


def fma(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` with one rounding, in the dtype of the result of ``a * b + c``."""
    out = a * b + c
    dtype = getattr(out, "dtype", None)
    if dtype is None or dtype.kind != "f":
        return out
    if dtype.itemsize < 8:
        wide = a.astype("float64") if hasattr(a, "astype") else float(a)
        wide_b = b.astype("float64") if hasattr(b, "astype") else float(b)
        wide_c = c.astype("float64") if hasattr(c, "astype") else float(c)
        return (wide * wide_b + wide_c).astype(dtype)
    p, err = _two_product(a, b)
    s = p + c
    bb = s - p
    sum_err = (p - (s - bb)) + (c - bb)
    return s + (sum_err + err)
