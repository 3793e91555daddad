"""Reductions: sum, mean, max, min (whole tensor and along dimensions)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from engine import dtypes, return_types
from engine.backend import array_module
from engine.cascade_sum import reduce_sum, small_total
from engine.catalog import Param, public
from engine.integers import int_tuple
from engine.ops.core import Sample, apply_op, declare
from engine.ops.pointwise import maximum, minimum
from engine.quiet import quietly
from engine.tensor import Tensor

DIMS = Param("dim", "dims")
KEEPDIM = Param("keepdim", "bool")


def _norm_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    dims = () if dim is None else int_tuple(dim)
    if not dims:  # None or ``()``: every dim, as ATen's empty dim list
        return tuple(range(ndim))
    n = builtins.max(ndim, 1)
    out = []
    for d in dims:
        if not -n <= d < n:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
            )
        if d % n in out:
            raise RuntimeError(f"dim {d % n} appears multiple times in the list of dims")
        out.append(d % n)
    return tuple(out) if ndim else ()


def _grad_expand(ctx: Any, g: Any) -> Any:
    """Put reduced dims back (unless keepdim) and expand to the input's shape."""
    shape = ctx.shapes[0]
    dims = ctx.params.get("dims")
    if dims is not None and not ctx.params.get("keepdim"):
        for d in sorted(dims):
            g = ctx.math.unsqueeze(g, dim=d)
    return ctx.math.expand(g, size=tuple(shape))


def _numel(shape: tuple[int, ...], dims: Any) -> int:
    n = 1
    for i, s in enumerate(shape):
        if dims is None or i in dims:
            n *= s
    return n


def _sum(xp: Any, a: Any, dims: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    """NumPy arrays of floats are summed in PyTorch's order (``engine.cascade_sum``),
    so printed losses agree to the last digit; anything else as ``xp.sum``.  NumPy's
    overflow warnings are off (PyTorch sums to ``inf`` silently), except around the
    compiled loop of a short vector, which raises none: most sums in a model are of
    few elements, and silencing costs more than the loop."""
    if xp is np and (dtype is None or dtype.np == a.dtype):
        small = small_total(a, dims, keepdim)
        if small is not None:
            return small
        exact = quietly(reduce_sum, a, dims, keepdim)
        if exact is not None:
            return exact
    return quietly(
        xp.sum, a, axis=dims, keepdims=keepdim, dtype=None if dtype is None else dtype.np
    )


SUM0 = declare(
    "sum",
    "SumBackward0",
    ("self",),
    lambda xp, a, dtype=None: _sum(xp, a, dtype=dtype),
    _grad_expand,
    dtype="sum",
    samples=(Sample(((2, 3),)), Sample(((),))),
    formula={"self": "1"},
)
SUM1 = declare(
    "sum_dim",
    "SumBackward1",
    ("self",),
    _sum,
    _grad_expand,
    dtype="sum",
    samples=(
        Sample(((2, 3),), {"dims": (1,)}),
        Sample(((2, 3, 4),), {"dims": (0, 2), "keepdim": True}),
    ),
)


def _mean_dtype(inputs: tuple[Any, ...], params: dict[str, Any]) -> dtypes.dtype:
    d = inputs[0].dtype
    if not d.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {d.scalar_name}"
        )
    return d


def _mean(xp: Any, a: Any, dims: Any = None, keepdim: bool = False) -> Any:
    """The sum divided by the count, as PyTorch's CPU ``mean`` computes it; an empty
    reduction is NaN without NumPy's "Mean of empty slice" warning."""
    n = _numel(a.shape, dims)
    if not a.size:
        with np.errstate(invalid="ignore"):  # 0 / 0 is the NaN PyTorch gives, silently
            return xp.sum(a, axis=dims, keepdims=keepdim) / n
    if a.dtype.itemsize < 4:
        return xp.mean(a, axis=dims, keepdims=keepdim)
    total = _sum(xp, a, dims, keepdim)
    return xp.asarray(total / total.dtype.type(n))


MEAN0 = declare(
    "mean",
    "MeanBackward0",
    ("self",),
    _mean,
    lambda ctx, g: _grad_expand(ctx, g) / _numel(ctx.shapes[0], None),
    dtype=_mean_dtype,
    quiet=True,
    samples=(Sample(((2, 3),)),),
    formula={"self": "1 / numel(self)"},
)
MEAN1 = declare(
    "mean_dim",
    "MeanBackward1",
    ("self",),
    _mean,
    lambda ctx, g: _grad_expand(ctx, g) / _numel(ctx.shapes[0], ctx.params["dims"]),
    dtype=_mean_dtype,
    quiet=True,
    samples=(Sample(((2, 3),), {"dims": (0,)}),),
)


def _evenly(ctx: Any, g: Any) -> Any:
    """Gradient of a full max/min: shared evenly among tied elements."""
    mask = ctx.math.eq(ctx.saved["self"], ctx.saved["result"])
    return ctx.math.where(
        ctx.math.expand(g, size=tuple(ctx.shapes[0])) / ctx.math.sum(mask), g * 0, condition=mask
    )


def _check_nonempty(name: str) -> Any:
    def fwd(xp: Any, a: Any) -> Any:
        if a.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return getattr(xp, "amax" if name == "max" else "amin")(a)

    return fwd


MAX1 = declare(
    "max",
    "MaxBackward1",
    ("self",),
    _check_nonempty("max"),
    _evenly,
    dtype="same",
    save={"self": None, "result": None},
    samples=(Sample(((2, 3),), distinct=True),),
    grad_version=1,
)
MIN1 = declare(
    "min",
    "MinBackward1",
    ("self",),
    _check_nonempty("min"),
    _evenly,
    dtype="same",
    save={"self": None, "result": None},
    samples=(Sample(((2, 3),), distinct=True),),
    grad_version=1,
)


def _select_dim(which: str) -> Any:
    def fwd(xp: Any, a: Any, dim: int, keepdim: bool = False) -> tuple[Any, Any]:
        idx = (xp.argmax if which == "max" else xp.argmin)(a, axis=dim, keepdims=True)
        vals = xp.take_along_axis(a, idx, axis=dim)
        if not keepdim:
            vals, idx = vals.squeeze(dim), idx.squeeze(dim)
        return vals, idx.astype(xp.int64)

    return fwd


def _select_dim_grad(ctx: Any, g: Any, _indices_grad: Any = None) -> Any:
    idx, dim = ctx.saved["indices"], ctx.params["dim"]
    keepdim = ctx.params.get("keepdim", False)
    if not keepdim:
        g = ctx.math.unsqueeze(g, dim=dim)
    return ctx.math.scatter_backward(
        g, shape=tuple(ctx.shapes[0]), dim=dim, index=idx, keepdim=keepdim
    )


MAX0 = declare(
    "max_dim",
    "MaxBackward0",
    ("self",),
    _select_dim("max"),
    _select_dim_grad,
    dtype="same",
    outputs=2,
    save={"indices": None},
    samples=(Sample(((2, 3),), {"dim": 1}, distinct=True),),
    grad_version=2,
)
MIN0 = declare(
    "min_dim",
    "MinBackward0",
    ("self",),
    _select_dim("min"),
    _select_dim_grad,
    dtype="same",
    outputs=2,
    save={"indices": None},
    samples=(Sample(((2, 3),), {"dim": 0, "keepdim": True}, distinct=True),),
    grad_version=2,
)


def _scatter_fwd(
    xp: Any, g: Any, shape: tuple[int, ...], dim: int, index: Any, keepdim: bool
) -> Any:
    index = getattr(index, "_data", index)
    if not keepdim:
        index = xp.expand_dims(index, dim)
    out = xp.zeros(shape, dtype=g.dtype)
    grid = list(xp.indices(index.shape, sparse=True))
    grid[dim] = index
    xp.add.at(out, tuple(grid), g)  # gather may pick an element twice: gradients add up
    return out


def _scatter_grad(ctx: Any, gg: Any) -> Any:
    index = ctx.params["index"]
    index = getattr(index, "_data", index)
    dim = ctx.params["dim"]
    if not ctx.params["keepdim"]:  # (on either device: a CuPy index was left unexpanded)
        index = array_module(index).expand_dims(index, dim)
    return ctx.math.gather(gg, dim=dim, index=index)


declare(
    "scatter_backward",
    "ValueSelectingReductionBackwardBackward0",
    ("grad",),
    _scatter_fwd,
    _scatter_grad,
)


def _gather_fwd(xp: Any, a: Any, dim: int, index: Any) -> Any:
    """``take_along_axis`` on an explicit grid: PyTorch's index may be smaller than the
    input in the other dims too, where NumPy would ask the two to broadcast."""
    grid = list(xp.indices(index.shape, sparse=True))
    grid[dim] = index
    return a[tuple(grid)]


declare(
    "gather",
    "GatherBackward0",
    ("self",),
    lambda xp, a, dim, index: _gather_fwd(xp, a, dim, getattr(index, "_data", index)),
    lambda ctx, g: ctx.math.scatter_backward(
        g,
        shape=tuple(ctx.shapes[0]),
        dim=ctx.params["dim"],
        index=ctx.params["index"],
        keepdim=True,
    ),
    grad_version=1,
)


@public(
    "sum",
    ("input",),
    (DIMS, KEEPDIM, Param("dtype", "dtype")),
    category="reduction",
    doc="sum of all elements, or along dim",
)
def sum(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:  # noqa: A001, A002
    extra = {} if dtype is None else {"dtype": dtype}
    if dim is None:
        if keepdim:
            dim = tuple(range(input.ndim))
        else:
            return apply_op(SUM0, (input,), extra or None)
    dims = _norm_dims(dim, input.ndim)
    return apply_op(SUM1, (input,), {"dims": dims, "keepdim": keepdim, **extra})


@public(
    "mean",
    ("input",),
    (DIMS, KEEPDIM),
    category="reduction",
    doc="mean of all elements, or along dim",
)
def mean(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:  # noqa: A002
    if dtype is not None:
        input = input.to(dtype)
    if dim is None and not keepdim:
        return apply_op(MEAN0, (input,))
    dims = _norm_dims(dim, input.ndim)
    return apply_op(MEAN1, (input,), {"dims": dims, "keepdim": keepdim})


def _reduce_select(which: str, full: Any, along: Any) -> Any:
    def fn(input: Any, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002

        if isinstance(dim, Tensor):
            return (maximum_fn if which == "max" else minimum_fn)(input, dim)
        if dim is None:
            return apply_op(full, (input,))
        d = _norm_dims(dim, input.ndim)
        values, indices = apply_op(along, (input,), {"dim": d[0] if d else 0, "keepdim": keepdim})
        return getattr(return_types, which)(values, indices)

    fn.__name__ = fn.__qualname__ = which
    return fn


def maximum_fn(a: Any, b: Any) -> Any:
    return maximum(a, b)


def minimum_fn(a: Any, b: Any) -> Any:
    return minimum(a, b)


max = public(
    "max",
    ("input",),
    (Param("dim", "dims"), KEEPDIM),
    outputs=("values", "indices"),  # noqa: A001
    category="reduction",
    doc="largest element, or (values, indices) along dim",
)(_reduce_select("max", MAX1, MAX0))
min = public(
    "min",
    ("input",),
    (Param("dim", "dims"), KEEPDIM),
    outputs=("values", "indices"),  # noqa: A001
    category="reduction",
    doc="smallest element, or (values, indices) along dim",
)(_reduce_select("min", MIN1, MIN0))


@public(
    "argmax",
    ("input",),
    (DIMS, KEEPDIM),
    category="reduction",
    doc="the int64 index of the largest element, over all or along dim",
    differentiable=False,
)
def argmax(input: Any, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002

    a = input._data
    if a.dtype == bool:
        raise RuntimeError("argmax(): does not support bool input")
    if dim is None:
        return Tensor._wrap(a.reshape(-1).argmax(keepdims=True).reshape(()).astype("int64"))
    out = a.argmax(axis=dim, keepdims=keepdim)
    return Tensor._wrap(out.astype("int64"))


@public(
    "argmin",
    ("input",),
    (DIMS, KEEPDIM),
    category="reduction",
    doc="the int64 index of the smallest element, over all or along dim",
    differentiable=False,
)
def argmin(input: Any, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002

    a = input._data
    if dim is None:
        return Tensor._wrap(a.reshape(-1).argmin(keepdims=True).reshape(()).astype("int64"))
    return Tensor._wrap(a.argmin(axis=dim, keepdims=keepdim).astype("int64"))
