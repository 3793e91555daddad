"""Reductions programs summarise data with beyond ``sum``/``mean``/``max``: ``nansum``
and ``nanmean``, ``std_mean`` and ``var_mean`` (one node, two differentiable outputs),
``median``/``nanmedian``, ``aminmax``, and the selections ``masked_select``/``take``.

Each node is PyTorch's (``NansumBackward0``, ``StdMeanBackward0``, ``MedianBackward0/1``,
``AminmaxBackward0``, ``MaskedSelectBackward0``, ``TakeBackward0``) with the formula of
``derivatives.yaml``; ``nanmean`` is ATen's composition, ``nansum`` over a count.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import array_module
from engine.catalog import Example, Param, public
from engine.ops.broadcast import broadcast_shapes
from engine.ops.core import ARRAY_MATH, Sample, apply_op, declare
from engine.ops.host import on_host
from engine.ops.logic import isnan
from engine.ops.pointwise import data_of, logical_not
from engine.ops.reduce import _norm_dims, _select_dim_grad, _sum
from engine.ops.shape import _wrap
from engine.ops.stats import _restore, _spread, _two_over, _two_pass
from engine.return_types import _make

KEEPDIM = Param("keepdim", "bool")
median_type = _make("median")
nanmedian_type = _make("nanmedian")


def _wrap_bool(ctx: Any, mask: Any, like: Any) -> Any:
    return mask if ctx.math is ARRAY_MATH else type(like)._wrap(mask)


# -- nansum / nanmean ---------------------------------------------------------------------------
def _nansum_fwd(xp: Any, a: Any, dims: Any, keepdim: bool = False, dtype: Any = None) -> Any:
    if a.dtype.kind == "f":
        a = xp.where(xp.isnan(a), a.dtype.type(0), a)
    return _sum(xp, a, dims, keepdim, dtype)


def _nansum_grad(ctx: Any, g: Any) -> Any:
    """``nansum_backward``: the gradient where ``self`` is not NaN, 0 where it is."""
    x = ctx.saved["self"]
    data = data_of(ctx, x)
    g = ctx.math.expand(_restore(ctx, g), size=tuple(ctx.shapes[0]))
    keep = _wrap_bool(ctx, ~array_module(data).isnan(data), x)
    return g * keep


NANSUM = declare(
    "nansum",
    "NansumBackward0",
    ("self",),
    _nansum_fwd,
    _nansum_grad,
    dtype="sum",
    save={"self": None},
    samples=(Sample(((2, 3),), {"dims": (0, 1)}), Sample(((2, 3),), {"dims": (1,)})),
)


@public(
    "nansum",
    ("input",),
    (Param("dim", "dims"), KEEPDIM),
    category="reduction",
    doc="sum, NaN counted as zero",
)
def nansum(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:  # noqa: A002
    dims = _norm_dims(dim if dim not in (None, (), []) else None, input.ndim)
    return apply_op(NANSUM, (input,), {"dims": dims, "keepdim": keepdim, "dtype": dtype})


@public(
    "nanmean",
    ("input",),
    (Param("dim", "dims"), KEEPDIM),
    category="reduction",
    doc="mean of the values that are not NaN",
)
def nanmean(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:  # noqa: A002
    """ATen's: ``nansum(...) / (~isnan).sum(...)``."""
    if not (input.dtype.is_floating_point or dtype is not None):
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{input.dtype.scalar_name}"
        )

    factor = logical_not(isnan(input)).sum(dim, keepdim)
    return nansum(input, dim, keepdim, dtype=dtype).div(factor)


# -- std_mean / var_mean ----------------------------------------------------------------------
def _moments(root: bool) -> Any:
    def forward(xp: Any, a: Any, dims: Any, correction: float = 1, keepdim: bool = False) -> Any:
        spread = _two_pass(xp, a, dims, correction, keepdim)
        mean = xp.mean(a, axis=dims, keepdims=keepdim) if dims else a.copy()
        return (xp.sqrt(spread) if root else spread), xp.asarray(mean, dtype=a.dtype)

    return forward


def _mean_part(ctx: Any, g: Any) -> Any:
    """``mean_backward``: the gradient spread evenly over the reduced elements."""
    dims = ctx.params["dims"]
    n = math.prod(ctx.shapes[0][d] for d in dims) if dims else 1
    return ctx.math.expand(_restore(ctx, g), size=tuple(ctx.shapes[0])) / n


def _spread_part(ctx: Any, g: Any) -> Any:
    x = ctx.saved["self"]
    dims = ctx.params["dims"]
    n = math.prod(ctx.shapes[0][d] for d in dims) if dims else 1
    mean = ctx.math.mean_dim(x, dims=dims, keepdim=True) if dims else x
    return ctx.math.mul_scalar(
        _restore(ctx, g), other=_two_over(n, ctx.params.get("correction", 1))
    ) * (x - mean)


def _var_mean_grad(ctx: Any, g_var: Any, g_mean: Any = None) -> Any:
    """``var_mean_backward``: ``var_backward`` plus ``mean_backward`` for what arrived."""
    out = None if g_var is None else _spread_part(ctx, g_var)
    if g_mean is not None:
        part = _mean_part(ctx, g_mean)
        out = part if out is None else out + part
    return out


def _std_mean_grad(ctx: Any, g_std: Any, g_mean: Any = None) -> Any:
    """``std_mean_backward``: ``std_backward`` (through ``result0``) plus ``mean_backward``."""
    out = None
    if g_std is not None:
        result = ctx.saved["result"]
        half = g_std / ctx.math.mul_scalar(result, other=2)
        half = ctx.math.masked_fill(half, mask=data_of(ctx, result) == 0, value=0)
        out = _spread_part(ctx, half)
    if g_mean is not None:
        part = _mean_part(ctx, g_mean)
        out = part if out is None else out + part
    return out


_MOMENT_SAMPLES = (Sample(((2, 3),), {"dims": (0, 1)}), Sample(((2, 3),), {"dims": (1,)}))
VAR_MEAN = declare(
    "var_mean",
    "VarMeanBackward0",
    ("self",),
    _moments(False),
    _var_mean_grad,
    dtype="same",
    outputs=2,
    every_output=True,
    save={"self": None},
    samples=_MOMENT_SAMPLES,
    quiet=True,
)
STD_MEAN = declare(
    "std_mean",
    "StdMeanBackward0",
    ("self",),
    _moments(True),
    _std_mean_grad,
    dtype="same",
    outputs=2,
    every_output=True,
    save={"self": None, "result": None},
    samples=_MOMENT_SAMPLES,
    quiet=True,
)


def _moment(
    op: Any, name: str, input: Any, dim: Any, unbiased: Any, keepdim: bool, correction: Any
) -> Any:  # noqa: A002

    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return _spread(op, name, input, dim, unbiased, keepdim, correction)


@public(
    "var_mean",
    ("input",),
    (Param("dim", "dims"), KEEPDIM),
    outputs=("var", "mean"),
    category="reduction",
    doc="variance and mean in one pass",
    method=False,
)
def var_mean(
    input: Any,  # noqa: A002
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Any:
    return _moment(VAR_MEAN, "var_mean", input, dim, unbiased, keepdim, correction)


@public(
    "std_mean",
    ("input",),
    (Param("dim", "dims"), KEEPDIM),
    outputs=("std", "mean"),
    category="reduction",
    doc="standard deviation and mean in one pass",
    method=False,
)
def std_mean(
    input: Any,  # noqa: A002
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Any:
    return _moment(STD_MEAN, "std_mean", input, dim, unbiased, keepdim, correction)


# -- median / nanmedian ---------------------------------------------------------------------------
def _lower_median(xp: Any, a: Any, axis: int, skip_nan: bool) -> tuple[Any, Any]:
    """Values and indices of the lower median along ``axis`` (ATen's choice of the two
    middle elements): the stable sort's element ``(n - 1) // 2``, NaN sorted last; without
    ``skip_nan`` any NaN is the result, with it the count of non-NaN values decides."""
    order = xp.argsort(a, axis=axis, kind="stable")
    ordered = xp.take_along_axis(a, order, axis=axis)
    n = a.shape[axis]
    nans = xp.isnan(a).sum(axis=axis, keepdims=True) if a.dtype.kind == "f" else None
    if skip_nan and nans is not None:
        pos = xp.maximum((n - nans - 1) // 2, 0)
    else:
        pos = xp.full((*ordered.shape[:axis], 1, *ordered.shape[axis + 1 :]), (n - 1) // 2)
        if nans is not None:  # the first NaN, as ATen reports it
            first_nan = xp.argmax(xp.isnan(ordered), axis=axis)
            pos = xp.where(nans > 0, xp.expand_dims(first_nan, axis), pos)
    pos = pos.astype(xp.int64)
    return xp.take_along_axis(ordered, pos, axis=axis), xp.take_along_axis(order, pos, axis=axis)


def _median_full(skip_nan: bool) -> Any:
    def forward(xp: Any, a: Any) -> Any:
        if a.size == 0:
            return xp.asarray(math.nan, dtype=a.dtype)
        values, _ = _lower_median(xp, a.reshape(-1), 0, skip_nan)
        return values.reshape(())

    return forward


def _evenly_distribute(ctx: Any, g: Any) -> Any:
    """``evenly_distribute_backward``: the gradient shared by every element equal to the
    result (NaN matching NaN)."""
    x, result = ctx.saved["self"], ctx.saved["result"]
    xd, rd = data_of(ctx, x), data_of(ctx, result)
    xp = array_module(xd)
    mask = (xd == rd) | (xp.isnan(xd) & xp.isnan(rd)) if xd.dtype.kind == "f" else xd == rd
    share = g / int(mask.sum())
    return ctx.math.expand(share, size=tuple(ctx.shapes[0])) * _wrap_bool(ctx, mask, x)


def _median_dim(skip_nan: bool) -> Any:
    def forward(xp: Any, a: Any, dim: int, keepdim: bool = False) -> tuple[Any, Any]:
        if a.ndim == 0:
            return a.copy(), xp.zeros((), xp.int64)
        values, indices = _lower_median(xp, a, dim, skip_nan)
        if not keepdim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
        return values, indices

    return forward


def _select_grad(ctx: Any, g: Any, _indices_grad: Any = None) -> Any:
    return _select_dim_grad(ctx, g, _indices_grad)


MEDIAN = declare(
    "median",
    "MedianBackward0",
    ("self",),
    _median_full(False),
    _evenly_distribute,
    dtype="same",
    save={"self": None, "result": None},
    samples=(Sample(((2, 3),), distinct=True),),
    grad_version=1,
)
NANMEDIAN = declare(
    "nanmedian",
    "NanmedianBackward0",
    ("self",),
    _median_full(True),
    _evenly_distribute,
    dtype="same",
    save={"self": None, "result": None},
    samples=(Sample(((2, 3),), distinct=True),),
    grad_version=1,
)
MEDIAN_DIM = declare(
    "median_dim",
    "MedianBackward1",
    ("self",),
    _median_dim(False),
    _select_grad,
    dtype="same",
    outputs=2,
    save={"indices": None},
    samples=(Sample(((2, 3),), {"dim": 1}, distinct=True),),
    grad_version=2,
)
NANMEDIAN_DIM = declare(
    "nanmedian_dim",
    "NanmedianBackward1",
    ("self",),
    _median_dim(True),
    _select_grad,
    dtype="same",
    outputs=2,
    save={"indices": None},
    samples=(Sample(((2, 3),), {"dim": 0, "keepdim": True}, distinct=True),),
    grad_version=2,
)


def _median(full: Any, along: Any, kind: Any, input: Any, dim: Any, keepdim: bool) -> Any:  # noqa: A002
    if dim is None:
        return apply_op(full, (input,))

    d = _wrap(dim, input.ndim) if input.ndim else 0
    values, indices = apply_op(along, (input,), {"dim": d, "keepdim": keepdim})
    return kind(values, indices)


@public(
    "median",
    ("input",),
    (Param("dim", "dims"), KEEPDIM),
    outputs=("values", "indices"),
    category="reduction",
    doc="lower median, or (values, indices) along dim",
)
def median(input: Any, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002
    return _median(MEDIAN, MEDIAN_DIM, median_type, input, dim, keepdim)


@public(
    "nanmedian",
    ("input",),
    (Param("dim", "dims"), KEEPDIM),
    outputs=("values", "indices"),
    category="reduction",
    doc="lower median ignoring NaN, or (values, indices) along dim",
)
def nanmedian(input: Any, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002
    return _median(NANMEDIAN, NANMEDIAN_DIM, nanmedian_type, input, dim, keepdim)


# -- aminmax --------------------------------------------------------------------------------------
class aminmax_type(tuple):  # noqa: N801  (PyTorch's class name)
    """``torch.return_types.aminmax``: ``(min, max)`` with both names."""

    __slots__ = ()
    __module__ = "torch.return_types"

    def __new__(cls, min: Any, max: Any) -> aminmax_type:  # noqa: A002
        return tuple.__new__(cls, (min, max))

    @property
    def min(self) -> Any:
        return self[0]

    @property
    def max(self) -> Any:
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"


aminmax_type.__name__ = aminmax_type.__qualname__ = "aminmax"


def _aminmax_fwd(xp: Any, a: Any, dim: Any = None, keepdim: bool = False) -> tuple[Any, Any]:
    if a.size == 0:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has "
            "no identity."
        )
    axis = None if dim is None else dim
    lo = xp.amin(a, axis=axis, keepdims=keepdim and dim is not None)
    hi = xp.amax(a, axis=axis, keepdims=keepdim and dim is not None)
    if dim is None and keepdim:
        lo, hi = lo.reshape((1,) * a.ndim), hi.reshape((1,) * a.ndim)
    return xp.asarray(lo), xp.asarray(hi)


def _extreme_share(ctx: Any, g: Any, result: Any) -> Any:
    """``amax``/``amin``'s backward: the gradient shared by the elements that hit it."""
    x = ctx.saved["self"]
    dim, keepdim = ctx.params.get("dim"), ctx.params.get("keepdim", False)
    xd, rd = data_of(ctx, x), data_of(ctx, result)
    if dim is not None and not keepdim:
        rd = array_module(rd).expand_dims(rd, dim)
        g = ctx.math.unsqueeze(g, dim=dim)
    elif dim is None:
        rd = rd.reshape(())
        g = ctx.math.reshape(g, shape=()) if keepdim else g
    mask = xd == rd
    count = mask.sum(axis=dim, keepdims=True) if dim is not None else mask.sum()
    share = g / _wrap_bool(ctx, count.astype(xd.dtype), x)
    return ctx.math.expand(share, size=tuple(ctx.shapes[0])) * _wrap_bool(ctx, mask, x)


def _aminmax_grad(ctx: Any, g_min: Any, g_max: Any = None) -> Any:
    out = None
    for g, key in ((g_min, "result"), (g_max, "indices")):
        if g is not None:
            part = _extreme_share(ctx, g, ctx.saved[key] if key == "result" else _max_of(ctx))
            out = part if out is None else out + part
    return out


def _max_of(ctx: Any) -> Any:
    raw = ctx.saved["indices"]
    return raw if ctx.math is ARRAY_MATH else type(ctx.saved["self"])._wrap(raw)


AMINMAX = declare(
    "aminmax",
    "AminmaxBackward0",
    ("self",),
    _aminmax_fwd,
    _aminmax_grad,
    dtype="same",
    outputs=2,
    every_output=True,
    save={"self": None, "result": None, "indices": None},
    samples=(Sample(((2, 3),), distinct=True), Sample(((2, 3),), {"dim": 1}, distinct=True)),
)


@public(
    "aminmax",
    ("input",),
    (Param("dim", "dims"), KEEPDIM),
    outputs=("min", "max"),
    category="reduction",
    doc="smallest and largest values",
)
def aminmax(input: Any, *, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002
    params: dict[str, Any] = {"keepdim": keepdim}
    if dim is not None:
        params["dim"] = _wrap(dim, input.ndim) if input.ndim else 0
    return aminmax_type(*apply_op(AMINMAX, (input,), params))


# -- masked_select / take -------------------------------------------------------------------------
def _masked_select_fwd(xp: Any, a: Any, mask: Any) -> Any:
    shape = xp.broadcast_shapes(a.shape, mask.shape)
    return xp.broadcast_to(a, shape)[xp.broadcast_to(mask, shape)]


def _masked_select_grad(ctx: Any, g: Any) -> Any:
    """``masked_select_backward``: the gradient placed where the (broadcast) mask is True;
    the engine sums a broadcast gradient back to the input's shape."""
    mask = ctx.params["mask"]
    xp = array_module(mask)
    shape = tuple(np.broadcast_shapes(tuple(ctx.shapes[0]), mask.shape))
    return ctx.math.index_backward(g, shape=shape, key=(xp.broadcast_to(mask, shape),))


MASKED_SELECT = declare(
    "masked_select",
    "MaskedSelectBackward0",
    ("self",),
    on_host(_masked_select_fwd),
    _masked_select_grad,
    dtype="same",
    samples=(Sample(((2, 3),), {"mask": "mask_param"}),),
    grad_version=1,
)


@public(
    "masked_select",
    ("input", "mask"),
    category="indexing",
    doc="1-D tensor of the values where mask is True",
    example=Example(values={"mask": "mask"}),
)
def masked_select(input: Any, mask: Any) -> Any:  # noqa: A002
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")

    broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    return apply_op(MASKED_SELECT, (input,), {"mask": mask._data})


def _take_grad(ctx: Any, g: Any) -> Any:
    """``take_backward``: the gradient added at each flat index (repeats accumulate)."""
    shape = tuple(ctx.shapes[0])
    index = ctx.params["index"]
    xp = array_module(index)
    if not shape:
        return ctx.math.sum(g)
    host = index if xp is np else xp.asnumpy(index)
    flat = np.where(host < 0, host + max(math.prod(shape), 1), host)
    key = tuple(k if xp is np else xp.asarray(k) for k in np.unravel_index(flat, shape))
    return ctx.math.index_backward(g, shape=shape, key=key)


TAKE = declare(
    "take",
    "TakeBackward0",
    ("self",),
    lambda xp, a, index: a.reshape(-1)[index],
    _take_grad,
    dtype="same",
    samples=(Sample(((2, 3),), {"index": "index_param"}),),
    grad_version=1,
)


@public(
    "take",
    ("input", "index"),
    category="indexing",
    doc="values at flat indices",
    example=Example(values={"index": "index"}),
)
def take(input: Any, index: Any) -> Any:  # noqa: A002
    if index.dtype is not dtypes.int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {index.dtype.scalar_name}"
        )
    n = input.numel()
    data = index._data
    if data.size:
        bad = data[(data >= n) | (data < -n)] if n else data
        if bad.size:
            raise IndexError(
                f"out of range: tried to access index {int(bad.reshape(-1)[0])} on a tensor of "
                f"{n} elements."
            )
    return apply_op(TAKE, (input,), {"index": data})
