"""``F.gelu`` (exact and ``approximate="tanh"``) with PyTorch's fused backward kernel.

NumPy has no ``erf``; the exact form evaluates it in float64 with ``math.erf`` and rounds
it once, then follows ATen's kernel step by step in the input's precision.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.catalog import Param, public
from engine.ops.core import Sample, apply_op, declare

_SQRT1_2 = math.sqrt(0.5)
_M_2_SQRTPI = 1.12837916709551257390  # M_2_SQRTPI
_BETA_NONE = _M_2_SQRTPI * _SQRT1_2 * 0.5
_BETA_TANH = math.sqrt(2) * _M_2_SQRTPI * 0.5
_KAPPA = 0.044715


def _host_erf(a: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(a.astype(np.float64))


def _erf(xp: Any, a: Any) -> Any:
    """``erf`` in float64: the C library's on the CPU; on the GPU CuPy's (it lives in
    ``cupyx.scipy.special``), or the host's when that part of CuPy is not installed."""
    if xp is np:
        return _host_erf(a)
    try:
        import cupyx.scipy.special  # type: ignore[import-not-found]
    except ImportError:
        return xp.asarray(_host_erf(xp.asnumpy(a)))
    return cupyx.scipy.special.erf(a.astype("float64"))


def _widened(xp: Any, fn: Any, x: Any) -> Any:
    """``fn`` evaluated in float64 and rounded once to ``x``'s dtype: the correctly rounded
    value, which is what SLEEF's float32 routines give almost everywhere."""
    return fn(x.astype(np.float64)).astype(x.dtype)


def _forward(xp: Any, a: Any, approximate: str = "none") -> Any:
    """ATen's ``GeluKernel`` in the input's own precision (opmath is float for float32):
    ``x * 0.5 * (1 + erf(x * M_SQRT1_2))``, or ``0.5 * x * (1 + tanh(kBeta * (x + kKappa
    * x^3)))``; erf (or tanh) is the only step rounded from float64, so a large negative
    input gives PyTorch's ``-0.0`` rather than a tiny negative number."""
    one, half = a.dtype.type(1), a.dtype.type(0.5)
    if approximate == "tanh":
        inner = a.dtype.type(_BETA_TANH) * (a + a.dtype.type(_KAPPA) * (a * a * a))
        return half * a * (one + _widened(xp, xp.tanh, inner))
    return a * half * (one + _widened(xp, lambda v: _erf(xp, v), a * a.dtype.type(_SQRT1_2)))


def _backward_kernel(xp: Any, g: Any, a: Any, approximate: str = "none") -> Any:
    """ATen's ``GeluBackwardKernel``, step by step in the input's precision."""
    t = a.dtype.type
    if approximate == "tanh":
        x_sq = a * a
        inner = t(_BETA_TANH) * (a + t(_KAPPA) * (x_sq * a))
        tanh_inner = _widened(xp, xp.tanh, inner)
        left = t(0.5) * a
        right = t(1) + tanh_inner
        tanh_derivative = t(1) - tanh_inner * tanh_inner
        inner_derivative = t(_BETA_TANH) * (t(1) + t(3) * t(_KAPPA) * x_sq)
        return g * (t(0.5) * right + left * tanh_derivative * inner_derivative)
    cdf = t(0.5) * (t(1) + _widened(xp, lambda v: _erf(xp, v), a * t(_SQRT1_2)))
    pdf = t(_BETA_NONE) * _widened(xp, xp.exp, a * a * t(-0.5))
    return g * (cdf + a * pdf)


def _second(ctx: Any, gg: Any) -> Any:
    """The second derivative times both incoming gradients."""
    x, m = ctx.saved["self"], ctx.math
    if ctx.params.get("approximate", "none") == "tanh":
        du = _BETA_TANH * (1 + 3 * _KAPPA * x * x)
        t = m.tanh(_BETA_TANH * (x + _KAPPA * x * x * x))
        d2 = (1 - t * t) * (du + 0.5 * x * (6 * _BETA_TANH * _KAPPA * x - 2 * t * du * du))
    else:
        d2 = _BETA_NONE * m.exp(-0.5 * x * x) * (2 - x * x)
    return gg * ctx.saved["grad_output"] * d2


declare(
    "gelu_backward",
    "GeluBackwardBackward0",
    ("grad_output", "self"),
    _backward_kernel,
    lambda ctx, gg: (
        ctx.math.gelu_backward(gg, ctx.saved["self"], **ctx.params) if ctx.needs[0] else None,
        _second(ctx, gg) if ctx.needs[1] else None,
    ),
    save={"self": None, "grad_output": ("self",)},
    samples=(
        Sample(((2, 3), (2, 3)), {"approximate": "none"}),
        Sample(((2, 3), (2, 3)), {"approximate": "tanh"}),
    ),
    quiet=True,
)
GELU = declare(
    "gelu",
    "GeluBackward0",
    ("self",),
    _forward,
    lambda ctx, g: ctx.math.gelu_backward(g, ctx.saved["self"], **ctx.params),
    dtype="float",
    save={"self": None},
    samples=(
        Sample(((2, 3),), {"approximate": "none"}),
        Sample(((2, 3),), {"approximate": "tanh"}),
    ),
    quiet=True,
)


@public(
    "gelu",
    ("input",),
    (Param("approximate", "str", choices=("none", "tanh")),),
    namespace="torch.nn.functional",
    category="activation",
    doc="x * Phi(x), the Gaussian error linear unit",
    method=False,
)
def gelu(input: Any, approximate: str = "none") -> Any:  # noqa: A002
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return apply_op(GELU, (input,), {"approximate": approximate})
