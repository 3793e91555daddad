"""More losses for ``nn.functional``: binary cross-entropy (on probabilities and on
logits), L1, smooth L1 and Huber.

``l1_loss`` is composite in PyTorch (its ``grad_fn`` is the reduction's), the
others are fused nodes with PyTorch's names and saved tensors.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from engine import warn_site
from engine.catalog import Example, Param, Port, public
from engine.grad_mode import is_grad_enabled
from engine.legacy_reduction import REDUCTION_ALIASES, loss_reduction
from engine.ops import pointwise
from engine.ops import reduce as reductions
from engine.ops.core import ARRAY_MATH, Sample, _broadcast_error, apply_op, declare
from engine.ops.kernel_devices import check_common_device
from engine.ops.pointwise import div, mul, scalar_minus, zero_scalar
from engine.ops.reduce import _mean, _sum
from engine.ops.shape import expand
from engine.tensor import Tensor
from engine.transcendental import libm

NS = "torch.nn.functional"
REDUCTION = Param("reduction", "str", choices=("mean", "sum", "none"), aliases=REDUCTION_ALIASES)
_EPSILON = 1e-12
#: ``constexpr float EPSILON = 1e-12`` in ATen's ``Loss.cpp``: the BCE backward kernel's
#: floor is that float widened, so for float64 it is 9.9999999600419720e-13, not 1e-12.
_FLOAT_EPSILON = 9.9999999600419720025e-13


def _reduce(xp: Any, loss: Any, reduction: str) -> Any:
    """ATen's ``apply_loss_reduction``: ``loss.mean()`` or ``loss.sum()``, so in the
    order of PyTorch's sum kernel (``engine.cascade_sum``), not NumPy's pairwise sum."""

    if reduction == "mean":
        return _mean(xp, loss)
    if reduction == "sum":
        return _sum(xp, loss)
    return loss


def _scale(ctx: Any, g: Any, shape: tuple[int, ...]) -> Any:
    """The incoming gradient spread over the elements, divided by n for ``mean``."""
    red = ctx.params.get("reduction", "mean")
    if red == "mean":
        return g / math.prod(shape)
    return g


def _weight(ctx: Any) -> Any:
    w = ctx.params.get("weight")
    return 1 if w is None else w


# -- the fused backward kernels of the pointwise losses -------------------------------------
def _norm(reduction: str, n: int, base: float = 1.0) -> float:
    """ATen's ``norm`` of a loss backward: ``base / numel`` for mean, a double, so an
    empty input gives ``inf`` (times no elements) rather than a Python division error."""
    if reduction != "mean":
        return base
    return base / n if n else math.inf


def pointwise_loss_backward(
    name: str, grad_fn: str, kernel: Any, curvature: Any, params: dict[str, Any]
) -> None:
    """PyTorch's ``<loss>_backward(grad_output, self, target)`` as an op of its own, so a
    ``create_graph`` backward records its ``…BackwardBackward0`` node.  The target's
    gradient is the same kernel with self and target swapped, as in ``derivatives.yaml``;
    ``curvature(c, gg * grad_output, self - target)`` is the gradient for ``self``."""

    def grads(ctx: Any, gg: Any) -> tuple[Any, Any, Any]:
        s, t = ctx.saved["self"], ctx.saved["target"]
        first = getattr(ctx.math, name)(gg, s, t, **ctx.params) if ctx.needs[0] else None
        second = (
            curvature(ctx, gg * ctx.saved["grad_output"], s - t)
            if ctx.needs[1] or ctx.needs[2]
            else None
        )
        return (first, second if ctx.needs[1] else None, -second if ctx.needs[2] else None)

    declare(
        name,
        grad_fn,
        ("grad_output", "self", "target"),
        kernel,
        grads,
        save={"grad_output": ("self", "target"), "self": None, "target": None},
        samples=(Sample(((), (2, 3), (2, 3)), {"reduction": "mean", **params}, distinct=True),),
    )


def _inside(ctx: Any, x: Any, bound: float) -> Any:
    data = x if ctx.math is ARRAY_MATH else x._data
    return abs(data) < bound


def _smooth_l1_kernel(xp: Any, g: Any, a: Any, t: Any, reduction: str, beta: float) -> Any:
    norm = a.dtype.type(_norm(reduction, a.size))
    x = a - t
    inner = norm * x * g / beta if beta else x * 0
    return xp.where(x < -beta, -norm * g, xp.where(x > beta, norm * g, inner))


def _smooth_l1_curvature(ctx: Any, gg_go: Any, x: Any) -> Any:
    beta = ctx.params["beta"]
    norm = _norm(ctx.params["reduction"], math.prod(x.shape))
    inner = ctx.math.mul_scalar(gg_go, other=norm / beta) if beta else gg_go * 0
    return ctx.math.where(inner, zero_scalar(ctx, gg_go), condition=_inside(ctx, x, beta))


pointwise_loss_backward(
    "smooth_l1_loss_backward",
    "SmoothL1LossBackwardBackward0",
    _smooth_l1_kernel,
    _smooth_l1_curvature,
    {"beta": 1.0},
)


def _huber_kernel(xp: Any, g: Any, a: Any, t: Any, reduction: str, delta: float) -> Any:
    norm = a.dtype.type(_norm(reduction, a.size))
    x = a - t
    return xp.where(
        x < -delta, -norm * g * delta, xp.where(x > delta, norm * g * delta, norm * x * g)
    )


def _huber_curvature(ctx: Any, gg_go: Any, x: Any) -> Any:
    norm = _norm(ctx.params["reduction"], math.prod(x.shape))
    inner = ctx.math.mul_scalar(gg_go, other=norm)
    return ctx.math.where(
        inner, zero_scalar(ctx, gg_go), condition=_inside(ctx, x, ctx.params["delta"])
    )


pointwise_loss_backward(
    "huber_loss_backward",
    "HuberLossBackwardBackward0",
    _huber_kernel,
    _huber_curvature,
    {"delta": 1.0},
)


# -- binary cross-entropy on probabilities -----------------------------------------------
def refuse_grad(function: str, argument: str, t: Any) -> None:
    """PyTorch has no derivative for loss weights and says so before computing anything
    (``check_no_requires_grad`` in its generated autograd kernels), in grad mode only."""

    if t is not None and t.requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{function}' is not differentiable with respect to argument "
            f"'{argument}'. This input cannot have requires_grad True."
        )


#: ATen's binary cross entropy is a scalar loop over ``std::log`` and ``std::log1p``: on
#: float32 the correctly rounded values, which NumPy's own float32 loops are not.
_LOG, _LOG1P = libm("log"), libm("log1p")


def _bce_fwd(xp: Any, a: Any, t: Any, weight: Any = None, reduction: str = "mean") -> Any:
    if ((a < 0) | (a > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    log_a = xp.maximum(_LOG(xp, a), -100)
    log_1ma = xp.maximum(_LOG1P(xp, -a), -100)
    loss = (t - 1) * log_1ma - t * log_a
    if weight is not None:
        loss = loss * weight
    return _reduce(xp, loss, reduction)


declare(
    "logit",
    "LogitBackward0",
    ("self",),
    lambda xp, a: xp.log(a / (1 - a)),
    lambda ctx, g: g / (ctx.saved["self"] * scalar_minus(ctx, 1.0, ctx.saved["self"])),
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),), unit=True),),
    quiet=True,
)


def _bce_backward(
    xp: Any, g: Any, a: Any, t: Any, weight: Any = None, reduction: str = "mean"
) -> Any:
    """``binary_cross_entropy_backward``: ``grad * (x - t) / max(x * (1 - x), eps)``."""
    out = g * (a - t) / xp.maximum((1 - a) * a, a.dtype.type(_FLOAT_EPSILON))
    if weight is not None:
        out = out * weight
    return out / a.size if reduction == "mean" else out


def _bce_double_backward(ctx: Any, gg: Any) -> tuple[Any, Any, Any]:
    """``binary_cross_entropy_double_backward`` and its ``_grad_output``/``_target`` twins."""
    x, t = ctx.saved["self"], ctx.saved["target"]
    w = _constant(ctx, ctx.params.get("weight"))
    mean = ctx.params.get("reduction", "mean") == "mean"
    n = math.prod(x.shape)

    def finish(v: Any) -> Any:
        if w is not None:
            v = v * w
        return v / n if mean else v

    first = ctx.math.binary_cross_entropy_backward(gg, x, t, **ctx.params) if ctx.needs[0] else None
    gi = gt = None
    if ctx.needs[1]:
        num = x * x - 2 * x * t + t
        den = ctx.math.pow(x + _EPSILON, exponent=2) * ctx.math.pow(1 - x + _EPSILON, exponent=2)
        gi = finish(num / den * (gg * ctx.saved["grad_output"]))
    if ctx.needs[2]:
        gt = finish(-gg * ctx.saved["grad_output"] / ctx.math.clamp(x * (1 - x), min=_EPSILON))
    return (first, gi, gt)


declare(
    "binary_cross_entropy_backward",
    "BinaryCrossEntropyBackwardBackward0",
    ("grad_output", "self", "target"),
    _bce_backward,
    _bce_double_backward,
    dtype="float",
    save={"grad_output": ("self", "target"), "self": None, "target": None},
    samples=(Sample(((), (2, 3), (2, 3)), {"reduction": "mean"}, unit=True),),
    quiet=True,
)


def _bce_grad(ctx: Any, g: Any) -> tuple[Any, Any]:
    """``binary_cross_entropy_backward`` for self; for the target PyTorch's
    ``-logit(self) * grad`` (``*= weight``, ``/= numel`` for mean)."""
    x, t = ctx.saved["self"], ctx.saved["target"]
    gx = gt = None
    if ctx.needs[0]:
        p = {"weight": ctx.params.get("weight"), "reduction": ctx.params.get("reduction", "mean")}
        gx = ctx.math.binary_cross_entropy_backward(g, x, t, **p)
    if ctx.needs[1]:
        gt = -ctx.math.logit(x) * g
        w = _constant(ctx, ctx.params.get("weight"))
        if w is not None:
            gt = gt * w
        if ctx.params.get("reduction", "mean") == "mean":
            gt = ctx.math.div_scalar(gt, other=math.prod(x.shape))
    return (gx, gt)


BCE = declare(
    "binary_cross_entropy",
    "BinaryCrossEntropyBackward0",
    ("self", "target"),
    _bce_fwd,
    _bce_grad,
    dtype="float",
    save={"self": None, "target": None},
    samples=(Sample(((2, 3), (2, 3)), unit=True),),
    quiet=True,
)


# -- binary cross-entropy on logits ---------------------------------------------------
def _bcel_fwd(
    xp: Any, a: Any, t: Any, weight: Any = None, pos_weight: Any = None, reduction: str = "mean"
) -> Any:
    softplus_neg = xp.maximum(-a, 0) + xp.log1p(xp.exp(-xp.abs(a)))  # -log(sigmoid(a))
    if pos_weight is None:
        loss = (1 - t) * a + softplus_neg
    else:
        loss = (1 - t) * a + (1 + (pos_weight - 1) * t) * softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(xp, loss, reduction)


def _constant(ctx: Any, arr: Any) -> Any:
    """A parameter array as a formula operand: a tensor (without grad) under create_graph."""
    if arr is None or ctx.math is ARRAY_MATH:
        return arr
    return Tensor._wrap(arr)


def _bcel_grad(ctx: Any, g: Any) -> tuple[Any, Any]:
    """``binary_cross_entropy_with_logits_backward`` and its target twin: the gradient
    times ``grad``, then ``*= weight`` and ``/= numel`` for mean (``DivBackward1``)."""
    x, t = ctx.saved["self"], ctx.saved["target"]
    pw, w = (_constant(ctx, ctx.params.get(k)) for k in ("pos_weight", "weight"))
    mean = ctx.params.get("reduction", "mean") == "mean"

    def finish(v: Any) -> Any:
        if w is not None:
            v = v * w
        return ctx.math.div_scalar(v, other=math.prod(x.shape)) if mean else v

    gx = gt = None
    if ctx.needs[0]:
        s = ctx.math.sigmoid(x)
        gx = finish(((s - t) if pw is None else (pw * t + 1 - t) * s - pw * t) * g)
    if ctx.needs[1]:
        if pw is None:
            gt = finish(-x * g)
        else:
            log_sig = -(ctx.math.clamp(-x, min=0) + ctx.math.log1p(ctx.math.exp(-ctx.math.abs(x))))
            gt = finish((-x - (pw - 1) * log_sig) * g)
    return (gx, gt)


BCE_LOGITS = declare(
    "binary_cross_entropy_with_logits",
    "BinaryCrossEntropyWithLogitsBackward0",
    ("self", "target"),
    _bcel_fwd,
    _bcel_grad,
    dtype="float",
    save={"self": None, "target": None},
    samples=(Sample(((2, 3), (2, 3)), positive=True),),
    quiet=True,
)


# -- smooth L1 and Huber ----------------------------------------------------------------
def _smooth_l1_fwd(xp: Any, a: Any, t: Any, beta: float = 1.0, reduction: str = "mean") -> Any:
    d = xp.abs(a - t)
    if beta == 0:
        loss = d
    else:
        loss = xp.where(d < beta, 0.5 * d * d / a.dtype.type(beta), d - a.dtype.type(0.5 * beta))
    return _reduce(xp, loss, reduction)


def _smooth_l1_grad(ctx: Any, g: Any) -> tuple[Any, Any]:
    s, t = ctx.saved["self"], ctx.saved["target"]
    p = {"reduction": ctx.params.get("reduction", "mean"), "beta": ctx.params.get("beta", 1.0)}
    return (
        ctx.math.smooth_l1_loss_backward(g, s, t, **p) if ctx.needs[0] else None,
        ctx.math.smooth_l1_loss_backward(g, t, s, **p) if ctx.needs[1] else None,
    )


SMOOTH_L1 = declare(
    "smooth_l1_loss",
    "SmoothL1LossBackward0",
    ("self", "target"),
    _smooth_l1_fwd,
    _smooth_l1_grad,
    dtype="float",
    save={"self": None, "target": None},
    samples=(Sample(((2, 3), (2, 3)), distinct=True),),
)


def _huber_fwd(xp: Any, a: Any, t: Any, delta: float = 1.0, reduction: str = "mean") -> Any:
    d = xp.abs(a - t)
    dl = a.dtype.type(delta)
    loss = xp.where(d < dl, 0.5 * d * d, dl * (d - 0.5 * dl))
    return _reduce(xp, loss, reduction)


def _huber_grad(ctx: Any, g: Any) -> tuple[Any, Any]:
    s, t = ctx.saved["self"], ctx.saved["target"]
    p = {"reduction": ctx.params.get("reduction", "mean"), "delta": ctx.params.get("delta", 1.0)}
    return (
        ctx.math.huber_loss_backward(g, s, t, **p) if ctx.needs[0] else None,
        ctx.math.huber_loss_backward(g, t, s, **p) if ctx.needs[1] else None,
    )


HUBER = declare(
    "huber_loss",
    "HuberLossBackward0",
    ("self", "target"),
    _huber_fwd,
    _huber_grad,
    dtype="float",
    save={"self": None, "target": None},
    samples=(Sample(((2, 3), (2, 3)), distinct=True),),
)


# -- public functions -------------------------------------------------------------------
def _same_size(name: str, input: Any, target: Any) -> None:  # noqa: A002
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )


def expanded(input: Any, target: Any) -> tuple[Any, Any]:  # noqa: A002
    """``torch.broadcast_tensors(input, target)`` as ``F``'s pointwise losses call it,
    after their warning when the sizes differ (``broadcast_tensors``' error if they
    cannot broadcast)."""
    import numpy as np

    if tuple(input.shape) == tuple(target.shape):
        return input, target
    warnings.warn(
        f"Using a target size ({target.shape}) that is different to the input size "
        f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
        "Please ensure they have the same size.",
        UserWarning,
        stacklevel=warn_site.functional_caller(),
    )

    error = _broadcast_error([input, target])
    if error is not None:
        raise error
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(target.shape)))
    if tuple(input.shape) != shape:
        input = expand(input, shape)
    if tuple(target.shape) != shape:
        target = expand(target, shape)
    return input, target


def weighted(
    loss: Any,
    input: Any,  # noqa: A002
    weight: Any,
    reduction: str,
    by_weight: bool = True,
) -> Any:
    """``F.mse_loss``/``l1_loss``/``huber_loss`` with ``weight``: composite in Python, the
    unreduced loss times the weight; ``mean`` is its sum over the weights' sum
    (``by_weight``, mse and l1) or its plain mean (Huber)."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    out = mul(loss, weight)
    if reduction == "none":
        return out
    if reduction == "sum":
        return reductions.sum(out)
    if reduction == "mean":
        return (
            div(reductions.sum(out), reductions.sum(weight)) if by_weight else reductions.mean(out)
        )
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _loss(
    name: str,
    params: tuple[Param, ...],
    doc: str,
    inputs: tuple[Any, ...] = (),
    example: Example | None = None,
) -> Any:
    return public(
        name,
        ("input", "target", *inputs),
        params,
        namespace=NS,
        category="loss",
        doc=doc,
        method=False,
        example=example,
    )


@_loss(
    "binary_cross_entropy",
    (REDUCTION,),
    "binary cross-entropy of probabilities",
    (Port("weight", optional=True),),
    example=Example(values={"input": "probability", "target": "probability", "weight": "constant"}),
)
def binary_cross_entropy(
    input: Any,  # noqa: A002
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Any:
    reduction = loss_reduction(size_average, reduce, reduction)
    _same_size("binary_cross_entropy", input, target)
    check_common_device("_binary_cross_entropy", self=input, target=target, weight=weight)
    refuse_grad("binary_cross_entropy", "weight", weight)
    params: dict[str, Any] = {"reduction": reduction}
    if weight is not None:
        params["weight"] = weight._data
    return apply_op(BCE, (input, target), params)


@_loss(
    "binary_cross_entropy_with_logits",
    (REDUCTION,),
    "binary cross-entropy of logits",
    (Port("weight", optional=True), Port("pos_weight", optional=True)),
    example=Example(
        values={"target": "probability", "weight": "constant", "pos_weight": "constant"}
    ),
)
def binary_cross_entropy_with_logits(
    input: Any,  # noqa: A002
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Any = None,
) -> Any:
    reduction = loss_reduction(size_average, reduce, reduction)
    _same_size("binary_cross_entropy_with_logits", input, target)
    refuse_grad("binary_cross_entropy_with_logits", "weight", weight)
    refuse_grad("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    params: dict[str, Any] = {"reduction": reduction}
    if weight is not None:
        params["weight"] = weight._data
    if pos_weight is not None:
        params["pos_weight"] = pos_weight._data
    return apply_op(BCE_LOGITS, (input, target), params)


@_loss("l1_loss", (REDUCTION,), "mean absolute error")
def l1_loss(
    input: Any,  # noqa: A002
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Any = None,
) -> Any:
    """Composite in PyTorch: ``(input - target).abs()`` then the reduction."""
    input, target = expanded(input, target)
    reduction = loss_reduction(size_average, reduce, reduction)
    loss = pointwise.abs(pointwise.sub(input, target))
    if weight is not None:
        return weighted(loss, input, weight, reduction)
    if reduction == "mean":
        return reductions.mean(loss)
    return reductions.sum(loss) if reduction == "sum" else loss


@_loss("smooth_l1_loss", (REDUCTION, Param("beta", "float")), "smooth L1 (Huber / beta)")
def smooth_l1_loss(
    input: Any,  # noqa: A002
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Any:
    """``beta == 0`` is ``l1_loss`` (its composite graph), as ``F.smooth_l1_loss`` calls it."""
    input, target = expanded(input, target)
    reduction = loss_reduction(size_average, reduce, reduction)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return apply_op(SMOOTH_L1, (input, target), {"reduction": reduction, "beta": beta})


@_loss("huber_loss", (REDUCTION, Param("delta", "float")), "Huber loss")
def huber_loss(
    input: Any,  # noqa: A002
    target: Any,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Any = None,
) -> Any:
    """With ``weight``, the unreduced loss times it, reduced in Python (``weighted``)."""
    input, target = expanded(input, target)
    if weight is None:
        return apply_op(HUBER, (input, target), {"reduction": reduction, "delta": delta})
    loss = apply_op(HUBER, (input, target), {"reduction": "none", "delta": delta})
    return weighted(loss, input, weight, reduction, by_weight=False)
