"""``nn.functional``: softmax, log_softmax, losses, and linear composed like ATen."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from engine import cpu_loops, transcendental, warn_site
from engine.backend import array_module
from engine.catalog import Example, Param, Port, public
from engine.legacy_reduction import REDUCTION_ALIASES, loss_reduction
from engine.ops import linalg, nll_cascade, pointwise, reduce, select
from engine.ops import shape as shape_ops
from engine.ops.core import Sample, apply_op, declare
from engine.ops.kernel_devices import check_common_device
from engine.ops.kernel_dtypes import is_bool, refuse_dtype
from engine.ops.losses import (
    _norm,
    _reduce,
    expanded,
    pointwise_loss_backward,
    refuse_grad,
    weighted,
)
from engine.quiet import quietly
from engine.tensor import Tensor

NS = "torch.nn.functional"
REDUCTION = Param("reduction", "str", choices=("mean", "sum", "none"), aliases=REDUCTION_ALIASES)


def _softmax_fwd(xp: Any, a: Any, dim: int) -> Any:
    if xp is np and a.dtype == np.float32 and a.ndim and dim in (-1, a.ndim - 1):
        return transcendental.softmax_lastdim_f32(a)
    e = xp.exp(a - xp.max(a, axis=dim, keepdims=True)) if a.ndim else xp.exp(a - a)
    return e / (xp.sum(e, axis=dim, keepdims=True) if a.ndim else e)


def _log_softmax_fwd(xp: Any, a: Any, dim: int) -> Any:
    if a.ndim == 0:
        return a - a
    if xp is np:  # the ufuncs' own reductions: what ``np.max``/``np.sum`` call, minus a layer
        if dim == a.ndim - 1 and a.dtype == np.float32:
            return transcendental.log_softmax_lastdim_f32(a)
        if dim == a.ndim - 1:
            looped = cpu_loops.log_softmax_rows(a)
            if looped is not None:
                return looped
        s = a - np.maximum.reduce(a, axis=dim, keepdims=True)
        return np.subtract(s, np.log(np.add.reduce(np.exp(s), axis=dim, keepdims=True)), out=s)
    s = a - xp.max(a, axis=dim, keepdims=True)
    return s - xp.log(xp.sum(xp.exp(s), axis=dim, keepdims=True))


def _log_softmax_bf16(xp: Any, a: Any, dim: int) -> Any:
    """``log_softmax`` of bfloat16 as ATen's CPU kernels give it: along the last dim
    (``_vec_log_softmax_lastdim``) the sum of exponentials and its log are each kept
    in bfloat16, then ``(x - max) - log`` rounds once; along another dim all in float."""
    wide = a.astype(np.float32)
    if a.ndim == 0 or dim != a.ndim - 1:
        return _log_softmax_fwd(xp, wide, dim).astype(a.dtype)
    s = wide - xp.max(wide, axis=dim, keepdims=True)
    total = xp.sum(xp.exp(s), axis=dim, keepdims=True).astype(a.dtype).astype(np.float32)
    return (s - xp.log(total).astype(a.dtype).astype(np.float32)).astype(a.dtype)


def _dim_of(ctx: Any) -> Any:
    return ctx.params["dim"] if ctx.shapes[0] else None


def _softmax_bwd_data(xp: Any, g: Any, y: Any, dim: int) -> Any:
    last = y.ndim and dim in (-1, y.ndim - 1)
    if xp is np and last and y.dtype == np.float32 and g.dtype == np.float32 and g.shape == y.shape:
        return transcendental.softmax_backward_lastdim_f32(g, y)
    return y * (g - xp.sum(g * y, axis=dim, keepdims=True))


def _log_softmax_bwd_data(xp: Any, g: Any, y: Any, dim: int) -> Any:
    if xp is np:
        last = dim == y.ndim - 1
        if last and y.dtype == np.float32 and g.dtype == np.float32 and g.shape == y.shape:
            return transcendental.log_softmax_backward_lastdim_f32(g, y)
        if last:
            looped = cpu_loops.log_softmax_backward_rows(g, y)
            if looped is not None:
                return looped
        e = np.exp(y)
        return g - np.multiply(e, np.add.reduce(g, axis=dim, keepdims=True), out=e)
    return g - xp.exp(y) * xp.sum(g, axis=dim, keepdims=True)


declare(
    "softmax_backward_data",
    "SoftmaxBackwardDataBackward0",
    ("grad_output", "output"),
    _softmax_bwd_data,
    lambda ctx, gg: (
        ctx.math.softmax_backward_data(gg, ctx.saved["output"], dim=ctx.params["dim"])
        if ctx.needs[0]
        else None,
        _softmax_double_backward(ctx, gg) if ctx.needs[1] else None,
    ),
    save={"grad_output": ("output",), "output": None},
    samples=(Sample(((2, 3), (2, 3)), {"dim": 1}),),
)


def _softmax_double_backward(ctx: Any, gg: Any) -> Any:
    """``softmax_double_backward``: ``gg * (go - sum(go * y)) - go * sum(gg * y)``."""
    go, y, dims = ctx.saved["grad_output"], ctx.saved["output"], (ctx.params["dim"],)
    return gg * (go - ctx.math.sum_dim(go * y, dims=dims, keepdim=True)) - go * ctx.math.sum_dim(
        gg * y, dims=dims, keepdim=True
    )


declare(
    "log_softmax_backward_data",
    "LogSoftmaxBackwardDataBackward0",
    ("grad_output", "output"),
    _log_softmax_bwd_data,
    lambda ctx, gg: (
        gg
        - ctx.math.sum_dim(
            gg * ctx.math.exp(ctx.saved["output"]), dims=(ctx.params["dim"],), keepdim=True
        )
        if ctx.needs[0]
        else None,
        -gg
        * ctx.math.exp(ctx.saved["output"])
        * ctx.math.sum_dim(ctx.saved["grad_output"], dims=(ctx.params["dim"],), keepdim=True)
        if ctx.needs[1]
        else None,
    ),
    save={"grad_output": ("output",), "output": None},
    samples=(Sample(((2, 3), (2, 3)), {"dim": 1}),),
)

SOFTMAX = declare(
    "softmax",
    "SoftmaxBackward0",
    ("self",),
    _softmax_fwd,
    lambda ctx, g: (
        ctx.math.softmax_backward_data(g, ctx.saved["result"], dim=ctx.params["dim"])
        if ctx.shapes[0]
        else g * 0
    ),
    dtype="float",
    save={"result": None},
    samples=(Sample(((2, 3),), {"dim": 1}),),
    quiet=True,
)
LOG_SOFTMAX = declare(
    "log_softmax",
    "LogSoftmaxBackward0",
    ("self",),
    _log_softmax_fwd,
    lambda ctx, g: (
        ctx.math.log_softmax_backward_data(g, ctx.saved["result"], dim=ctx.params["dim"])
        if ctx.shapes[0]
        else g * 0
    ),
    dtype="float",
    save={"result": None},
    samples=(Sample(((2, 3),), {"dim": 1}),),
    bf16_forward=_log_softmax_bf16,
    quiet=True,
)


def _mse_fwd(xp: Any, a: Any, b: Any, reduction: str = "mean") -> Any:
    return _reduce(xp, (a - b) ** 2, reduction)


def _mse_kernel(xp: Any, g: Any, a: Any, t: Any, reduction: str) -> Any:
    """``mse_loss_backward``: ``norm * (self - target) * grad``, norm ``2 / n`` for mean."""
    norm = a.dtype.type(_norm(reduction, a.size, 2.0))
    return norm * (a - t) * g


def _mse_curvature(ctx: Any, gg_go: Any, x: Any) -> Any:
    import math

    n = math.prod(x.shape)
    return ctx.math.mul_scalar(gg_go, other=_norm(ctx.params["reduction"], n, 2.0))


pointwise_loss_backward(
    "mse_loss_backward", "MseLossBackwardBackward0", _mse_kernel, _mse_curvature, {}
)


def _mse_grad(ctx: Any, g: Any) -> tuple[Any, Any]:
    s, t = ctx.saved["self"], ctx.saved["target"]
    red = ctx.params.get("reduction", "mean")
    return (
        ctx.math.mse_loss_backward(g, s, t, reduction=red) if ctx.needs[0] else None,
        ctx.math.mse_loss_backward(g, t, s, reduction=red) if ctx.needs[1] else None,
    )


MSE = declare(
    "mse_loss",
    "MseLossBackward0",
    ("self", "target"),
    _mse_fwd,
    _mse_grad,
    save={"self": None, "target": None},
    samples=(Sample(((2, 3), (2, 3))), Sample(((2, 3), (2, 3)), {"reduction": "sum"})),
)


def _plain_targets(a: Any, target: Any, weight: Any, ignore_index: int) -> bool:
    """No weight and no target equal to ``ignore_index``: every row counts with weight 1,
    so the loss and its gradient need no weight vector (same values: ``x * 1.0 == x``)."""
    if weight is not None or type(target) is not np.ndarray or target.size == 0:
        return False
    return not (target == ignore_index).any()


def _nll_rows(a: Any, target: Any) -> tuple[Any, Any]:
    """The input as rows (batch, classes) and one target per row: a 1-D input is one row."""
    if a.ndim == 2 and target.ndim == 1:  # (rows already: no views to make)
        return a, target
    if a.ndim > 1:
        return a.reshape(-1, a.shape[-1]), target.reshape(-1)
    return a.reshape(1, -1), target.reshape(1)


def _grad_input(out: Any, shape: tuple[int, ...]) -> Any:
    """The rows ``out`` as the input's gradient: itself where the shapes agree, as
    PyTorch's ``nll_loss_backward`` fills a fresh ``grad_input`` (a reshape would be a
    view, which an input buffer does not add into in place: ``.grad._version`` shows it)."""
    return out if out.shape == shape else out.reshape(shape)


def _kept(xp: Any, t: Any, ignore_index: int) -> tuple[Any, Any]:
    """The rows whose target is not ignored, and their targets."""
    kept = xp.nonzero(t != ignore_index)[0]  # (CuPy has no ``flatnonzero``)
    return kept, t[kept]


def _nll_fwd(
    xp: Any,
    a: Any,
    target: Any,
    weight: Any = None,
    reduction: str = "mean",
    ignore_index: int = -100,
    plain: bool = False,
) -> Any:
    """ATen's ``nll_loss_out_frame`` (and ``nll_loss2d``'s): ``-input[i][t] * w`` per row
    unreduced (``0`` for an ignored row), but for a 1-D input; otherwise one value, summed
    in ATen's cascade (``nll_cascade``) and divided by the total weight for ``mean``."""
    if reduction == "mean" and target.size == 0:  # PyTorch's empty batch: a positive NaN
        return xp.full((), xp.nan, a.dtype)
    rows, t = _nll_rows(a, target)
    if reduction == "none" and a.ndim > 1:  # (``nll_nd`` passes its classes moved last)
        if xp is np and (plain or _plain_targets(a, target, weight, ignore_index)):
            picked = rows[np.arange(rows.shape[0]), t]
            return np.negative(picked, out=picked).reshape(target.shape)
        out = xp.zeros(t.shape, a.dtype)
        kept, classes = _kept(xp, t, ignore_index)
        picked = -rows[kept, classes]
        out[kept] = picked if weight is None else picked * weight[classes]
        return out.reshape(target.shape)
    if xp is np:
        loss, total = nll_cascade.reduce(rows, t, weight, ignore_index)
        if reduction == "mean":
            loss = _divide(loss, total)
        return np.asarray(loss)
    kept, classes = _kept(xp, t, ignore_index)
    picked = -rows[kept, classes]
    if weight is None:
        loss, total = picked.sum(), xp.asarray(kept.size, a.dtype)
    else:
        w = weight[classes]
        loss, total = (picked * w).sum(), w.sum()
    return loss / total if reduction == "mean" else loss


_NAN = float("nan")
_F32_MAX = float(np.finfo(np.float32).max)


def _divide(loss: Any, total: Any) -> Any:
    """``loss / total`` for two NumPy scalars of one float dtype, as Python floats: a
    float32 quotient rounded twice (exact to double, then to float32) is the float32
    quotient, and NumPy's scalar division costs more than the loss.  A zero total (every
    target ignored) is NumPy's division, quietly: 0/0 is NaN, as PyTorch's."""
    t = float(total)
    q = float(loss) / t if t else _NAN
    if -_F32_MAX <= q <= _F32_MAX or (q == q and loss.dtype.itemsize == 8):
        return loss.dtype.type(q)
    return quietly(np.divide, loss, total)  # (past float32, or a NaN: NumPy divides, quietly)


def _nll_seed(g: np.ndarray, reduction: str, n: int) -> Any:
    """``-g / n`` (``mean``) or ``-g``, as NumPy computes it for a one-value ``g``, without
    NumPy's warning for the ``0 / 0`` of an empty batch (PyTorch gives NaN, silently)."""
    neg = -g.reshape(())[()]
    return _divide(neg, g.dtype.type(n)) if reduction == "mean" else neg


def _nll_grad_fwd(
    xp: Any,
    g: Any,
    a: Any,
    target: Any,
    weight: Any,
    reduction: str,
    ignore_index: int,
    plain: bool = False,
) -> Any:
    """ATen's ``nll_loss_backward_out_frame``: zeros, but at each kept row's target
    ``-w * grad[i]`` (unreduced) or ``w * -(grad / total_weight)`` (``mean``; ``-grad``
    otherwise), ``w`` 1 without a weight."""
    rows, t = _nll_rows(a, target)
    each = reduction == "none" and a.ndim > 1
    plain = xp is np and (plain or _plain_targets(a, target, weight, ignore_index))
    if plain and not each and type(g) is np.ndarray and g.size == 1 and g.dtype.itemsize >= 4:
        picked = cpu_loops.pick_rows(
            t, float(_nll_seed(g, reduction, t.size)), rows.shape[1], g.dtype
        )
        if picked is not None:
            return _grad_input(picked, a.shape)
    out = xp.zeros(rows.shape, dtype=g.dtype)
    if plain:
        every = np.arange(rows.shape[0])
        if each:
            out[every, t] = -g.reshape(-1)
        else:
            out[every, t] = _nll_seed(g, reduction, t.size)  # (an empty batch: quietly)
        return _grad_input(out, a.shape)
    kept, classes = _kept(xp, t, ignore_index)
    w = None if weight is None else weight[classes]
    if each:
        grad = -g.reshape(-1)[kept]
        out[kept, classes] = grad if w is None else -w * g.reshape(-1)[kept]
        return _grad_input(out, a.shape)
    if reduction == "mean":
        if xp is np:
            total = nll_cascade.reduce(rows, t, weight, ignore_index)[1]
        else:
            total = xp.asarray(kept.size, g.dtype) if w is None else w.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            grad = -(g / total)
    else:
        grad = -g
    out[kept, classes] = grad if w is None else w * grad
    return _grad_input(out, a.shape)


def _nll_double_backward(ctx: Any, gg: Any) -> tuple[Any, Any]:
    """``nll_loss_backward`` is linear in its gradient: ``nll_loss(gg, target)`` for it,
    zero for ``self`` (which gives only the shape)."""
    p = {k: ctx.params.get(k) for k in ("target", "weight", "reduction", "ignore_index")}
    data = gg if ctx.math is pointwise.ARRAY_MATH else gg._data
    zeros = array_module(data).zeros(tuple(ctx.shapes[1]), dtype=data.dtype)
    if ctx.math is not pointwise.ARRAY_MATH:
        zeros = Tensor._wrap(zeros)
    return (ctx.math.nll_loss(gg, **p) if ctx.needs[0] else None, zeros if ctx.needs[1] else None)


NLL_GRAD = declare(
    "nll_loss_backward",
    "NllLossBackwardBackward0",
    ("grad", "self"),
    _nll_grad_fwd,
    _nll_double_backward,
    dtype="same",
)
NLL = declare(
    "nll_loss",
    "NllLossBackward0",
    ("self",),
    _nll_fwd,
    lambda ctx, g: ctx.math.nll_loss_backward(
        g,
        ctx.saved["self"],
        target=ctx.params["target"],
        weight=ctx.params.get("weight"),
        reduction=ctx.params.get("reduction", "mean"),
        ignore_index=ctx.params.get("ignore_index", -100),
        plain=ctx.params.get("plain", False),
    ),
    save={"self": None},
    saved_params=("target", "weight"),
    dtype="same",
    samples=(Sample(((3, 4),), {"target": "classes"}),),
)


@public(
    "softmax",
    ("input",),
    # a new node states its dim; an imported ``F.softmax(x)`` keeps PyTorch's implicit one
    (Param("dim", "optional_dim", -1),),
    namespace=NS,
    category="activation",
    doc="exp(x) / sum(exp(x)) along dim",
)
def softmax(input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Any:  # noqa: A002
    if dtype is not None:
        input = input.to(dtype)
    dim = resolve_softmax_dim("softmax", input, dim, _stacklevel)
    if not input.dtype.is_floating_point:
        refuse_dtype(_softmax_kernel("softmax", input, dim), input, integral=True)
    return apply_op(SOFTMAX, (input,), {"dim": dim})


@public(
    "log_softmax",
    ("input",),
    (Param("dim", "optional_dim", -1),),
    namespace=NS,
    category="activation",
    doc="log of softmax, computed stably",
)
def log_softmax(input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Any:  # noqa: A002
    if dtype is not None:
        input = input.to(dtype)
    dim = resolve_softmax_dim("log_softmax", input, dim, _stacklevel)
    if not input.dtype.is_floating_point:
        refuse_dtype(_softmax_kernel("log_softmax", input, dim), input, integral=True)
    return apply_op(LOG_SOFTMAX, (input,), {"dim": dim})


def _softmax_kernel(name: str, x: Any, dim: int) -> str:
    """ATen's CPU softmax has a kernel for the last dim and one for the others."""
    last = x.ndim == 0 or dim in (-1, x.ndim - 1)
    return f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"


def resolve_softmax_dim(name: str, x: Any, dim: int | None, stacklevel: int) -> int:
    """PyTorch's ``_get_softmax_dim``: the warning names the function called (``softmax``,
    ``log_softmax``) and points ``stacklevel`` frames up, the caller of ``F.softmax`` by
    default, as ``_stacklevel`` does in PyTorch."""
    if dim is None:
        warnings.warn(
            f"Implicit dimension choice for {name} has been deprecated. Change the call to "
            "include dim=X as an argument.",
            UserWarning,
            stacklevel=warn_site.stacklevel(stacklevel, __file__),
        )
        dim = 0 if x.ndim in (0, 1, 3) else 1
    return shape_ops._wrap(dim, x.ndim)


@public(
    "mse_loss",
    ("input", "target"),
    (REDUCTION,),
    namespace=NS,
    category="loss",
    doc="mean squared error",
    method=False,
)
def mse_loss(
    input: Any,  # noqa: A002
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Any = None,
) -> Any:
    input, target = expanded(input, target)
    reduction = loss_reduction(size_average, reduce, reduction)
    if weight is not None:
        return weighted(pointwise.pow(pointwise.sub(input, target), 2), input, weight, reduction)
    return apply_op(MSE, (input, target), {"reduction": reduction})


def _nll_checks(input: Any, target: Any) -> None:  # noqa: A002
    if target.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.scalar_name}")
    tn = target.shape[0] if target.ndim else 0
    if input.ndim > 2:  # spatial: ``nll_loss_nd``'s batch check, the rest in ``nll_nd``
        if tn != input.shape[0]:
            raise ValueError(
                f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({tn})."
            )
        # a true cycle: nll_nd's N-d kernels are this module's 2-d ones (_nll_fwd)
        from engine.ops.nll_nd import check_nd

        check_nd(input, target)
        return
    if input.ndim not in (1, 2):
        raise ValueError(
            f"Expected 2 or more dimensions (got {input.ndim})"
            if input.ndim < 1
            else "only 1-D and 2-D inputs are supported"
        )
    # ``nll_loss_nd``'s checks in its order (a 0-d target reads as batch size 0 there)
    tn = target.shape[0] if target.ndim else 0
    if input.ndim == 2 and tn != input.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({tn})."
        )
    if input.ndim == 1 and target.ndim == 1 and tn != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {tn}")
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")


@public(
    "nll_loss",
    ("input", "target", Port("weight", optional=True)),
    (REDUCTION, Param("ignore_index", "int")),
    namespace=NS,
    category="loss",
    doc="negative log likelihood of log-probabilities",
    method=False,
    example=Example(
        inputs={"target": (2,), "weight": (3,)}, values={"target": "index", "weight": "positive"}
    ),
)
def nll_loss(
    input: Any,
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,  # noqa: A002
    reduce: Any = None,
    reduction: str = "mean",
) -> Any:
    reduction = loss_reduction(size_average, reduce, reduction)
    _nll_checks(input, target)
    kernel = "nll_loss_forward" if input.ndim <= 2 else "_nll_loss2d_forward"
    check_common_device(kernel, self=input, target=target, weight=weight)
    if weight is not None:
        refuse_grad("nll_loss_forward", "weight", weight)
    tdata = target._data
    shape = input._data.shape
    c = shape[1] if len(shape) > 2 else shape[-1]
    in_range = cpu_loops.classes_in_range(tdata, c) if tdata.size else True
    if in_range is None:
        if type(tdata) is np.ndarray and tdata.dtype == np.int64:
            # read as unsigned, a negative class is huge: one reduction checks both bounds
            lo, hi = 0, np.maximum.reduce(tdata.view(np.uint64), None)
        elif type(tdata) is np.ndarray:  # the ufuncs' reductions: ``min``/``max`` less a layer
            lo, hi = np.minimum.reduce(tdata, None), np.maximum.reduce(tdata, None)
        else:
            lo, hi = tdata.min(), tdata.max()
        in_range = not (lo < 0 or hi >= c)
    if not in_range:
        bad = tdata[(tdata != ignore_index) & ((tdata < 0) | (tdata >= c))]
        if bad.size:
            raise IndexError(f"Target {int(bad.reshape(-1)[0])} is out of bounds.")
    params = {"target": tdata, "reduction": reduction, "ignore_index": ignore_index}
    if weight is not None:
        params["weight"] = weight._data
    elif in_range and tdata.size and input.ndim <= 2 and not 0 <= ignore_index < c:
        # every class is in range and ``ignore_index`` is not: ``_plain_targets`` holds
        params["plain"] = True
    if input.ndim > 2:
        # a true cycle: nll_nd's N-d kernels are this module's 2-d ones (_nll_fwd)
        from engine.ops.nll_nd import nll_loss_nd

        return nll_loss_nd(input, target, params)
    return apply_op(NLL, (input,), params)


@public(
    "cross_entropy",
    ("input", "target", Port("weight", optional=True)),
    (REDUCTION, Param("ignore_index", "int"), Param("label_smoothing", "number")),
    namespace=NS,
    category="loss",
    doc="log_softmax followed by nll_loss",
    method=False,
    example=Example(
        inputs={"target": (2,), "weight": (3,)}, values={"target": "index", "weight": "positive"}
    ),
)
def cross_entropy(
    input: Any,
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,  # noqa: A002
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Any:
    reduction = loss_reduction(size_average, reduce, reduction)
    if target.dtype.is_floating_point:
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(
                f"expected target dtype to be Long or Byte, but got {target.dtype.scalar_name}"
            )
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing)
    class_dim = 1 if input.ndim >= 2 else 0
    log_p = log_softmax(input, class_dim)
    nll = nll_loss(log_p, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    return _label_smoothing(
        log_p, nll, target, weight, class_dim, ignore_index, reduction, label_smoothing
    )


def _cross_entropy_probs(
    input: Any,  # noqa: A002
    target: Any,
    weight: Any,
    reduction: str,
    label_smoothing: float,
) -> Any:
    """Class probabilities as the target: ATen's ``cross_entropy_loss_prob_target``, composed
    of the same public ops so the graph has its nodes (``DivBackward1`` for the mean)."""
    class_dim = 1 if input.ndim >= 2 else 0
    n_classes = input.shape[class_dim]
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    prod = log_softmax(input, class_dim) * target
    if weight is not None:
        shape = [1] * input.ndim
        shape[class_dim] = n_classes
        prod = prod * weight.view(shape)
    if reduction == "none":
        return -prod.sum(class_dim)
    if reduction == "sum":
        return -prod.sum()
    if input.numel() == 0:
        return -prod.sum().fill_(float("nan"))
    return apply_op(pointwise.DIV_SCALAR, (-prod.sum(),), {"other": input.numel() // n_classes})


def _label_smoothing(
    log_p: Any,
    nll: Any,
    target: Any,
    weight: Any,
    class_dim: int,
    ignore_index: int,
    reduction: str,
    smoothing: float,
) -> Any:
    """PyTorch's ``cross_entropy_loss_label_smoothing``: the NLL blended with the mean
    log-probability over the classes, ``(1 - s) * nll + smooth * (s / C)``."""
    if not 0.0 <= smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {smoothing:g}")
    n_classes = log_p.shape[class_dim]
    if weight is not None:
        shape = [1] * log_p.ndim
        shape[class_dim] = weight.shape[0]
        smooth = -reduce.sum(log_p * weight.reshape(shape), class_dim)
    else:
        smooth = -reduce.sum(log_p, class_dim)
    ignored = target == ignore_index
    smooth = select.masked_fill(smooth, ignored, 0.0)
    if reduction == "mean":
        kept = target._data[~ignored._data]
        if weight is not None:
            denominator = float(weight._data[kept].sum())
        else:
            denominator = float(kept.size)
        ret = reduce.sum(smooth) / denominator
    elif reduction == "sum":
        ret = reduce.sum(smooth)
    else:
        ret = smooth
    # C++ multiplies by a Scalar (MulBackward1), the right operand first (its node is older)
    smooth_part = apply_op(pointwise.MUL_SCALAR, (ret,), {"other": smoothing / n_classes})
    kept_part = apply_op(pointwise.MUL_SCALAR, (nll,), {"other": 1 - smoothing})
    return kept_part + smooth_part


@public(
    "linear",
    ("input", "weight", Port("bias", optional=True)),
    namespace=NS,
    category="linear algebra",
    doc="input @ weight.T + bias",
    method=False,
    example=Example(inputs={"weight": (4, 3), "bias": (4,)}),
)
def linear(input: Any, weight: Any, bias: Any = None) -> Any:  # noqa: A002
    """ATen's ``linear``: ``addmm`` for a matrix; a contiguous input of other rank with a
    1-D bias (or any 3-D one) flattened first, then ``weight.t()`` (``_flatten_nd_linear``:
    the nodes are made, and run backward, in that order); otherwise ``matmul`` with the
    bias added in place."""
    if input.ndim == 2 and bias is not None:
        # (``weight.t()`` as its view op, less the public call; more dims get its error)
        wt = apply_op(shape_ops.T_OP, (weight,)) if weight.ndim <= 2 else shape_ops.t(weight)
        return linalg.addmm(bias, input, wt)
    if bias is not None and input.is_contiguous() and (input.ndim == 3 or bias.ndim == 1):
        lead = tuple(input.shape[:-1])
        folded = shape_ops.reshape(input, (math.prod(lead), input.shape[-1]))
        out = linalg.addmm(bias, folded, shape_ops.t(weight))
        return shape_ops.view(out, *lead, out.shape[1])
    out = linalg.matmul(input, shape_ops.t(weight))
    return out if bias is None else out.add_(bias)


def _f_unary(name: str, op: Any, doc: str) -> Any:
    def fn(input: Any) -> Any:  # noqa: A002
        return apply_op(op, (input,))

    fn.__name__ = fn.__qualname__ = name
    return public(name, ("input",), namespace=NS, category="activation", doc=doc, method=False)(fn)


@public("relu", ("input",), namespace=NS, category="activation", doc="max(input, 0)", method=False)
def relu(input: Any, inplace: bool = False) -> Any:  # noqa: A002
    """``inplace=True`` (``nn.ReLU(inplace=True)``) is ``input.relu_()``: the same tensor
    back, its version bumped."""
    if is_bool(input):
        raise RuntimeError("Boolean inputs not supported for relu")
    if inplace:
        return input.relu_()
    return apply_op(pointwise.RELU, (input,))


sigmoid = _f_unary("sigmoid", pointwise.SIGMOID, "logistic sigmoid")
tanh = _f_unary("tanh", pointwise.TANH, "hyperbolic tangent")
