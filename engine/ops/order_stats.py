"""Order statistics that return values with their indices: ``median``, ``kthvalue``,
``mode``, ``cummax`` and ``cummin``.  Their gradient goes to the selected elements
(``value_selecting_reduction_backward``, as ``max(dim)``'s); a full ``median()`` shares
it among the elements equal to the result, as a full ``max()`` does."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import return_types
from engine.backend import to_numpy
from engine.ops.core import Sample, apply_op, declare
from engine.ops.reduce import _evenly, _select_dim_grad
from engine.ops.shape import _wrap


def _kth_fwd(xp: Any, a: Any, k: int, dim: int, keepdim: bool = False) -> tuple[Any, Any]:
    """The k-th smallest (0-based) along ``dim``; a stable sort picks among ties."""
    if a.ndim == 0:
        return a.copy(), xp.zeros((), dtype=xp.int64)
    idx = xp.take(xp.argsort(a, axis=dim, kind="stable"), [k], axis=dim)
    vals = xp.take_along_axis(a, idx, axis=dim)
    if not keepdim:
        vals, idx = vals.squeeze(dim), idx.squeeze(dim)
    return vals, idx.astype(xp.int64)


def _median_all(xp: Any, a: Any) -> Any:
    """The lower median of all elements; NaN when any is NaN (or there are none)."""
    if a.size == 0 or (a.dtype.kind == "f" and xp.isnan(a).any()):
        return xp.asarray(xp.nan, dtype=a.dtype)
    return xp.sort(a, axis=None)[(a.size - 1) // 2]


def _median_fwd(xp: Any, a: Any, k: int, dim: int, keepdim: bool = False) -> tuple[Any, Any]:
    """The lower median along ``dim``; a slice holding NaN gives NaN at its first NaN."""
    vals, idx = _kth_fwd(xp, a, k, dim, keepdim)
    if a.ndim and a.dtype.kind == "f":
        nan = xp.isnan(a)
        has = nan.any(axis=dim, keepdims=keepdim)
        if has.any():
            vals = xp.where(has, xp.nan, vals).astype(a.dtype)
            idx = xp.where(has, xp.argmax(nan, axis=dim, keepdims=keepdim), idx)
    return vals, idx


def _mode_fwd(xp: Any, a: Any, dim: int, keepdim: bool = False) -> tuple[Any, Any]:
    """The most frequent value of each slice (the smallest among equally frequent ones)
    and the last index where it occurs, as ATen's CPU kernel returns them."""
    arr = to_numpy(a)
    if arr.ndim == 0:
        return a.copy(), xp.zeros((), dtype=xp.int64)
    rows = np.moveaxis(arr, dim, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    vals = np.empty(flat.shape[0], dtype=arr.dtype)
    idx = np.empty(flat.shape[0], dtype=np.int64)
    for r, row in enumerate(flat):
        uniq, counts = np.unique(row, return_counts=True)
        vals[r] = uniq[int(np.argmax(counts))]
        idx[r] = np.flatnonzero(row == vals[r])[-1]
    shape = rows.shape[:-1]
    vals_out, idx_out = vals.reshape(shape), idx.reshape(shape)
    if keepdim:
        vals_out, idx_out = np.expand_dims(vals_out, dim), np.expand_dims(idx_out, dim)
    return xp.asarray(vals_out), xp.asarray(idx_out)


def _cum_fwd(which: str) -> Any:
    def fwd(xp: Any, a: Any, dim: int) -> tuple[Any, Any]:
        """Running extreme along ``dim``; a tie moves the index to the later element."""
        if a.ndim == 0:
            return a.copy(), xp.zeros((), dtype=xp.int64)
        vals = xp.moveaxis(a, dim, 0).copy()
        idx = xp.zeros(vals.shape, dtype=xp.int64)
        for i in range(1, vals.shape[0]):
            take = vals[i] >= vals[i - 1] if which == "max" else vals[i] <= vals[i - 1]
            vals[i] = xp.where(take, vals[i], vals[i - 1])
            idx[i] = xp.where(take, i, idx[i - 1])
        return xp.moveaxis(vals, 0, dim), xp.moveaxis(idx, 0, dim)

    return fwd


def _cum_grad(c: Any, g: Any, _indices_grad: Any = None) -> Any:
    return c.m.scatter_backward(
        g, shape=tuple(c.shapes[0]), dim=c.p["dim"], index=c.s["indices"], keepdim=True
    )


def _values_indices(name: str, grad_fn: str, fwd: Any, grad: Any, sample: Sample) -> Any:
    return declare(
        name,
        grad_fn,
        ("self",),
        fwd,
        grad,
        dtype="same",
        outputs=2,
        save={"indices": None},
        samples=(sample,),
    )


MEDIAN = declare(
    "median",
    "MedianBackward0",
    ("self",),
    lambda xp, a: _median_all(xp, a),
    _evenly,
    dtype="same",
    save={"self": None, "result": None},
    samples=(Sample(((2, 3),), distinct=True),),
)
MEDIAN_DIM = _values_indices(
    "median_dim",
    "MedianBackward1",
    _median_fwd,
    _select_dim_grad,
    Sample(((2, 3),), {"k": 1, "dim": 1}, distinct=True),
)
KTHVALUE = _values_indices(
    "kthvalue",
    "KthvalueBackward0",
    _kth_fwd,
    _select_dim_grad,
    Sample(((2, 3),), {"k": 0, "dim": 1}, distinct=True),
)
MODE = _values_indices(
    "mode", "ModeBackward0", _mode_fwd, _select_dim_grad, Sample(((2, 3),), {"dim": 1})
)
CUMMAX = _values_indices(
    "cummax", "CummaxBackward0", _cum_fwd("max"), _cum_grad, Sample(((2, 3),), {"dim": 1})
)
CUMMIN = _values_indices(
    "cummin", "CumminBackward0", _cum_fwd("min"), _cum_grad, Sample(((2, 3),), {"dim": 1})
)


def median(input: Any, dim: int | None = None, keepdim: bool = False) -> Any:  # noqa: A002
    """The lower median: of all elements (one value), or along ``dim`` with its index."""
    if dim is None:
        return apply_op(MEDIAN, (input,))
    d = _wrap(dim, input.ndim) if input.ndim else 0
    n = input.shape[d] if input.ndim else 1
    out = apply_op(MEDIAN_DIM, (input,), {"k": (n - 1) // 2, "dim": d, "keepdim": keepdim})
    return return_types.median(*out)


def kthvalue(input: Any, k: int, dim: int = -1, keepdim: bool = False) -> Any:  # noqa: A002
    """The k-th smallest element (k from 1) along ``dim``, with its index."""
    d = _wrap(dim, input.ndim) if input.ndim else 0
    n = input.shape[d] if input.ndim else 1
    if not 1 <= k <= n:
        raise IndexError(f"kthvalue(): selected number k out of range for dimension {d}")
    out = apply_op(KTHVALUE, (input,), {"k": k - 1, "dim": d, "keepdim": keepdim})
    return return_types.kthvalue(*out)


def mode(input: Any, dim: int = -1, keepdim: bool = False) -> Any:  # noqa: A002
    d = _wrap(dim, input.ndim) if input.ndim else 0
    return return_types.mode(*apply_op(MODE, (input,), {"dim": d, "keepdim": keepdim}))


def cummax(input: Any, dim: int) -> Any:  # noqa: A002
    d = _wrap(dim, input.ndim) if input.ndim else 0
    return return_types.cummax(*apply_op(CUMMAX, (input,), {"dim": d}))


def cummin(input: Any, dim: int) -> Any:  # noqa: A002
    d = _wrap(dim, input.ndim) if input.ndim else 0
    return return_types.cummin(*apply_op(CUMMIN, (input,), {"dim": d}))


__all__ = ["cummax", "cummin", "kthvalue", "median", "mode", "msort"]


def msort(input: Any) -> Any:  # noqa: A002
    """Sorted along the first dimension (``SortBackward0``)."""
    from engine.ops.select import sort

    return sort(input, dim=0).values
