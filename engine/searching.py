"""Non-differentiable helpers over values in order or as sets, as real programs call them:
``searchsorted``/``bucketize`` (where values fall among sorted ones), ``isin``,
``unique_consecutive``, ``histc``, integer ``gcd``/``lcm`` and bit shifts."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import to_numpy
from engine.tensor import Tensor


def _like(arr: Any, like: Any) -> Tensor:
    from engine.creation import tensor

    return tensor(np.asarray(arr), device=like.device if isinstance(like, Tensor) else None)


def _array(x: Any) -> np.ndarray:
    return to_numpy(x._data) if isinstance(x, Tensor) else np.asarray(x)


def searchsorted(
    sorted_sequence: Tensor,
    input: Any,  # noqa: A002
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
) -> Tensor:
    """For each value, the index where it would be inserted to keep each row sorted."""
    seq, vals = _array(sorted_sequence), _array(input)
    if sorter is not None:
        seq = np.take_along_axis(seq, _array(sorter), axis=-1)
    how = side or ("right" if right else "left")
    if seq.ndim <= 1:
        out = np.searchsorted(seq, vals, side=how)
    else:
        rows = seq.reshape(-1, seq.shape[-1])
        queries = vals.reshape(rows.shape[0], -1)
        out = np.stack([np.searchsorted(r, q, side=how) for r, q in zip(rows, queries)])
        out = out.reshape(vals.shape)
    return _like(np.asarray(out, dtype=np.int32 if out_int32 else np.int64), sorted_sequence)


def bucketize(
    input: Any,  # noqa: A002
    boundaries: Tensor,
    *,
    out_int32: bool = False,
    right: bool = False,
) -> Tensor:
    """The bucket of each value among 1-D ``boundaries`` (``searchsorted`` turned round)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(
    elements: Any,
    test_elements: Any,
    *,
    assume_unique: bool = False,
    invert: bool = False,
) -> Tensor:
    """Whether each element is among ``test_elements`` (a bool tensor of its shape)."""
    out = np.isin(_array(elements), _array(test_elements), invert=invert)
    return _like(out, elements if isinstance(elements, Tensor) else test_elements)


def unique_consecutive(
    input: Tensor,  # noqa: A002
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """Each run of equal neighbours kept once (flattened unless ``dim`` is given)."""
    arr = _array(input)
    if dim is None:
        flat = arr.reshape(-1)
        starts = np.flatnonzero(np.r_[True, flat[1:] != flat[:-1]]) if flat.size else flat[:0]
        values = flat[starts]
    else:
        moved = np.moveaxis(arr, dim, 0)
        change = [True] + [not np.array_equal(moved[i], moved[i - 1]) for i in range(1, len(moved))]
        starts = np.flatnonzero(change[: len(moved)])
        values = np.moveaxis(moved[starts], 0, dim)
    out: list[Any] = [_like(values, input)]
    n = arr.size if dim is None else arr.shape[dim]
    if return_inverse:
        inverse = np.cumsum(np.isin(np.arange(n), starts)) - 1
        out.append(
            _like(inverse.reshape(arr.shape if dim is None else (n,)).astype(np.int64), input)
        )
    if return_counts:
        out.append(_like(np.diff(np.r_[starts, n]).astype(np.int64), input))
    return out[0] if len(out) == 1 else tuple(out)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """Counts in ``bins`` equal bins over [min, max] (the data's range when both are 0);
    elements outside are left out.  The counts have the input's floating dtype."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{input.dtype.scalar_name}'"
        )
    arr = _array(input).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and arr.size:
        lo, hi = float(arr.min()), float(arr.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    inside = arr[(arr >= lo) & (arr <= hi)]
    pos = ((inside - lo) * bins / (hi - lo)).astype(np.int64)
    counts = np.bincount(np.minimum(pos, bins - 1), minlength=bins)
    return _like(counts.astype(arr.dtype), input)


def _integral(name: str, *xs: Any) -> None:
    for x in xs:
        if isinstance(x, Tensor) and (x.dtype.is_floating_point or x.dtype is dtypes.bool_):
            scalar = x.dtype.scalar_name
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{scalar}'")
        if isinstance(x, float):
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Double'")


def _int_binary(name: str, ufunc: Any, input: Any, other: Any) -> Tensor:  # noqa: A002
    _integral(name, input, other)
    out_dtype = dtypes.result_type(input, other)
    out = ufunc(_array(input).astype(out_dtype.np), _array(other).astype(out_dtype.np))
    return _like(np.asarray(out, dtype=out_dtype.np), input if isinstance(input, Tensor) else other)


def gcd(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return _int_binary("gcd", np.gcd, input, other)


def lcm(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return _int_binary("lcm", np.lcm, input, other)


def _shift(left: bool, input: Any, other: Any) -> Tensor:  # noqa: A002
    """ATen's shifts: a shift by the width of the type or more gives 0 (or -1 for a
    negative value shifted right)."""
    _integral("lshift" if left else "rshift", input, other)
    out_dtype = dtypes.result_type(input, other)
    a, b = _array(input).astype(out_dtype.np), _array(other).astype(out_dtype.np)
    bits = a.dtype.itemsize * 8
    wide = (b < 0) | (b >= bits)
    safe = np.where(wide, 0, b)
    with np.errstate(over="ignore"):
        if left:
            out = np.where(wide, 0, np.left_shift(a, safe))
        else:
            out = np.where(wide, np.where(a < 0, -1, 0), np.right_shift(a, safe))
    return _like(np.asarray(out, dtype=out_dtype.np), input if isinstance(input, Tensor) else other)


def bitwise_left_shift(input: Any, other: Any) -> Tensor:  # noqa: A002
    return _shift(True, input, other)


def bitwise_right_shift(input: Any, other: Any) -> Tensor:  # noqa: A002
    return _shift(False, input, other)


def true_divide(input: Any, other: Any) -> Any:  # noqa: A002
    """``div`` under its old name (``DivBackward0``)."""
    from engine.functions import div

    return div(input, other)
