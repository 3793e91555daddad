"""More activations for ``nn.functional``: leaky ReLU, ELU, softplus, SiLU, hardtanh,
ReLU6, log-sigmoid.  Derivatives follow ``derivatives.yaml``; each saves what
PyTorch's node saves."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.catalog import Param, public
from engine.ops.core import ARRAY_MATH, Sample, apply_inplace, apply_op, declare
from engine.ops.kernel_dtypes import is_bool, refuse_dtype
from engine.ops.pointwise import data_of, scalar_minus, zero_scalar, zeros_like
from engine.tensor import Tensor

NS = "torch.nn.functional"
DISTINCT = (Sample(((2, 3),), distinct=True),)


def _fused_backward(name: str, grad_fn: str, kernel: Any, second: Any, params: Any) -> None:
    """PyTorch's ``<op>_backward(grad_output, self)`` kernel as an op of its own, so a
    ``create_graph`` backward records its ``…BackwardBackward0`` node; ``second`` is the
    gradient for ``self`` (the activation's second derivative times both gradients)."""
    declare(
        name,
        grad_fn,
        ("grad_output", "self"),
        kernel,
        lambda ctx, gg: (
            getattr(ctx.math, name)(gg, ctx.saved["self"], **ctx.params) if ctx.needs[0] else None,
            second(ctx, gg) if ctx.needs[1] else None,
        ),
        save={"self": None, "grad_output": ("self",)},
        samples=(Sample(((2, 3), (2, 3)), params, distinct=True),),
        quiet=True,
    )


def _softplus_backward(xp: Any, g: Any, x: Any, beta: float, threshold: float) -> Any:
    """ATen's ``softplus_backward`` kernel: ``z = exp(x * beta)``, then ``g * z / (z + 1)``
    below the threshold (not ``g * sigmoid``, which rounds differently)."""
    scaled = x * x.dtype.type(beta)
    with np.errstate(over="ignore", invalid="ignore"):
        z = xp.exp(scaled)
        return xp.where(scaled > threshold, g, g * z / (z + 1))


def _log_sigmoid_backward(xp: Any, g: Any, x: Any) -> Any:
    """ATen's ``log_sigmoid_backward`` kernel on its buffer ``z = exp(-|x|)``:
    ``(1 - z / (1 + z)) * g`` for a negative input, ``(0 + z / (1 + z)) * g`` otherwise
    (NaN takes the second branch)."""
    z = xp.exp(-xp.abs(x))
    q = z / (1 + z)
    return xp.where(x < 0, 1 - q, 0 + q) * g


def _no_second(ctx: Any, gg: Any) -> Any:
    return zeros_like(ctx, ctx.saved["self"])


_fused_backward(
    "leaky_relu_backward",
    "LeakyReluBackwardBackward0",
    lambda xp, g, x, negative_slope: xp.where(x > 0, g, g * negative_slope),
    _no_second,
    {"negative_slope": 0.1},
)


def _elu_second(ctx: Any, gg: Any) -> Any:
    """``elu_double_backward``; ``scale`` and ``input_scale`` (SELU's, CELU's) enter only
    where they are not 1, so plain ELU's graph keeps its nodes."""
    x, p = ctx.saved["self"], ctx.params
    scale, input_scale = p.get("scale", 1.0), p.get("input_scale", 1.0)
    coef = p["alpha"] * scale * input_scale * input_scale
    if input_scale == 1.0:
        value = gg * ctx.saved["grad_output"] * coef * ctx.math.exp(x)
    else:
        value = (
            gg
            * ctx.saved["grad_output"]
            * coef
            * ctx.math.exp(ctx.math.mul_scalar(x, other=input_scale))
        )
    return ctx.math.where(value, zero_scalar(ctx, gg), condition=data_of(ctx, x) <= 0)


def _elu_backward_kernel(
    xp: Any, g: Any, x: Any, alpha: float, scale: float = 1.0, input_scale: float = 1.0
) -> Any:
    """ATen's ``elu_backward`` for ``self``: ``grad * input_scale * alpha * scale *
    exp(x * input_scale)`` where ``x <= 0``, else ``grad * scale``, in the input's dtype."""
    if scale == 1 and input_scale == 1:  # plain ELU: no multiplications by one
        return xp.where(x > 0, g, g * alpha * xp.exp(x))
    t = g.dtype.type
    negcoef, negiptcoef = t(alpha) * t(scale), t(input_scale)
    return xp.where(x > 0, g * t(scale), g * negiptcoef * negcoef * xp.exp(x * negiptcoef))


_fused_backward(
    "elu_backward",
    "EluBackwardBackward0",
    _elu_backward_kernel,
    _elu_second,
    {"alpha": 1.0},
)


def _softplus_second(ctx: Any, gg: Any) -> Any:
    """``softplus_double_backward``: ``sigmoid_backward(gg * go, sigmoid(x * beta))``
    times the mask ``x * beta < threshold`` (``MulBackward0``), times beta."""
    beta, x = ctx.params["beta"], ctx.saved["self"]
    scaled = ctx.math.mul_scalar(x, other=beta)
    mask = data_of(ctx, scaled) < ctx.params["threshold"]
    if ctx.math is not ARRAY_MATH:
        mask = Tensor._wrap(mask)
    value = (
        ctx.math.sigmoid_backward(gg * ctx.saved["grad_output"], ctx.math.sigmoid(scaled)) * mask
    )
    return ctx.math.mul_scalar(value, other=beta)


_fused_backward(
    "softplus_backward",
    "SoftplusBackwardBackward0",
    lambda xp, g, x, beta, threshold: _softplus_backward(xp, g, x, beta, threshold),
    _softplus_second,
    {"beta": 1.0, "threshold": 20.0},
)
_fused_backward(
    "hardtanh_backward",
    "HardtanhBackwardBackward0",
    lambda xp, g, x, min_val, max_val: xp.where(
        (x > min_val) & (x < max_val), g, xp.zeros((), g.dtype)
    ),
    _no_second,
    {"min_val": -1.0, "max_val": 1.0},
)


def _log_sigmoid_second(ctx: Any, gg: Any) -> Any:
    """``log_sigmoid_double_backward``: ``(gg * go) * (z - 1) * z`` with ``z = sigmoid(x)``."""
    z = ctx.math.sigmoid(ctx.saved["self"])
    return gg * ctx.saved["grad_output"] * ctx.math.sub_scalar(z, other=1) * z


_fused_backward(
    "log_sigmoid_backward",
    "LogSigmoidBackwardBackward0",
    lambda xp, g, x: _log_sigmoid_backward(xp, g, x),
    _log_sigmoid_second,
    {},
)


def _elu_result_second(ctx: Any, gg: Any) -> Any:
    """``elu_double_backward`` for a result: ``gg * grad_output * input_scale * (result < 0)``."""
    value = gg * ctx.saved["grad_output"]
    input_scale = ctx.params.get("input_scale", 1.0)
    if input_scale != 1.0:
        value = value * input_scale
    return ctx.math.where(
        value, zero_scalar(ctx, gg), condition=data_of(ctx, ctx.saved["self"]) < 0
    )


def _elu_result_kernel(
    xp: Any, g: Any, r: Any, alpha: float, scale: float = 1.0, input_scale: float = 1.0
) -> Any:
    if scale == 1 and input_scale == 1:  # plain ELU: no multiplications by one
        return xp.where(r > 0, g, g * (r + r.dtype.type(alpha)))
    t = g.dtype.type
    negcoef = t(alpha) * t(scale)
    return xp.where(r > 0, g * t(scale), g * t(input_scale) * (r + negcoef))


# ``elu_backward(..., is_result=True, result)``: the gradient read off the output, which
# is all an in-place ELU keeps (its node saves the result; ``self`` here is that result)
_fused_backward(
    "elu_result_backward",
    "EluBackwardBackward0",
    _elu_result_kernel,
    _elu_result_second,
    {"alpha": 1.0},
)

LEAKY_RELU_INPLACE_NEGATIVE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead. File an issue at "
    "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
    "backward calculation with negative slope"
)


def _leaky_relu_result_grad(ctx: Any, g: Any) -> Any:
    """``leaky_relu_backward(grad, result, slope, self_is_result=True)``: with a positive
    slope the result has the input's sign; a negative one is refused, in backward."""
    slope = ctx.params.get("negative_slope", 0.01)
    if slope < 0:
        raise RuntimeError(LEAKY_RELU_INPLACE_NEGATIVE)
    return ctx.math.leaky_relu_backward(g, ctx.saved["result"], negative_slope=slope)


LEAKY_RELU = declare(
    "leaky_relu",
    "LeakyReluBackward0",
    ("self",),
    lambda xp, a, negative_slope=0.01: xp.where(a > 0, a, a * a.dtype.type(negative_slope)),
    lambda ctx, g: ctx.math.leaky_relu_backward(
        g, ctx.saved["self"], negative_slope=ctx.params.get("negative_slope", 0.01)
    ),
    dtype="same",
    save={"self": None},
    samples=(Sample(((2, 3),), {"negative_slope": 0.1}, distinct=True),),
)
#: ``leaky_relu_`` (``F.leaky_relu(x, inplace=True)``): the input is gone, so the node
#: (``LeakyReluBackward1``) saves the result.
LEAKY_RELU_INPLACE = declare(
    "leaky_relu_",
    "LeakyReluBackward1",
    ("self",),
    LEAKY_RELU.forward,
    _leaky_relu_result_grad,
    dtype="same",
    save={"result": None},
    samples=(Sample(((2, 3),), {"negative_slope": 0.1}, distinct=True),),
)


def _elu_forward(
    xp: Any, a: Any, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0
) -> Any:
    """ATen's ELU kernel: ``expm1(x * input_scale) * alpha * scale`` where ``x <= 0``, else
    ``x * scale``, with the coefficients in the input's dtype (SELU and CELU are ELUs)."""
    t = a.dtype.type
    below = xp.where(a > 0, t(0), a)  # the input where not positive: elu(-0.0) is -0.0
    if scale == 1 and input_scale == 1:  # plain ELU: no multiplications by one
        return xp.where(a > 0, a, t(alpha) * xp.expm1(below))
    neg = xp.expm1(below * t(input_scale)) * (t(alpha) * t(scale))
    return xp.where(a > 0, a * t(scale), neg)


def _elu_params(p: dict[str, Any]) -> dict[str, Any]:
    """The node's params with ``alpha`` defaulted (``F.elu`` passes it; others may not)."""
    return {"alpha": 1.0, **p}


ELU = declare(
    "elu",
    "EluBackward0",
    ("self",),
    _elu_forward,
    lambda ctx, g: ctx.math.elu_backward(g, ctx.saved["self"], **_elu_params(ctx.params)),
    dtype="float",
    save={"self": None},
    samples=DISTINCT,
    quiet=True,
)

#: ``elu_`` (``F.elu(x, inplace=True)``): ``EluBackward1``, from the saved result.
ELU_INPLACE = declare(
    "elu_",
    "EluBackward1",
    ("self",),
    ELU.forward,
    lambda ctx, g: ctx.math.elu_result_backward(g, ctx.saved["result"], **_elu_params(ctx.params)),
    dtype="float",
    save={"result": None},
    samples=DISTINCT,
    quiet=True,
)


def _softplus_fwd(xp: Any, a: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    scaled = a * a.dtype.type(beta)
    soft = xp.log1p(xp.exp(xp.minimum(scaled, threshold))) / a.dtype.type(beta)
    return xp.where(scaled > threshold, a, soft)


SOFTPLUS = declare(
    "softplus",
    "SoftplusBackward0",
    ("self",),
    _softplus_fwd,
    lambda ctx, g: ctx.math.softplus_backward(
        g,
        ctx.saved["self"],
        beta=ctx.params.get("beta", 1.0),
        threshold=ctx.params.get("threshold", 20.0),
    ),
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),)), Sample(((2, 3),), {"beta": 2.0, "threshold": 1.0}, distinct=True)),
    quiet=True,
)


def _silu_grad(ctx: Any, g: Any) -> Any:
    """``infinitely_differentiable_silu_backward``:
    ``grad * sigmoid * (1.0 + input * (1.0 - sigmoid))`` with ATen's Scalar ops."""
    x = ctx.saved["self"]
    s = ctx.math.sigmoid(x)
    return g * s * ctx.math.add_scalar(x * scalar_minus(ctx, 1.0, s), other=1.0)


SILU = declare(
    "silu",
    "SiluBackward0",
    ("self",),
    lambda xp, a: a / (1 + xp.exp(-a)),
    _silu_grad,
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),)),),
    quiet=True,
)


def _hardtanh_grad(ctx: Any, g: Any) -> Any:
    return ctx.math.hardtanh_backward(
        g,
        ctx.saved["self"],
        min_val=ctx.params.get("min_val", -1.0),
        max_val=ctx.params.get("max_val", 1.0),
    )


HARDTANH = declare(
    "hardtanh",
    "HardtanhBackward0",
    ("self",),
    lambda xp, a, min_val=-1.0, max_val=1.0: xp.clip(a, min_val, max_val),
    _hardtanh_grad,
    dtype="same",
    save={"self": None},
    samples=DISTINCT,
)


def _log_sigmoid_fwd(xp: Any, a: Any) -> Any:
    return -(xp.maximum(-a, 0) + xp.log1p(xp.exp(-xp.abs(a))))


LOG_SIGMOID = declare(
    "log_sigmoid",
    "LogSigmoidBackward0",
    ("self",),
    _log_sigmoid_fwd,
    lambda ctx, g: ctx.math.log_sigmoid_backward(g, ctx.saved["self"]),
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),)),),
    quiet=True,
)


def _f(name: str, params: tuple[Param, ...], doc: str) -> Any:
    return public(
        name, ("input",), params, namespace=NS, category="activation", doc=doc, method=False
    )


@_f("leaky_relu", (Param("negative_slope", "float"),), "x if x > 0 else slope * x")
def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Any:  # noqa: A002
    refuse_dtype("leaky_relu_cpu", input, integral=True)
    if inplace:
        return apply_inplace(LEAKY_RELU_INPLACE, (input,), {"negative_slope": negative_slope})
    return apply_op(LEAKY_RELU, (input,), {"negative_slope": negative_slope})


@_f("elu", (Param("alpha", "float"),), "x if x > 0 else alpha * (exp(x) - 1)")
def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:  # noqa: A002
    refuse_dtype("elu_cpu", input, integral=True)
    if inplace:
        return apply_inplace(ELU_INPLACE, (input,), {"alpha": alpha})
    return apply_op(ELU, (input,), {"alpha": alpha})


@_f(
    "softplus",
    (Param("beta", "float"), Param("threshold", "float")),
    "log(1 + exp(beta * x)) / beta",
)
def softplus(input: Any, beta: float = 1, threshold: float = 20) -> Any:  # noqa: A002
    refuse_dtype("softplus_cpu", input, integral=True)
    return apply_op(SOFTPLUS, (input,), {"beta": beta, "threshold": threshold})


@_f("silu", (), "x * sigmoid(x)")
def silu(input: Any, inplace: bool = False) -> Any:  # noqa: A002
    refuse_dtype("silu_cpu", input, integral=True)
    return apply_inplace(SILU, (input,)) if inplace else apply_op(SILU, (input,))


@_f("hardtanh", (Param("min_val", "float"), Param("max_val", "float")), "clip")
def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Any:  # noqa: A002
    if is_bool(input):
        raise RuntimeError("Bool inputs not supported for hardtanh")
    params = {"min_val": min_val, "max_val": max_val}
    return (
        apply_inplace(HARDTANH, (input,), params)
        if inplace
        else apply_op(HARDTANH, (input,), params)
    )


def _f_inplace(name: str, params: tuple[Param, ...], doc: str) -> Any:
    """``F.<name>_``: PyTorch's in-place functional, what ``inplace=True`` calls."""
    return public(
        f"{name}_",
        ("input",),
        params,
        namespace=NS,
        category="in-place",
        doc=f"{doc}, in place",
        method=False,
        mutates=True,
    )


@_f_inplace("leaky_relu", (Param("negative_slope", "float"),), "x if x > 0 else slope * x")
def leaky_relu_(input: Any, negative_slope: float = 0.01) -> Any:  # noqa: A002
    return leaky_relu(input, negative_slope, inplace=True)


@_f_inplace("elu", (Param("alpha", "float"),), "x if x > 0 else alpha * (exp(x) - 1)")
def elu_(input: Any, alpha: float = 1.0) -> Any:  # noqa: A002
    return elu(input, alpha, inplace=True)


@_f_inplace("hardtanh", (Param("min_val", "float"), Param("max_val", "float")), "clip")
def hardtanh_(input: Any, min_val: float = -1.0, max_val: float = 1.0) -> Any:  # noqa: A002
    return hardtanh(input, min_val, max_val, inplace=True)


@_f("relu6", (), "min(max(x, 0), 6)")
def relu6(input: Any, inplace: bool = False) -> Any:  # noqa: A002
    return hardtanh(input, 0.0, 6.0, inplace)


@_f("logsigmoid", (), "log(sigmoid(x))")
def logsigmoid(input: Any) -> Any:  # noqa: A002
    refuse_dtype("log_sigmoid_cpu", input, integral=True)
    return apply_op(LOG_SIGMOID, (input,))
