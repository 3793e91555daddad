"""More activations for ``nn.functional``: leaky ReLU, ELU, softplus, SiLU, hardtanh,
ReLU6, log-sigmoid.  Derivatives follow ``derivatives.yaml``; each saves what
PyTorch's node saves."""

from __future__ import annotations

from typing import Any

from engine.catalog import Param, public
from engine.ops.core import Sample, apply_op, declare

NS = "torch.nn.functional"
DISTINCT = (Sample(((2, 3),), distinct=True),)


LEAKY_RELU = declare(
    "leaky_relu",
    "LeakyReluBackward0",
    ("self",),
    lambda xp, a, negative_slope=0.01: xp.where(a > 0, a, a * a.dtype.type(negative_slope)),
    lambda c, g: c.m.where(
        g, g * c.p.get("negative_slope", 0.01), condition=c.m.gt(c.s["self"], 0)
    ),
    dtype="same",
    save={"self": None},
    samples=(Sample(((2, 3),), {"negative_slope": 0.1}, distinct=True),),
)
ELU = declare(
    "elu",
    "EluBackward0",
    ("self",),
    lambda xp, a, alpha=1.0: xp.where(a > 0, a, a.dtype.type(alpha) * xp.expm1(xp.minimum(a, 0))),
    lambda c, g: c.m.where(
        g, g * c.p.get("alpha", 1.0) * c.m.exp(c.s["self"]), condition=c.m.gt(c.s["self"], 0)
    ),
    dtype="float",
    save={"self": None},
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
    lambda c, g: c.m.where(
        g,
        g * c.m.sigmoid(c.s["self"] * c.p.get("beta", 1.0)),
        condition=c.m.gt(c.s["self"] * c.p.get("beta", 1.0), c.p.get("threshold", 20.0)),
    ),
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),)), Sample(((2, 3),), {"beta": 2.0, "threshold": 1.0}, distinct=True)),
    quiet=True,
)


def _silu_grad(c: Any, g: Any) -> Any:
    x = c.s["self"]
    s = c.m.sigmoid(x)
    return g * s * (1 + x * (1 - s))


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


def _hardtanh_grad(c: Any, g: Any) -> Any:
    x = c.s["self"]
    inside = c.m.logical_and(
        c.m.gt(x, c.p.get("min_val", -1.0)), c.m.lt(x, c.p.get("max_val", 1.0))
    )
    return c.m.where(g, g * 0, condition=inside)


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
    lambda c, g: g * (1 - c.m.sigmoid(c.s["self"])),
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),)),),
    quiet=True,
)


def _f(name: str, params: tuple[Param, ...], doc: str) -> Any:
    return public(
        name, ("input",), params, namespace=NS, category="activation", doc=doc, method=False
    )


def _inplace_unsupported(name: str, inplace: bool) -> None:
    if inplace:
        raise NotImplementedError(f"{name}(inplace=True) is not supported; use inplace=False")


@_f("leaky_relu", (Param("negative_slope", "float"),), "x if x > 0 else slope * x")
def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Any:  # noqa: A002
    _inplace_unsupported("leaky_relu", inplace)
    return apply_op(LEAKY_RELU, (input,), {"negative_slope": negative_slope})


@_f("elu", (Param("alpha", "float"),), "x if x > 0 else alpha * (exp(x) - 1)")
def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:  # noqa: A002
    _inplace_unsupported("elu", inplace)
    return apply_op(ELU, (input,), {"alpha": alpha})


@_f(
    "softplus",
    (Param("beta", "float"), Param("threshold", "float")),
    "log(1 + exp(beta * x)) / beta",
)
def softplus(input: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:  # noqa: A002
    return apply_op(SOFTPLUS, (input,), {"beta": beta, "threshold": threshold})


@_f("silu", (), "x * sigmoid(x)")
def silu(input: Any, inplace: bool = False) -> Any:  # noqa: A002
    _inplace_unsupported("silu", inplace)
    return apply_op(SILU, (input,))


@_f("hardtanh", (Param("min_val", "float"), Param("max_val", "float")), "clip")
def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Any:  # noqa: A002
    _inplace_unsupported("hardtanh", inplace)
    return apply_op(HARDTANH, (input,), {"min_val": min_val, "max_val": max_val})


@_f("relu6", (), "min(max(x, 0), 6)")
def relu6(input: Any, inplace: bool = False) -> Any:  # noqa: A002
    return hardtanh(input, 0.0, 6.0, inplace)


@_f("logsigmoid", (), "log(sigmoid(x))")
def logsigmoid(input: Any) -> Any:  # noqa: A002
    return apply_op(LOG_SIGMOID, (input,))
