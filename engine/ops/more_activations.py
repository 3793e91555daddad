"""The rest of ``nn.functional``'s activations: SELU and CELU (ATen's ELU with a scale),
PReLU, Mish, hardswish, hardsigmoid, the shrinks, threshold and GLU.  Each is the op
ATen's ``derivatives.yaml`` names (its node, its backward kernel as an op of its own
where PyTorch records one) or composed from existing ops as ``torch.nn.functional``
composes it (softsign, tanhshrink), so ``grad_fn`` chains are PyTorch's."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.catalog import Example, Param, public
from engine.ops.activations import ELU, ELU_INPLACE, _elu_forward, _fused_backward, _no_second
from engine.ops.core import ARRAY_MATH, Sample, apply_inplace, apply_op, declare
from engine.ops.kernel_dtypes import is_bool, refuse_dtype
from engine.ops.pointwise import data_of, scalar_minus, zero_scalar, zeros_like
from engine.ops.shape import _wrap, reshape

NS = "torch.nn.functional"
DISTINCT = (Sample(((2, 3),), distinct=True),)
#: SELU's constants, as ``aten/src/ATen/native/Activation.cpp`` writes them.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _where_zero(ctx: Any, value: Any, keep_zero: Any) -> Any:
    """``at::where(cond, zeros({}), value)`` in a formula (``keep_zero`` an array mask;
    the formulas' ``where(a, b, condition)`` picks ``a`` where the condition holds)."""
    return ctx.math.where(value, zero_scalar(ctx, value), condition=~keep_zero)


# -- CELU: ELU with input_scale = 1 / alpha, a node of its own --------------------------


def _celu_backward_params(alpha: float) -> dict[str, Any]:
    """``elu_backward(grad, alpha, 1, 1.0 / alpha.toFloat(), ...)``: the inverse of alpha
    rounded to float first, as ``derivatives.yaml`` computes it."""
    return {"alpha": alpha, "scale": 1.0, "input_scale": 1.0 / float(np.float32(alpha))}


CELU = declare(
    "celu",
    "CeluBackward0",
    ("self",),
    lambda xp, a, alpha=1.0: _elu_forward(xp, a, alpha, 1.0, 1.0 / alpha),
    lambda ctx, g: ctx.math.elu_backward(
        g, ctx.saved["self"], **_celu_backward_params(ctx.params["alpha"])
    ),
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),), {"alpha": 1.0}, distinct=True),),
    quiet=True,
)
#: ``celu_``: ``CeluBackward1``, from the saved result (``is_result=True``).
CELU_INPLACE = declare(
    "celu_",
    "CeluBackward1",
    ("self",),
    CELU.forward,
    lambda ctx, g: ctx.math.elu_result_backward(
        g, ctx.saved["result"], **_celu_backward_params(ctx.params["alpha"])
    ),
    dtype="float",
    save={"result": None},
    samples=(Sample(((2, 3),), {"alpha": 2.0}, distinct=True),),
    quiet=True,
)


# -- hardswish, hardsigmoid ---------------------------------------------------------------


def _hardswish_fwd(xp: Any, a: Any) -> Any:
    t = a.dtype.type
    return a * xp.minimum(xp.maximum(a + t(3), t(0)), t(6)) / t(6)


def _hardswish_backward_kernel(xp: Any, g: Any, x: Any) -> Any:
    """ATen's CPU kernel: 0 up to -3 inclusive, ``grad * (x / 3 + 0.5)`` below 3, then
    ``grad`` (measured at the ends: 0 at -3, ``grad`` at 3)."""
    t = g.dtype.type
    mid = xp.where(x < t(3), g * (x / t(3) + t(0.5)), g)
    return xp.where(x <= t(-3), xp.zeros((), g.dtype), mid)


def _hardswish_second(ctx: Any, gg: Any) -> Any:
    """``where(-3 < self < 3, grad * grad_output / 3.0, 0)``."""
    x = data_of(ctx, ctx.saved["self"])
    return _where_zero(ctx, gg * ctx.saved["grad_output"] / 3.0, ~((x > -3.0) & (x < 3.0)))


_fused_backward(
    "hardswish_backward",
    "HardswishBackwardBackward0",
    _hardswish_backward_kernel,
    _hardswish_second,
    {},
)
HARDSWISH = declare(
    "hardswish",
    "HardswishBackward0",
    ("self",),
    _hardswish_fwd,
    lambda ctx, g: ctx.math.hardswish_backward(g, ctx.saved["self"]),
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),), distinct=True),),
)


def _hardsigmoid_backward_kernel(xp: Any, g: Any, x: Any) -> Any:
    t = g.dtype.type
    inside = (x > t(-3)) & (x < t(3))
    # ATen's ``one_sixth`` is ``1.0f / 6.0f``, a float even for double inputs
    return xp.where(inside, g * t(np.float32(1.0) / np.float32(6.0)), xp.zeros((), g.dtype))


def _hardsigmoid_second(ctx: Any, gg: Any) -> Any:
    raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


#: ``hardsigmoid_backward`` has no derivative in ``derivatives.yaml``: under
#: ``create_graph`` PyTorch's fallback records a ``NotImplemented`` node that refuses
#: backward, with edges to the inputs that require grad only; the two one-input forms
#: take the other operand as a constant.
declare(
    "hardsigmoid_backward",
    "NotImplemented",
    ("grad_output", "self"),
    _hardsigmoid_backward_kernel,
    _hardsigmoid_second,
)
declare(
    "hardsigmoid_backward_of_self",
    "NotImplemented",
    ("self",),
    lambda xp, x, grad_output: _hardsigmoid_backward_kernel(xp, grad_output, x),
    _hardsigmoid_second,
)
declare(
    "hardsigmoid_backward_of_grad",
    "NotImplemented",
    ("grad_output",),
    lambda xp, g, other: _hardsigmoid_backward_kernel(xp, g, other),
    _hardsigmoid_second,
)


def _hardsigmoid_grad(ctx: Any, g: Any) -> Any:
    x, m = ctx.saved["self"], ctx.math
    if m is ARRAY_MATH:
        return m.hardsigmoid_backward(g, x)
    if not g.requires_grad:
        return m.hardsigmoid_backward_of_self(x, grad_output=g._data)
    if not x.requires_grad:
        return m.hardsigmoid_backward_of_grad(g, other=x._data)
    return m.hardsigmoid_backward(g, x)


HARDSIGMOID = declare(
    "hardsigmoid",
    "HardsigmoidBackward0",
    ("self",),
    lambda xp, a: (
        xp.minimum(xp.maximum(a + a.dtype.type(3), a.dtype.type(0)), a.dtype.type(6))
        / a.dtype.type(6)
    ),
    _hardsigmoid_grad,
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),), distinct=True),),
)


# -- hardshrink, softshrink, threshold ----------------------------------------------------


def _shrink_mask(xp: Any, x: Any, lambd: float) -> Any:
    t = x.dtype.type
    return (x >= -t(lambd)) & (x <= t(lambd))


def _shrink_backward_kernel(xp: Any, g: Any, x: Any, lambd: float) -> Any:
    return xp.where(_shrink_mask(xp, x, lambd), xp.zeros((), g.dtype), g)


for _name, _node in (
    ("hardshrink_backward", "HardshrinkBackwardBackward0"),
    ("softshrink_backward", "SoftshrinkBackwardBackward0"),
):
    _fused_backward(_name, _node, _shrink_backward_kernel, _no_second, {"lambd": 0.5})

HARDSHRINK = declare(
    "hardshrink",
    "HardshrinkBackward0",
    ("self",),
    lambda xp, a, lambd=0.5: xp.where(_shrink_mask(xp, a, lambd), xp.zeros((), a.dtype), a),
    lambda ctx, g: ctx.math.hardshrink_backward(g, ctx.saved["self"], lambd=ctx.params["lambd"]),
    dtype="same",
    save={"self": None},
    samples=(Sample(((2, 3),), {"lambd": 0.2}, distinct=True),),
)


def _softshrink_fwd(xp: Any, a: Any, lambd: float = 0.5) -> Any:
    lam = a.dtype.type(lambd)
    return xp.where(a > lam, a - lam, xp.where(a < -lam, a + lam, xp.zeros((), a.dtype)))


SOFTSHRINK = declare(
    "softshrink",
    "SoftshrinkBackward0",
    ("self",),
    _softshrink_fwd,
    lambda ctx, g: ctx.math.softshrink_backward(g, ctx.saved["self"], lambd=ctx.params["lambd"]),
    dtype="same",
    save={"self": None},
    samples=(Sample(((2, 3),), {"lambd": 0.2}, distinct=True),),
)


def _threshold_fwd(xp: Any, a: Any, threshold: float, value: float) -> Any:
    return xp.where(a <= threshold, xp.asarray(value).astype(a.dtype), a)


THRESHOLD = declare(
    "threshold",
    "ThresholdBackward0",
    ("self",),
    _threshold_fwd,
    lambda ctx, g: ctx.math.threshold_backward(
        g, ctx.saved["self"], threshold=ctx.params["threshold"]
    ),
    dtype="same",
    save={"self": None},
    samples=(Sample(((2, 3),), {"threshold": 0.1, "value": 2.0}, distinct=True),),
)
#: ``threshold_``: ``ThresholdBackward1``; its formula reads ``self``, so PyTorch saves
#: the input as it was before the write.
THRESHOLD_INPLACE = declare(
    "threshold_",
    "ThresholdBackward1",
    ("self",),
    _threshold_fwd,
    lambda ctx, g: ctx.math.threshold_backward(
        g, ctx.saved["self"], threshold=ctx.params["threshold"]
    ),
    dtype="same",
    save={"self": None},
    samples=(Sample(((2, 3),), {"threshold": 0.1, "value": 2.0}, distinct=True),),
)


# -- Mish ---------------------------------------------------------------------------------


def _mish_grad(ctx: Any, g: Any) -> Any:
    """``infinitely_differentiable_mish_backward``: ``grad * (tanh(softplus) + x *
    sigmoid(x) * (1 - tanh(softplus)^2))`` with ``softplus = x.exp().log1p()``."""
    x, m = ctx.saved["self"], ctx.math
    sigmoid = m.sigmoid(x)
    tanh_softplus = m.tanh(m.log1p(m.exp(x)))
    return g * (tanh_softplus + x * sigmoid * scalar_minus(ctx, 1.0, tanh_softplus * tanh_softplus))


MISH = declare(
    "mish",
    "MishBackward0",
    ("self",),
    lambda xp, a: a * xp.tanh(xp.log1p(xp.exp(a))),
    _mish_grad,
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),)),),
    quiet=True,
)


# -- PReLU --------------------------------------------------------------------------------


def _prelu_backward_fwd(xp: Any, g: Any, x: Any, w: Any, *, which: str) -> Any:
    """One output of ``_prelu_kernel_backward``: the input's gradient, or the weight's
    before it is summed to the weight's shape."""
    zero = xp.zeros((), g.dtype)
    if which == "self":
        return xp.where(x > 0, g, w * g)
    return xp.where(x > 0, zero, x * g)


def _prelu_double_backward(ctx: Any, gg: Any) -> tuple[Any, Any, Any]:
    """``derivatives.yaml``'s ``_prelu_kernel_backward`` entry, for the one output this
    node holds (``gg`` is ``grads[0]`` for the input's, ``grads[1]`` for the weight's)."""
    go, x, w = ctx.saved["grad_output"], ctx.saved["self"], ctx.saved["weight"]
    nonneg = data_of(ctx, x) >= 0
    needs = ctx.needs
    if ctx.params["which"] == "self":
        d_go = ctx.math.where(gg, gg * w, condition=nonneg) if needs[0] else None
        d_x = zeros_like(ctx, x) if needs[1] else None
        d_w = _where_zero(ctx, go * gg, nonneg) if needs[2] else None
    else:
        d_go = _where_zero(ctx, gg * x, nonneg) if needs[0] else None
        d_x = _where_zero(ctx, go * gg, nonneg) if needs[1] else None
        d_w = zeros_like(ctx, x) if needs[2] else None
    return d_go, d_x, d_w


declare(
    "prelu_kernel_backward",
    "PreluKernelBackwardBackward0",
    ("grad_output", "self", "weight"),
    _prelu_backward_fwd,
    _prelu_double_backward,
    save={"grad_output": None, "self": None, "weight": None},
    samples=(
        Sample(((2, 3), (2, 3), (1, 3)), {"which": "self"}, distinct=True),
        Sample(((2, 3), (2, 3), (1, 3)), {"which": "weight"}, distinct=True),
        Sample(((4,), (4,), (1,)), {"which": "self"}, distinct=True),
    ),
)


def _prelu_grad(ctx: Any, g: Any) -> tuple[Any, Any]:
    x, w = ctx.saved["self"], ctx.saved["weight"]
    return tuple(  # type: ignore[return-value]
        ctx.math.prelu_kernel_backward(g, x, w, which=which) if need else None
        for which, need in zip(("self", "weight"), ctx.needs, strict=True)
    )


PRELU_KERNEL = declare(
    "_prelu_kernel",
    "PreluKernelBackward0",
    ("self", "weight"),
    lambda xp, a, w: xp.where(a > 0, a, w * a),
    _prelu_grad,
    save={"self": None, "weight": None},
    # the first: a 1-D input and a one-element weight, which ``F.prelu`` passes unshaped
    samples=(Sample(((4,), (1,)), distinct=True), Sample(((2, 3), (1, 3)), distinct=True)),
)


# -- GLU ----------------------------------------------------------------------------------


def _halves(xp: Any, a: Any, dim: int) -> tuple[Any, Any]:
    n = a.shape[dim] // 2
    return xp.split(a, [n], axis=dim)  # type: ignore[no-any-return]


def _sigmoid(xp: Any, a: Any) -> Any:
    return 1 / (1 + xp.exp(-a))


def _glu_fwd(xp: Any, a: Any, dim: int) -> Any:
    first, second = _halves(xp, a, dim)
    return first * _sigmoid(xp, second)


def _glu_backward_fwd(xp: Any, g: Any, a: Any, dim: int) -> Any:
    first, second = _halves(xp, a, dim)
    sig = _sigmoid(xp, second)
    return xp.concatenate([g * sig, g * first * sig * (1 - sig)], axis=dim)


def _glu_double_backward(ctx: Any, gg: Any) -> tuple[Any, Any]:
    """``glu_double_backward_grad_output`` and ``glu_double_backward`` (FunctionsManual)."""
    m, go, x = ctx.math, ctx.saved["grad_output"], ctx.saved["self"]
    dim = ctx.params["dim"] % len(x.shape)
    n = x.shape[dim] // 2

    def narrow(t: Any, start: int) -> Any:
        return m.slice(t, dim=dim, start=start, end=start + n, step=1)

    first, second, gg_first, gg_second = narrow(x, 0), narrow(x, n), narrow(gg, 0), narrow(gg, n)
    sig = m.sigmoid(second)
    one_sub = scalar_minus(ctx, 1.0, sig)
    sig_one_sub = sig * one_sub
    d_go = d_x = None
    if ctx.needs[0]:
        d_go = gg_first * sig + gg_second * first * sig_one_sub
    if ctx.needs[1]:
        second_order = sig_one_sub * one_sub - sig * sig_one_sub
        first_half = gg_second * go * sig_one_sub
        second_half = gg_second * first * go * second_order + gg_first * go * sig_one_sub
        d_x = m.cat(first_half, second_half, dim=dim)
    return d_go, d_x


declare(
    "glu_backward",
    "GluBackwardBackward0",
    ("grad_output", "self"),
    _glu_backward_fwd,
    _glu_double_backward,
    save={"self": None, "grad_output": ("self",)},
    samples=(Sample(((2, 2), (2, 4)), {"dim": -1}),),
    quiet=True,
)
GLU = declare(
    "glu",
    "GluBackward0",
    ("self",),
    _glu_fwd,
    lambda ctx, g: ctx.math.glu_backward(g, ctx.saved["self"], dim=ctx.params["dim"]),
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 4),), {"dim": -1}), Sample(((4, 3),), {"dim": 0})),
    quiet=True,
)


# -- public functions ---------------------------------------------------------------------


def _f(
    name: str,
    params: tuple[Param, ...],
    doc: str,
    inputs: tuple[Any, ...] = ("input",),
    example: Example | None = None,
) -> Any:
    return public(
        name,
        inputs,
        params,
        namespace=NS,
        category="activation",
        doc=doc,
        method=False,
        example=example,
    )


def _f_inplace(name: str, params: tuple[Param, ...], doc: str) -> Any:
    """``F.<name>_``: PyTorch's in-place functional (``torch.<name>_`` too, as every
    mutating function of the table is)."""
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


def _torch(
    name: str,
    params: tuple[Param, ...],
    doc: str,
    inputs: tuple[Any, ...] = ("input",),
    *,
    method: bool = False,
    example: Example | None = None,
) -> Any:
    """``torch.<name>``: the ATen function PyTorch also exposes at top level (the
    ``torch_`` prefix only keeps it apart from ``F``'s in this module)."""
    register = public(
        name,
        inputs,
        params,
        namespace="torch",
        category="activation",
        doc=doc,
        method=method,
        example=example,
    )

    def named(fn: Any) -> Any:
        fn.__name__ = fn.__qualname__ = name
        return register(fn)

    return named


_ALPHA = (Param("alpha", "float"),)
_LAMBD = (Param("lambd", "float"),)
_THRESHOLD = (Param("threshold", "float"), Param("value", "float"))


def _selu(input: Any, inplace: bool) -> Any:  # noqa: A002
    refuse_dtype("elu_cpu", input, integral=True)
    params = {"alpha": SELU_ALPHA, "scale": SELU_SCALE}
    return (
        apply_inplace(ELU_INPLACE, (input,), params) if inplace else apply_op(ELU, (input,), params)
    )


def _celu(input: Any, alpha: float, inplace: bool) -> Any:  # noqa: A002
    if float(alpha) == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    refuse_dtype("elu_cpu", input, integral=True)
    params = {"alpha": alpha}
    if inplace:
        return apply_inplace(CELU_INPLACE, (input,), params)
    return apply_op(CELU, (input,), params)


_SELU_DOC = "scale * elu(x, alpha) with SELU's constants"
_CELU_DOC = "max(0, x) + min(0, alpha * (exp(x / alpha) - 1))"


@_f("selu", (), _SELU_DOC)
def selu(input: Any, inplace: bool = False) -> Any:  # noqa: A002
    return _selu(input, inplace)


@_torch("selu", (), _SELU_DOC)
def torch_selu(input: Any) -> Any:  # noqa: A002
    return _selu(input, False)


@_f_inplace("selu", (), _SELU_DOC)
def selu_(input: Any) -> Any:  # noqa: A002
    return _selu(input, True)


@_f("celu", _ALPHA, _CELU_DOC)
def celu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:  # noqa: A002
    return _celu(input, alpha, inplace)


@_torch("celu", _ALPHA, _CELU_DOC)
def torch_celu(input: Any, alpha: float = 1.0) -> Any:  # noqa: A002
    return _celu(input, alpha, False)


@_f_inplace("celu", _ALPHA, _CELU_DOC)
def celu_(input: Any, alpha: float = 1.0) -> Any:  # noqa: A002
    return _celu(input, alpha, True)


def _unary(op: Any, kernel: str, input: Any, inplace: bool) -> Any:  # noqa: A002
    refuse_dtype(kernel, input, integral=True)
    return apply_inplace(op, (input,)) if inplace else apply_op(op, (input,))


@_f("mish", (), "x * tanh(softplus(x))")
def mish(input: Any, inplace: bool = False) -> Any:  # noqa: A002
    return _unary(MISH, "mish_cpu", input, inplace)


@_f("hardswish", (), "x * relu6(x + 3) / 6")
def hardswish(input: Any, inplace: bool = False) -> Any:  # noqa: A002
    return _unary(HARDSWISH, "hardswish_cpu", input, inplace)


@_f("hardsigmoid", (), "relu6(x + 3) / 6")
def hardsigmoid(input: Any, inplace: bool = False) -> Any:  # noqa: A002
    return _unary(HARDSIGMOID, "hardsigmoid_cpu", input, inplace)


def _hardshrink(input: Any, lambd: float) -> Any:  # noqa: A002
    refuse_dtype("hardshrink_cpu", input, integral=True)
    return apply_op(HARDSHRINK, (input,), {"lambd": lambd})


@_f("hardshrink", _LAMBD, "x where |x| > lambd, else 0")
def hardshrink(input: Any, lambd: float = 0.5) -> Any:  # noqa: A002
    return _hardshrink(input, lambd)


@_torch("hardshrink", _LAMBD, "x where |x| > lambd, else 0", method=True)
def torch_hardshrink(input: Any, lambd: float = 0.5) -> Any:  # noqa: A002
    return _hardshrink(input, lambd)


_FLOAT_MAX = {
    "Float": "3.40282e+38",
    "Double": "1.79769e+308",
    "Half": "65504",
    "BFloat16": "3.38953e+38",
}


@_f("softshrink", _LAMBD, "x - lambd * sign(x) where |x| > lambd, else 0")
def softshrink(input: Any, lambd: float = 0.5) -> Any:  # noqa: A002
    refuse_dtype("softshrink_check", input, integral=True)
    if not lambd >= 0:
        kind = input.dtype.scalar_name
        raise RuntimeError(
            f"lambda must be in range [0, {_FLOAT_MAX.get(kind, '')}] for input dtype {kind}, "
            f"but found {lambd:g}"
        )
    return apply_op(SOFTSHRINK, (input,), {"lambd": lambd})


def _threshold(input: Any, threshold: float, value: float, inplace: bool) -> Any:  # noqa: A002
    if is_bool(input):
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    params = {"threshold": threshold, "value": value}
    if inplace:
        return apply_inplace(THRESHOLD_INPLACE, (input,), params)
    return apply_op(THRESHOLD, (input,), params)


@_f("threshold", _THRESHOLD, "value where x <= threshold, else x")
def threshold(input: Any, threshold: float, value: float, inplace: bool = False) -> Any:  # noqa: A002
    return _threshold(input, threshold, value, inplace)


@_torch("threshold", _THRESHOLD, "value where x <= threshold, else x")
def torch_threshold(input: Any, threshold: float, value: float) -> Any:  # noqa: A002
    return _threshold(input, threshold, value, False)


@_f_inplace("threshold", _THRESHOLD, "value where x <= threshold, else x")
def threshold_(input: Any, threshold: float, value: float) -> Any:  # noqa: A002
    return _threshold(input, threshold, value, True)


def _prelu(input: Any, weight: Any) -> Any:  # noqa: A002
    """ATen's ``prelu``: checks, then the weight reshaped to broadcast over the channel
    dimension (``ViewBackward0``) unless it has the input's rank, then ``_prelu_kernel``."""

    if input.dtype != weight.dtype:
        raise RuntimeError(
            "prelu: Type promoting not supported. Got "
            f"{input.dtype.scalar_name} and {weight.dtype.scalar_name}"
        )
    ndim = input.ndim
    if weight.numel() != 1:
        if ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = {channels}."
            )
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    refuse_dtype("prelu_cpu", input, integral=True)
    if ndim != weight.ndim:
        shape = [1] * ndim
        if ndim > 1:
            shape[1] = weight.numel()
        weight = reshape(weight, tuple(shape))
    return apply_op(PRELU_KERNEL, (input, weight))


#: one slope per channel (dimension 1) of the palette's (2, 3) input
_PRELU_EXAMPLE = Example(inputs={"weight": (3,)})


@_f("prelu", (), "x if x > 0 else weight * x", ("input", "weight"), _PRELU_EXAMPLE)
def prelu(input: Any, weight: Any) -> Any:  # noqa: A002
    return _prelu(input, weight)


@_torch(
    "prelu",
    (),
    "x if x > 0 else weight * x",
    ("input", "weight"),
    method=True,
    example=_PRELU_EXAMPLE,
)
def torch_prelu(input: Any, weight: Any) -> Any:  # noqa: A002
    return _prelu(input, weight)


@_f(
    "glu",
    (Param("dim", "int"),),
    "first half * sigmoid(second half) along dim",
    example=Example(inputs={"input": (2, 4)}),
)
def glu(input: Any, dim: int = -1) -> Any:  # noqa: A002
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")

    d = _wrap(dim, input.ndim)
    if input.shape[d] % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}"
        )
    return apply_op(GLU, (input,), {"dim": dim})


@_f("softsign", (), "x / (1 + |x|)")
def softsign(input: Any) -> Any:  # noqa: A002
    """``input / (input.abs() + 1)``, as ``torch.nn.functional`` writes it."""
    return input / (input.abs() + 1)


@_f("tanhshrink", (), "x - tanh(x)")
def tanhshrink(input: Any) -> Any:  # noqa: A002
    """``input - input.tanh()``, as ``torch.nn.functional`` writes it."""
    return input - input.tanh()
