"""More losses for ``nn.functional``: binary cross-entropy (on probabilities and on
logits), L1, smooth L1 and Huber.

``l1_loss`` is composite in PyTorch (its ``grad_fn`` is the reduction's), the
others are fused nodes with PyTorch's names and saved tensors.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from engine.catalog import Example, Param, Port, public
from engine.ops.core import Sample, apply_op, declare

NS = "torch.nn.functional"
REDUCTION = Param("reduction", "str", choices=("mean", "sum", "none"))
_EPSILON = 1e-12


def _reduce(xp: Any, loss: Any, reduction: str) -> Any:
    if reduction == "mean":
        return xp.mean(loss)
    if reduction == "sum":
        return xp.sum(loss)
    return loss


def _scale(c: Any, g: Any, shape: tuple[int, ...]) -> Any:
    """The incoming gradient spread over the elements, divided by n for ``mean``."""
    red = c.p.get("reduction", "mean")
    if red == "mean":
        return g / math.prod(shape)
    return g


def _weight(c: Any) -> Any:
    w = c.p.get("weight")
    return 1 if w is None else w


# -- binary cross-entropy on probabilities -----------------------------------------------
def _bce_fwd(xp: Any, a: Any, t: Any, weight: Any = None, reduction: str = "mean") -> Any:
    if ((a < 0) | (a > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    log_a = xp.maximum(xp.log(a), -100)
    log_1ma = xp.maximum(xp.log1p(-a), -100)
    loss = (t - 1) * log_1ma - t * log_a
    if weight is not None:
        loss = loss * weight
    return _reduce(xp, loss, reduction)


def _bce_grad(c: Any, g: Any) -> tuple[Any, Any]:
    x, t = c.s["self"], c.s["target"]
    gx = _scale(c, g, tuple(x.shape)) * (x - t) / c.m.clamp(x * (1 - x), min=_EPSILON)
    gx = gx * _weight(c)
    gt = None
    if c.needs[1]:
        gt = _scale(c, g, tuple(x.shape)) * (c.m.log(1 - x) - c.m.log(x)) * _weight(c)
    return (gx if c.needs[0] else None, gt)


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


def _bcel_grad(c: Any, g: Any) -> tuple[Any, Any]:
    x, t = c.s["self"], c.s["target"]
    pw = c.p.get("pos_weight")
    s = c.m.sigmoid(x)
    scale = _scale(c, g, tuple(x.shape)) * _weight(c)
    gx = scale * (s - t) if pw is None else scale * ((pw * t + 1 - t) * s - pw * t)
    gt = None
    if c.needs[1]:
        log_sig = -(c.m.clamp(-x, min=0) + c.m.log1p(c.m.exp(-c.m.abs(x))))
        gt = scale * (-x if pw is None else -x - (pw - 1) * log_sig)
    return (gx if c.needs[0] else None, gt)


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


def _smooth_l1_grad(c: Any, g: Any) -> tuple[Any, Any]:
    d = c.s["self"] - c.s["target"]
    beta = c.p.get("beta", 1.0)
    inner = d / beta if beta else d * 0
    grad = c.m.where(inner, c.m.sign(d), condition=c.m.lt(c.m.abs(d), beta))
    grad = grad * _scale(c, g, tuple(d.shape))
    return (grad if c.needs[0] else None, -grad if c.needs[1] else None)


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


def _huber_grad(c: Any, g: Any) -> tuple[Any, Any]:
    d = c.s["self"] - c.s["target"]
    delta = c.p.get("delta", 1.0)
    grad = c.m.where(d, c.m.sign(d) * delta, condition=c.m.lt(c.m.abs(d), delta))
    grad = grad * _scale(c, g, tuple(d.shape))
    return (grad if c.needs[0] else None, -grad if c.needs[1] else None)


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
def _check_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        warnings.warn(
            "size_average and reduce args will be deprecated, please use reduction='"
            + (
                "mean"
                if (reduce is None or reduce) and size_average is not False
                else "sum"
                if reduce is None or reduce
                else "none"
            )
            + "' instead.",
            UserWarning,
            stacklevel=3,
        )
        if reduce is False:
            return "none"
        return "sum" if size_average is False else "mean"
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _same_size(name: str, input: Any, target: Any) -> None:  # noqa: A002
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )


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
    reduction = _check_reduction(size_average, reduce, reduction)
    _same_size("binary_cross_entropy", input, target)
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
    reduction = _check_reduction(size_average, reduce, reduction)
    _same_size("binary_cross_entropy_with_logits", input, target)
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
) -> Any:
    """Composite in PyTorch: ``(input - target).abs()`` then the reduction."""
    from engine.ops.pointwise import abs, sub
    from engine.ops.reduce import mean, sum

    reduction = _check_reduction(size_average, reduce, reduction)
    loss = abs(sub(input, target))
    if reduction == "mean":
        return mean(loss)
    return sum(loss) if reduction == "sum" else loss


@_loss("smooth_l1_loss", (REDUCTION, Param("beta", "float")), "smooth L1 (Huber / beta)")
def smooth_l1_loss(
    input: Any,  # noqa: A002
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Any:
    reduction = _check_reduction(size_average, reduce, reduction)
    return apply_op(SMOOTH_L1, (input, target), {"reduction": reduction, "beta": beta})


@_loss("huber_loss", (REDUCTION, Param("delta", "float")), "Huber loss")
def huber_loss(
    input: Any,  # noqa: A002
    target: Any,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Any = None,
) -> Any:
    return apply_op(HUBER, (input, target), {"reduction": reduction, "delta": delta})
