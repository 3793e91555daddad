"""Order statistics and running extremes: ``kthvalue``, ``mode``, ``cummax``/``cummin``,
``logcumsumexp``; and the counting helpers data code uses: ``searchsorted``,
``bucketize``, ``unique_consecutive`` (``histc`` is in ``engine.ops.histograms``).

Values and indices follow ATen's choices where elements tie (``kthvalue`` by stable
sort, ``mode`` the smallest most frequent value at its last position, ``cummax`` the
latest equal element, NaN propagating); gradients are PyTorch's formulas.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.backend import array_module, to_numpy
from engine.catalog import Example, Param, public
from engine.creation import tensor
from engine.ops.core import ARRAY_MATH, Sample, apply_op, declare
from engine.ops.host import on_host
from engine.ops.pointwise import data_of
from engine.ops.reduce import _select_dim_grad
from engine.ops.shape import _wrap as wrap_dim
from engine.return_types import _make
from engine.tensor import Tensor

KEEPDIM = Param("keepdim", "bool")
kthvalue_type = _make("kthvalue")
mode_type = _make("mode")
cummax_type = _make("cummax")
cummin_type = _make("cummin")


def _wrap_dim(dim: int, ndim: int) -> int:
    return wrap_dim(dim, ndim) if ndim else 0


def _select_grad(ctx: Any, g: Any, _indices_grad: Any = None) -> Any:
    """``value_selecting_reduction_backward``: the gradient scattered to the indices."""

    return _select_dim_grad(ctx, g, _indices_grad)


def _gt_or_nan(x: Any, y: Any) -> bool:
    return (x != x and y == y) or x > y


def _quick_select(values: list[Any], k: int) -> tuple[Any, int]:
    """ATen's ``quick_select_template`` (median-of-three Hoare partitions) on one row,
    swapping values and positions together: which of several equal values ``kthvalue``
    reports depends on these exact swaps."""
    arr, idx = list(values), list(range(len(values)))

    def swap(a: int, b: int) -> None:
        arr[a], arr[b] = arr[b], arr[a]
        idx[a], idx[b] = idx[b], idx[a]

    lo, hi = 0, len(arr) - 1
    while hi > lo:
        if hi == lo + 1:
            if _gt_or_nan(arr[lo], arr[hi]):
                swap(lo, hi)
            break
        swap(lo + (hi - lo) // 2, lo + 1)
        if _gt_or_nan(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if _gt_or_nan(arr[lo], arr[hi]):
            swap(lo, hi)
        if _gt_or_nan(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, arr[lo]
        while True:
            i += 1
            while _gt_or_nan(pivot, arr[i]):
                i += 1
            j -= 1
            while _gt_or_nan(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return arr[k], idx[k]


def _kthvalue_fwd(xp: Any, a: Any, k: int, dim: int, keepdim: bool = False) -> tuple[Any, Any]:
    if a.ndim == 0:
        return a.copy(), xp.zeros((), xp.int64)
    host = a if xp is np else xp.asnumpy(a)
    moved = np.moveaxis(host, dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    picked = [_quick_select(row.tolist(), k - 1) for row in rows]
    values = np.array([v for v, _ in picked], dtype=host.dtype).reshape(moved.shape[:-1])
    indices = np.array([i for _, i in picked], dtype=np.int64).reshape(moved.shape[:-1])
    if keepdim:
        values, indices = np.expand_dims(values, dim), np.expand_dims(indices, dim)
    if xp is np:
        return values, indices
    return xp.asarray(values), xp.asarray(indices)


KTHVALUE = declare(
    "kthvalue",
    "KthvalueBackward0",
    ("self",),
    _kthvalue_fwd,
    _select_grad,
    dtype="same",
    outputs=2,
    save={"indices": None},
    samples=(Sample(((2, 3),), {"k": 2, "dim": 1}, distinct=True),),
    grad_version=2,
)


@public(
    "kthvalue",
    ("input",),
    (Param("k", "int", 1), Param("dim", "dim"), KEEPDIM),
    outputs=("values", "indices"),
    category="reduction",
    doc="k-th smallest value along dim, and its index",
)
def kthvalue(input: Any, k: int, dim: int = -1, keepdim: bool = False) -> Any:  # noqa: A002
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, indices = apply_op(KTHVALUE, (input,), {"k": k, "dim": d, "keepdim": keepdim})
    return kthvalue_type(values, indices)


def _mode_fwd(xp: Any, a: Any, dim: int, keepdim: bool = False) -> tuple[Any, Any]:
    """The smallest of the most frequent values, at its last position along ``dim``."""
    host = a if xp is np else xp.asnumpy(a)
    if host.ndim == 0:
        values, idx = host.copy(), np.zeros((), np.int64)
    else:
        moved = np.moveaxis(host, dim, -1)
        flat = moved.reshape(-1, moved.shape[-1])
        vals = np.empty(flat.shape[0], host.dtype)
        idx = np.empty(flat.shape[0], np.int64)
        for row in range(flat.shape[0]):
            uniq, counts = np.unique(flat[row], return_counts=True)
            best = uniq[int(np.argmax(counts))]
            vals[row] = best
            idx[row] = int(np.nonzero(flat[row] == best)[0][-1])
        values = vals.reshape(moved.shape[:-1])
        idx = idx.reshape(moved.shape[:-1])
        if keepdim:
            values, idx = np.expand_dims(values, dim), np.expand_dims(idx, dim)
    if xp is np:
        return values, idx
    return xp.asarray(values), xp.asarray(idx)


MODE = declare(
    "mode",
    "ModeBackward0",
    ("self",),
    _mode_fwd,
    _select_grad,
    dtype="same",
    outputs=2,
    save={"indices": None},
    samples=(Sample(((2, 3),), {"dim": 1}, distinct=True),),
    grad_version=2,
)


@public(
    "mode",
    ("input",),
    (Param("dim", "dim"), KEEPDIM),
    outputs=("values", "indices"),
    category="reduction",
    doc="most frequent value along dim, and its index",
)
def mode(input: Any, dim: int = -1, keepdim: bool = False) -> Any:  # noqa: A002
    d = _wrap_dim(dim, input.ndim)
    values, indices = apply_op(MODE, (input,), {"dim": d, "keepdim": keepdim})
    return mode_type(values, indices)


# -- cummax / cummin ----------------------------------------------------------------------
def _running(which: str) -> Any:
    def forward(xp: Any, a: Any, dim: int) -> tuple[Any, Any]:
        if a.ndim == 0:
            return a.copy(), xp.zeros((), xp.int64)
        acc = xp.maximum if which == "max" else xp.minimum
        values = acc.accumulate(a, axis=dim)
        hit = a == values
        if a.dtype.kind == "f":
            hit = hit | xp.isnan(a)
        shape = [1] * a.ndim
        shape[dim] = a.shape[dim]
        positions = xp.arange(a.shape[dim]).reshape(shape)
        indices = xp.maximum.accumulate(xp.where(hit, positions, 0), axis=dim)
        return values, indices.astype(xp.int64)

    return forward


def _cummaxmin_grad(ctx: Any, g: Any, _indices_grad: Any = None) -> Any:
    """``cummaxmin_backward``: ``zeros_like(self).scatter_add(dim, indices, grad)``."""
    return ctx.math.scatter_backward(
        g,
        shape=tuple(ctx.shapes[0]),
        dim=ctx.params["dim"],
        index=ctx.saved["indices"],
        keepdim=True,
    )


CUMMAX = declare(
    "cummax",
    "CummaxBackward0",
    ("self",),
    on_host(_running("max")),
    _cummaxmin_grad,
    dtype="same",
    outputs=2,
    save={"indices": None},
    samples=(Sample(((2, 3),), {"dim": 1}, distinct=True),),
    grad_version=2,
)
CUMMIN = declare(
    "cummin",
    "CumminBackward0",
    ("self",),
    on_host(_running("min")),
    _cummaxmin_grad,
    dtype="same",
    outputs=2,
    save={"indices": None},
    samples=(Sample(((2, 3),), {"dim": 0}, distinct=True),),
    grad_version=2,
)


def _running_public(name: str, op: Any, kind: Any) -> Any:
    def fn(input: Any, dim: int) -> Any:  # noqa: A002
        values, indices = apply_op(op, (input,), {"dim": _wrap_dim(dim, input.ndim)})
        return kind(values, indices)

    fn.__name__ = fn.__qualname__ = name
    return public(
        name,
        ("input",),
        (Param("dim", "dim"),),
        outputs=("values", "indices"),
        category="reduction",
        doc=f"running {name[3:]}imum along dim, and where it was reached",
    )(fn)


cummax = _running_public("cummax", CUMMAX, cummax_type)
cummin = _running_public("cummin", CUMMIN, cummin_type)


# -- logcumsumexp -------------------------------------------------------------------------
def _logcumsumexp_fwd(xp: Any, a: Any, dim: int) -> Any:
    if a.ndim == 0:
        return a.copy()
    return xp.logaddexp.accumulate(a, axis=dim)


def _logcumsumexp_grad(ctx: Any, g: Any) -> Any:
    """``logcumsumexp_backward``: positive and negative parts of the gradient, each a
    reversed ``logcumsumexp`` in log space (TensorFlow's formula, as ATen's)."""
    x, result, dim = ctx.saved["self"], ctx.saved["result"], ctx.params["dim"]
    m = ctx.math
    data = data_of(ctx, g)
    xp = array_module(data)
    lowest = np.finfo(data.dtype).min
    floor = xp.full(data.shape, lowest, dtype=data.dtype)
    floor = floor if m is ARRAY_MATH else type(g)._wrap(floor)
    log_abs = m.log(m.abs(g))

    def reversed_lcse(t: Any) -> Any:
        return m.flip(m.logcumsumexp(m.flip(t, dims=(dim,)), dim=dim), dims=(dim,))

    pos = m.where(log_abs, floor, condition=data > 0)
    neg = m.where(log_abs, floor, condition=data < 0)
    out_pos = m.exp(reversed_lcse(pos - result) + x)
    out_neg = m.exp(reversed_lcse(neg - result) + x)
    return out_pos - out_neg


LOGCUMSUMEXP = declare(
    "logcumsumexp",
    "LogcumsumexpBackward0",
    ("self",),
    on_host(_logcumsumexp_fwd),
    _logcumsumexp_grad,
    dtype="same",
    save={"self": None, "result": None},
    samples=(Sample(((2, 3),), {"dim": 1}), Sample(((3, 2),), {"dim": 0})),
    quiet=True,
)


@public(
    "logcumsumexp",
    ("input",),
    (Param("dim", "dim"),),
    category="reduction",
    doc="running log(sum(exp(input))) along dim",
)
def logcumsumexp(input: Any, dim: int) -> Any:  # noqa: A002
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"logcumsumexp(): expected input to have floating point dtype but got "
            f"{input.dtype.scalar_name}"
        )
    return apply_op(LOGCUMSUMEXP, (input,), {"dim": _wrap_dim(dim, input.ndim)})


# -- searchsorted / bucketize / unique_consecutive ---------------------------------
def _wrap(data: Any) -> Any:
    return Tensor._wrap(data)


def _host(t: Any) -> tuple[Any, Any]:
    data = t._data
    xp = array_module(data)
    return (data if xp is np else xp.asnumpy(data)), xp


@public(
    "searchsorted",
    ("sorted_sequence", "input"),
    (Param("out_int32", "bool"), Param("right", "bool")),
    category="indexing",
    doc="insertion points of input in a sorted sequence",
    differentiable=False,
    method=False,
    example=Example(inputs={"sorted_sequence": (4,), "input": (2, 3)}),
)
def searchsorted(
    sorted_sequence: Any,
    input: Any,  # noqa: A002
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Any = None,
) -> Any:
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True"
            )
        right = side == "right"
    scalar = not hasattr(input, "_data")
    values = tensor(input) if scalar else input
    seq, xp = _host(sorted_sequence)
    vals, _ = _host(values)
    if sorter is not None:
        order, _ = _host(sorter)
        seq = np.take_along_axis(seq, order, axis=-1)
    where = "right" if right else "left"
    if seq.ndim == 1:
        out = np.searchsorted(seq, vals, side=where)
    else:
        if seq.shape[:-1] != vals.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(seq.shape)} and input value tensor {list(vals.shape)}"
            )
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = vals.reshape(-1, vals.shape[-1])
        out = np.stack(
            [np.searchsorted(s, v, side=where) for s, v in zip(rows_s, rows_v, strict=True)]
        ).reshape(vals.shape)
    out = np.asarray(out, np.int32 if out_int32 else np.int64)
    return _wrap(out if xp is np else xp.asarray(out))


@public(
    "bucketize",
    ("input", "boundaries"),
    (Param("out_int32", "bool"), Param("right", "bool")),
    category="indexing",
    doc="index of the bucket each value falls in",
    differentiable=False,
    method=False,
    example=Example(inputs={"input": (2, 3), "boundaries": (4,)}),
)
def bucketize(input: Any, boundaries: Any, *, out_int32: bool = False, right: bool = False) -> Any:  # noqa: A002
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def _not_implemented(ctx: Any, g: Any) -> Any:
    raise NotImplementedError("the derivative for 'unique_consecutive' is not implemented.")


UNIQUE_CONSECUTIVE = declare(
    "unique_consecutive",
    "UniqueConsecutiveBackward0",
    ("self",),
    lambda xp, a, values: values,
    _not_implemented,
    dtype="same",
)


@public(
    "unique_consecutive",
    ("input",),
    (Param("return_inverse", "bool"), Param("return_counts", "bool"), Param("dim", "dims")),
    outputs=("output", "inverse_indices", "counts"),
    output_flags=(("inverse_indices", "return_inverse"), ("counts", "return_counts")),
    category="indexing",
    doc="values with consecutive repeats collapsed",
    differentiable=False,
)
def unique_consecutive(
    input: Any,  # noqa: A002
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    data, xp = _host(input)
    if dim is None:
        flat = data.reshape(-1)
        starts = np.ones(flat.shape[0], bool)
        if flat.size:
            starts[1:] = flat[1:] != flat[:-1]
        values = flat[starts]
        group = np.cumsum(starts) - 1
        inverse = group.reshape(data.shape)
    else:
        d = _wrap_dim(dim, data.ndim)
        moved = np.moveaxis(data, d, 0)
        n = moved.shape[0]
        starts = np.ones(n, bool)
        for i in range(1, n):
            starts[i] = not np.array_equal(moved[i], moved[i - 1])
        values = np.moveaxis(moved[starts], 0, d)
        inverse = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.nonzero(starts)[0], starts.shape[0]))

    def back(a: Any, dtype: Any = None) -> Any:
        a = np.ascontiguousarray(a if dtype is None else a.astype(dtype))
        return _wrap(a if xp is np else xp.asarray(a))

    values = np.ascontiguousarray(values)
    out = [
        apply_op(
            UNIQUE_CONSECUTIVE, (input,), {"values": values if xp is np else xp.asarray(values)}
        )
    ]
    if return_inverse:
        out.append(back(inverse, np.int64))
    if return_counts:
        out.append(back(counts, np.int64))
    return out[0] if len(out) == 1 else tuple(out)


# -- quantile -----------------------------------------------------------------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(
    name: str,
    input: Any,  # noqa: A002
    q: Any,
    dim: int | None,
    keepdim: bool,
    interpolation: str,
    ignore_nan: bool,
) -> Any:
    """ATen's ``quantile_compute``: sort, view as ``(*, n)``, gather the ranks below and
    above, ``lerp_`` between them, then squeeze (and move the quantiles first)."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}"
        )
    q_arr = np.asarray(to_numpy(q._data) if hasattr(q, "_data") else q, dtype=np.float64)
    if q_arr.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if ((q_arr < 0) | (q_arr > 1)).any():
        if hasattr(q, "_data"):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
    if dim is None:
        sorted_ = input.flatten().sort()[0]
        out_shape = [1] * input.ndim if keepdim else []
    else:
        d = wrap_dim(dim, input.ndim) if input.ndim else 0
        last = d == input.ndim - 1 or not input.ndim
        sorted_ = (input if last else input.unsqueeze(-1).transpose(d, -1)).sort()[0]
        out_shape = list(input.shape)
        if input.ndim:
            if keepdim:
                out_shape[d] = 1
            else:
                del out_shape[d]
    n = sorted_.shape[-1]
    if n == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    sorted_ = sorted_.view(*out_shape, n)
    host = sorted_._data if isinstance(sorted_._data, np.ndarray) else None
    host = host if host is not None else array_module(sorted_._data).asnumpy(sorted_._data)
    qs = q_arr.reshape(-1)
    nan = np.isnan(host)
    if ignore_nan:
        ranks = qs * (np.logical_not(nan).sum(-1, keepdims=True) - 1)
        ranks = np.where(ranks < 0, 0, ranks)
    else:
        ranks = np.broadcast_to(qs * (n - 1), (*host.shape[:-1], qs.size)).copy()
        ranks = np.where(nan.any(-1, keepdims=True), n - 1, ranks)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    device = input.device
    below = np.floor(ranks).astype(np.int64)
    values = sorted_.gather(-1, tensor(below, device=device))
    if interpolation in ("linear", "midpoint"):
        weights = np.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        above = sorted_.gather(-1, tensor(np.ceil(ranks).astype(np.int64), device=device))
        values.lerp_(above, tensor(weights, dtype=input.dtype, device=device))
    if q_arr.ndim == 0:
        return values.squeeze_(-1)
    return values.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)


def _quantile_public(name: str, ignore_nan: bool) -> Any:
    def fn(
        input: Any,  # noqa: A002
        q: Any,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        interpolation: str = "linear",
    ) -> Any:
        return _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan)

    fn.__name__ = fn.__qualname__ = name
    return public(
        name,
        ("input",),
        (Param("q", "number", 0.5), Param("dim", "dims"), KEEPDIM),
        category="reduction",
        doc="q-th quantile" + (", NaN ignored" if ignore_nan else ""),
    )(fn)


quantile = _quantile_public("quantile", False)
nanquantile = _quantile_public("nanquantile", True)
