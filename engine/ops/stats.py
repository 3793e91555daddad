"""Reductions beyond sum and mean: ``prod``, ``amax``/``amin``, ``logsumexp``,
``var``/``std``, the running sum ``cumsum`` and the running product ``cumprod``.

Each derivative is PyTorch's: ties share the gradient of ``amax``, ``prod`` gives a
single zero the product of the others, ``std``'s gradient is zero where it is zero.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import array_module
from engine.catalog import Example, Param, public
from engine.creation import ones, zeros
from engine.integers import int_tuple
from engine.ops import reduce as reductions
from engine.ops.core import ARRAY_MATH, Sample, apply_op, declare
from engine.ops.index import narrow
from engine.ops.reduce import _mean, _norm_dims
from engine.ops.shape import _wrap, cat

KEEPDIM = Param("keepdim", "bool")
#: ``std`` and ``var``: ``unbiased`` (the older spelling) or ``correction``.
SPREAD_PARAMS = (
    Param("dim", "dims"),
    Param("unbiased", "optional_bool"),
    KEEPDIM,
    Param("correction", "optional_number"),
)
_DOF_WARNING = (
    "{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
    "reduction factor (input numel divided by output numel). (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)"
)


def _restore(ctx: Any, t: Any) -> Any:
    """Put a reduced result's dimensions back (unless keepdim) so it broadcasts."""
    dims, keepdim = ctx.params.get("dims"), ctx.params.get("keepdim", False)
    if dims is not None and not keepdim:
        for d in sorted(dims):
            t = ctx.math.unsqueeze(t, dim=d)
    return t


def _int_to_long(inputs: tuple[Any, ...], params: dict[str, Any]) -> dtypes.dtype:
    d = inputs[0].dtype
    return d if d.is_floating_point else dtypes.int64


# -- prod ---------------------------------------------------------------------------------
def _prod_grad(ctx: Any, g: Any) -> Any:
    """``prod_backward``: ``grad * (result / input)`` when no input is zero (PyTorch's
    graph), otherwise the product of the others, computed without dividing by zero."""
    x, m = ctx.saved["self"], ctx.math
    dims = ctx.params.get("dims")
    all_dims = tuple(range(x.ndim)) if dims is None else dims
    g, result = _restore(ctx, g), _restore(ctx, ctx.saved["result"])
    data = x if m is ARRAY_MATH else x._data
    if x.ndim and not bool((data == 0).any()):
        return g * (result / x)
    is_zero = m.eq(x, 0)
    others = (
        m.prod_dim(m.where(x * 0 + 1, x, condition=is_zero), dims=all_dims, keepdim=True)
        if x.ndim
        else x * 0 + 1
    )
    zeros = m.sum_dim(is_zero, dims=all_dims, keepdim=True) if x.ndim else is_zero
    at_zero = m.where(g * others, g * others * 0, condition=m.eq(zeros, 1))
    safe_x = m.where(x * 0 + 1, x, condition=is_zero)
    return m.where(at_zero, g * result / safe_x, condition=is_zero)


PROD0 = declare(
    "prod",
    "ProdBackward0",
    ("self",),
    lambda xp, a: xp.prod(a, dtype=None if a.dtype.kind == "f" else "int64"),
    _prod_grad,
    dtype=_int_to_long,
    save={"self": None, "result": None},
    samples=(Sample(((2, 3),), positive=True),),
    quiet=True,
)
PROD1 = declare(
    "prod_dim",
    "ProdBackward1",
    ("self",),
    lambda xp, a, dims, keepdim=False: xp.prod(
        a, axis=dims, keepdims=keepdim, dtype=None if a.dtype.kind == "f" else "int64"
    ),
    _prod_grad,
    dtype=_int_to_long,
    save={"self": None, "result": None},
    samples=(Sample(((2, 3),), {"dims": (1,)}, positive=True),),
    quiet=True,
)


@public(
    "prod",
    ("input",),
    (Param("dim", "dim"), KEEPDIM),
    category="reduction",
    doc="product of all elements, or along dim",
)
def prod(input: Any, dim: int | None = None, keepdim: bool = False, *, dtype: Any = None) -> Any:  # noqa: A002
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return apply_op(PROD0, (input,))
    return apply_op(PROD1, (input,), {"dims": _norm_dims(dim, input.ndim), "keepdim": keepdim})


# -- amax / amin ---------------------------------------------------------------------------
def _extreme_grad(ctx: Any, g: Any) -> Any:
    x, m = ctx.saved["self"], ctx.math
    dims = ctx.params.get("dims")
    result = _restore(ctx, ctx.saved["result"])
    mask = m.eq(x, result)
    count = m.sum_dim(mask, dims=dims, keepdim=True) if x.ndim else 1
    return _restore(ctx, g) * mask / count


def _extreme(name: str, grad_fn: str, reducer: str) -> Any:
    def fwd(xp: Any, a: Any, dims: Any, keepdim: bool = False) -> Any:
        if a.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return getattr(xp, reducer)(a, axis=dims, keepdims=keepdim)

    op = declare(
        name,
        grad_fn,
        ("self",),
        fwd,
        _extreme_grad,
        dtype="same",
        save={"self": None, "result": None},
        samples=(Sample(((2, 3),), {"dims": (1,)}, distinct=True),),
    )

    def call(input: Any, dim: Any = (), keepdim: bool = False) -> Any:  # noqa: A002
        dims = tuple(range(input.ndim)) if dim is None or dim == () else dim
        return apply_op(op, (input,), {"dims": _norm_dims(dims, input.ndim), "keepdim": keepdim})

    call.__name__ = call.__qualname__ = name
    return public(
        name,
        ("input",),
        (Param("dim", "dims", None), KEEPDIM),
        category="reduction",
        doc=f"{'largest' if reducer == 'amax' else 'smallest'} values along dim",
    )(call)


amax = _extreme("amax", "AmaxBackward0", "amax")
amin = _extreme("amin", "AminBackward0", "amin")


# -- logsumexp -----------------------------------------------------------------------------
def _logsumexp_fwd(xp: Any, a: Any, dims: Any, keepdim: bool = False) -> Any:
    top = xp.amax(a, axis=dims, keepdims=True)
    top = xp.where(xp.isinf(top), 0, top)
    out = xp.log(xp.sum(xp.exp(a - top), axis=dims, keepdims=True)) + top
    return out if keepdim else xp.squeeze(out, axis=dims)


LOGSUMEXP = declare(
    "logsumexp",
    "LogsumexpBackward0",
    ("self",),
    _logsumexp_fwd,
    lambda ctx, g: (
        _restore(ctx, g) * ctx.math.exp(ctx.saved["self"] - _restore(ctx, ctx.saved["result"]))
    ),
    dtype="float",
    save={"self": None, "result": None},
    samples=(Sample(((2, 3),), {"dims": (1,)}),),
    quiet=True,
)


@public(
    "logsumexp",
    ("input",),
    (Param("dim", "dims", 0), KEEPDIM),
    category="reduction",
    doc="log(sum(exp(input))) along dim, computed stably",
)
def logsumexp(input: Any, dim: Any, keepdim: bool = False) -> Any:  # noqa: A002
    if not input.dtype.is_floating_point:
        input = input.to(dtypes.DEFAULT_FLOAT)
    return apply_op(LOGSUMEXP, (input,), {"dims": _norm_dims(dim, input.ndim), "keepdim": keepdim})


# -- var / std -----------------------------------------------------------------------------
#: ``at::internal::GRAIN_SIZE``: up to this many elements ``std_var_all_cpu`` sums on one
#: thread, in order.
_ONE_THREAD = 32768


def _var_all(a: np.ndarray, correction: float, take_sqrt: bool) -> np.ndarray:
    """ATen's ``std_var_all_cpu`` (one output, float32/float64): the mean as PyTorch's
    ``mean()`` gives it, then ``(double(x) - mean)**2`` summed in order in double,
    divided by ``max(0, n - correction)``, the square root in double, then rounded."""

    mean = float(_mean(np, a))
    dx = a.reshape(-1).astype(np.float64) - mean
    total = np.cumsum(dx * dx)[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        var = total / max(0.0, a.size - correction)
        return np.asarray(np.sqrt(var) if take_sqrt else var).astype(a.dtype)


def _one_output(xp: Any, a: Any, dims: Any) -> bool:
    """Whether ``std_var_all_cpu`` computes this reduction (one output element)."""
    if xp is not np or a.dtype not in (np.float32, np.float64) or not 0 < a.size <= _ONE_THREAD:
        return False
    kept = math.prod(s for i, s in enumerate(a.shape) if dims and i not in dims)
    return bool(dims) and kept == 1


def _two_pass(xp: Any, a: Any, dims: Any, correction: float = 1, keepdim: bool = False) -> Any:
    """Two-pass variance; ``n - correction <= 0`` gives inf/NaN silently, as in PyTorch."""
    n = math.prod(a.shape[d] for d in dims) if dims else 1
    centred = a - xp.mean(a, axis=dims, keepdims=True) if dims else a - a
    squares = xp.sum(centred * centred, axis=dims, keepdims=keepdim)
    return squares / a.dtype.type(n - correction)


def _var_fwd(
    xp: Any,
    a: Any,
    dims: Any,
    correction: float = 1,
    keepdim: bool = False,
    take_sqrt: bool = False,
) -> Any:
    """``var`` (``std`` with ``take_sqrt``): one output as ATen's ``std_var_all_cpu``
    computes it (``_var_all``), otherwise two passes."""
    if _one_output(xp, a, dims):
        out = _var_all(a, correction, take_sqrt)
        kept = tuple(1 if i in dims else s for i, s in enumerate(a.shape)) if keepdim else ()
        return (
            out.reshape(kept)
            if keepdim
            else out.reshape(tuple(s for i, s in enumerate(a.shape) if i not in dims))
        )
    out = _two_pass(xp, a, dims, correction, keepdim)
    return xp.sqrt(out) if take_sqrt else out


def _two_over(n: int, correction: float) -> float:
    """``2 / (n - correction)`` as C++ computes it: infinite when the divisor is zero."""
    return math.inf if n == correction else 2.0 / (n - correction)


def _whole(ctx: Any, x: Any) -> bool:
    """A reduction over every dimension without keepdim: what ``x.var()`` (``dim=None``)
    records, so the gradient broadcasts from 0-d as PyTorch's does."""
    dims = ctx.params["dims"]
    return bool(dims) and len(dims) == x.ndim and not ctx.params.get("keepdim", False)


def _var_backward(ctx: Any, g: Any) -> Any:
    """``var_backward``: ``(2 / dof) * grad * (self - self.mean(dim, keepdim=True))``."""
    x = ctx.saved["self"]
    dims = ctx.params["dims"]
    n = math.prod(x.shape[d] for d in dims) if dims else 1
    if _whole(ctx, x):
        mean = ctx.math.mean(x)
    else:
        g = _restore(ctx, g)
        mean = ctx.math.mean_dim(x, dims=dims, keepdim=True) if dims else x
    return ctx.math.mul_scalar(g, other=_two_over(n, ctx.params.get("correction", 1))) * (x - mean)


def _var_grad(ctx: Any, g: Any) -> Any:
    return _var_backward(ctx, g)


def _std_grad(ctx: Any, g: Any) -> Any:
    """``std_backward``: ``(grad / (result * 2)).masked_fill_(result == 0, 0)`` into
    ``var_backward``."""
    result = ctx.saved["result"]
    data = result if ctx.math is ARRAY_MATH else result._data
    half = g / ctx.math.mul_scalar(result, other=2)
    half = ctx.math.masked_fill(half, mask=data == 0, value=0)
    return _var_backward(ctx, half)


VAR = declare(
    "var",
    "VarBackward0",
    ("self",),
    _var_fwd,
    _var_grad,
    dtype="same",
    save={"self": None},
    samples=(
        Sample(((2, 3),), {"dims": (0, 1)}),
        Sample(((2, 3),), {"dims": (1,), "correction": 0}),
    ),
    quiet=True,
)
STD = declare(
    "std",
    "StdBackward0",
    ("self",),
    lambda xp, a, dims, correction=1, keepdim=False: _var_fwd(
        xp, a, dims, correction, keepdim, take_sqrt=True
    ),
    _std_grad,
    dtype="same",
    save={"self": None, "result": None},
    samples=(Sample(((2, 3),), {"dims": (0, 1)}), Sample(((2, 3),), {"dims": (1,)})),
    quiet=True,
)


def _spread(
    op: Any,
    name: str,
    input: Any,
    dim: Any,
    unbiased: Any,
    keepdim: bool,
    correction: Any,  # noqa: A002
) -> Any:
    if isinstance(dim, bool):  # var(input, unbiased)
        dim, unbiased = None, dim
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    dims = _norm_dims(tuple(range(input.ndim)) if dim is None else dim, input.ndim)
    n = math.prod(input.shape[d] for d in dims) if dims else 1
    if n - correction <= 0:
        warnings.warn(_DOF_WARNING.format(name=name), UserWarning, stacklevel=3)
    return apply_op(op, (input,), {"dims": dims, "correction": correction, "keepdim": keepdim})


@public(
    "var",
    ("input",),
    SPREAD_PARAMS,
    category="reduction",
    doc="variance (Bessel-corrected by default)",
)
def var(
    input: Any,  # noqa: A002
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Any:
    return _spread(VAR, "var", input, dim, unbiased, keepdim, correction)


@public(
    "std",
    ("input",),
    SPREAD_PARAMS,
    category="reduction",
    doc="standard deviation (Bessel-corrected by default)",
)
def std(
    input: Any,  # noqa: A002
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Any:
    return _spread(STD, "std", input, dim, unbiased, keepdim, correction)


# -- cumsum ----------------------------------------------------------------------------------
def _cumsum(xp: Any, a: Any, dim: int) -> Any:
    """ATen's ``cumsum`` kernel: a running sum in ``acc_type`` (double for float32, float
    for half), each prefix rounded to the input's dtype; integers sum as int64."""
    if not a.ndim:
        return a.copy()
    if a.dtype.kind != "f":
        return xp.cumsum(a, axis=dim, dtype="int64")
    if a.dtype.itemsize < 8:
        acc = "float64" if a.dtype.itemsize == 4 else "float32"
        return xp.cumsum(a, axis=dim, dtype=acc).astype(a.dtype)
    return xp.cumsum(a, axis=dim)


def _cumsum_grad(ctx: Any, g: Any) -> Any:
    dim = ctx.params["dim"]
    return ctx.math.flip(ctx.math.cumsum(ctx.math.flip(g, dims=(dim,)), dim=dim), dims=(dim,))


CUMSUM = declare(
    "cumsum",
    "CumsumBackward0",
    ("self",),
    lambda xp, a, dim: _cumsum(xp, a, dim),
    _cumsum_grad,
    dtype=_int_to_long,
    samples=(Sample(((2, 3),), {"dim": 1}),),
)
FLIP = declare(
    "flip",
    "FlipBackward0",
    ("self",),
    # a copy, contiguous, as ATen's flip makes (NumPy's flip is a view of the input)
    lambda xp, a, dims: xp.flip(a, axis=dims).copy() if a.ndim else a.copy(),
    lambda ctx, g: ctx.math.flip(g, dims=ctx.params["dims"]),
    dtype="same",
    samples=(Sample(((2, 3),), {"dims": (0, 1)}),),
)


ROLL = declare(
    "roll",
    "RollBackward0",
    ("self",),
    lambda xp, a, shifts, dims: xp.roll(a, shifts, axis=dims if dims else None),
    lambda ctx, g: ctx.math.roll(
        g, shifts=tuple(-s for s in ctx.params["shifts"]), dims=ctx.params["dims"]
    ),
    dtype="same",
    samples=(Sample(((2, 3),), {"shifts": (1, -1), "dims": (0, 1)}),),
)


@public(
    "roll",
    ("input",),
    (Param("shifts", "shape"), Param("dims", "dims")),
    category="shape",
    doc="shift elements along dims, wrapping around (the flattened tensor without dims)",
    example=Example(params={"shifts": [1]}),
)
def roll(input: Any, shifts: Any, dims: Any = ()) -> Any:  # noqa: A002
    shifts = int_tuple(shifts)
    dims = int_tuple(() if dims is None else dims)  # dims=0 is dimension 0, not none
    if not dims and len(shifts) == 1:
        return apply_op(ROLL, (input,), {"shifts": shifts, "dims": ()})
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    return apply_op(ROLL, (input,), {"shifts": shifts, "dims": _norm_dims(dims, input.ndim)})


def _cumulative(name: str, op: Any, doc: str) -> Any:
    """``cumsum``/``cumprod``: one public function each, over the op's declaration."""

    def call(input: Any, dim: int, *, dtype: Any = None) -> Any:  # noqa: A002

        if dtype is not None:
            input = input.to(dtype)
        return apply_op(op, (input,), {"dim": _wrap(dim, input.ndim) if input.ndim else 0})

    call.__name__ = call.__qualname__ = name
    return public(name, ("input",), (Param("dim", "dim", 0),), category="reduction", doc=doc)(call)


cumsum = _cumulative("cumsum", CUMSUM, "running sum along dim")


# -- cumprod ---------------------------------------------------------------------------------
def _cumprod_grad(ctx: Any, g: Any) -> Any:
    """ATen's ``cumprod_backward``: without zeros, the reversed cumsum of ``result * grad``
    over the input; where a slice holds zeros (the division would be 0/0), its first zero
    gets the product of the others and what follows it nothing (ATen's O(n) path)."""
    x, out, dim = ctx.saved["self"], ctx.saved["result"], ctx.params["dim"]
    raw = getattr(x, "_data", x)
    if raw.ndim == 0 or raw.size <= 1 or raw.shape[dim] == 1:
        return g
    if not (raw == 0).any():
        w = out * g
        return (
            ctx.math.flip(ctx.math.cumsum(ctx.math.flip(w, dims=(dim,)), dim=dim), dims=(dim,)) / x
        )
    if ctx.math is not ARRAY_MATH:
        return _cumprod_grad_graph(x, g, dim)
    grad = _cumprod_grad_zeros(raw, getattr(out, "_data", out), getattr(g, "_data", g), dim)
    return type(g)._wrap(grad) if hasattr(g, "_data") else grad


def _cumprod_grad_graph(x: Any, g: Any, dim: int) -> Any:
    """``cumprod_backward`` under grad mode with zeros in the input: the O(n²) path that
    is itself differentiable.  Slot ``k`` of the gradient is ``sum(g[k:] * omitted)``
    where ``omitted`` holds the running products with ``x[k]`` left out (the product of
    ``x[:k]`` times the cumprod of ``x[k+1:]``), written with ``copy_`` into a zero
    tensor, so the graph is PyTorch's chain of ``CopySlices``."""
    n = x.shape[dim]
    grad_input = zeros(tuple(x.shape), dtype=g.dtype, device=g.device)
    grad_input.zero_()  # ``at::zeros`` is ``empty().zero_()``: version 1 before the copies
    ones_size = list(x.shape)
    ones_size[dim] = 1
    one = ones(1, dtype=g.dtype, device=g.device).expand(*ones_size)
    for k in range(n):
        if k == 0:
            omitted = cat([one, cumprod(narrow(x, dim, 1, n - 1), dim)], dim)
        else:
            until_k = prod(narrow(x, dim, 0, k), dim, keepdim=True)
            if k == n - 1:
                omitted = until_k
            else:
                after_k = cumprod(narrow(x, dim, k + 1, n - k - 1), dim)
                omitted = cat([until_k, until_k.expand_as(after_k) * after_k], dim)
        grad_input.select(dim, k).copy_(reductions.sum(narrow(g, dim, k, n - k) * omitted, dim))
    return grad_input


def _cumprod_grad_zeros(x: Any, out: Any, g: Any, dim: int) -> Any:
    xp = array_module(x)

    def reversed_cumsum(a: Any) -> Any:
        return xp.flip(xp.cumsum(xp.flip(a, axis=dim), axis=dim), axis=dim)

    is_zero = x == 0
    zeros_so_far = xp.cumsum(is_zero, axis=dim)
    before = zeros_so_far == 0  # [0, z1): the plain formula
    with np.errstate(all="ignore"):
        plain = reversed_cumsum(xp.where(before, out * g, 0)) / x
    grad = xp.where(before, plain, 0).astype(g.dtype)
    first = zeros_so_far == 1  # [z1, z2)
    first_zero = first & is_zero
    between = first & ~first_zero  # (z1, z2)
    running = xp.cumprod(xp.where(between, x, 1), axis=dim)
    total = xp.sum(running * xp.where(first, g, 0), axis=dim, keepdims=True)
    ones = xp.ones_like(xp.take(out, [0], axis=dim))
    upto = xp.concatenate([ones, xp.take(out, range(x.shape[dim] - 1), axis=dim)], axis=dim)
    return xp.where(first_zero, total * upto, grad).astype(g.dtype)


CUMPROD = declare(
    "cumprod",
    "CumprodBackward0",
    ("self",),
    lambda xp, a, dim: (
        xp.cumprod(a, axis=dim, dtype=None if a.dtype.kind == "f" else "int64")
        if a.ndim
        else a.copy()
    ),
    _cumprod_grad,
    dtype=_int_to_long,
    save={"self": None, "result": None},
    samples=(
        Sample(((2, 3),), {"dim": 1}),
        Sample(((3, 4),), {"dim": 1}, zeros=True),
        Sample(((4, 3),), {"dim": 0}, zeros=True),
    ),
)


cumprod = _cumulative("cumprod", CUMPROD, "running product along dim")


@public(
    "flip",
    ("input",),
    (Param("dims", "dim_list", (0,)),),
    category="shape",
    doc="reverse the order of elements along dims",
)
def flip(input: Any, dims: Any) -> Any:  # noqa: A002
    dims = int_tuple(dims)
    return apply_op(FLIP, (input,), {"dims": _norm_dims(dims, input.ndim)})
