"""``F.gelu`` (exact and ``approximate="tanh"``) with PyTorch's fused backward kernel.

NumPy has no ``erf``; the exact form evaluates it in float64 with ``math.erf`` and rounds
once, which can differ from PyTorch's float32 kernel in the last bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.catalog import Param, public
from engine.ops.core import Sample, apply_op, declare

_SQRT1_2 = math.sqrt(0.5)
_BETA_NONE = 2 / math.sqrt(math.pi) * _SQRT1_2 * 0.5
_BETA_TANH = math.sqrt(2) * 2 / math.sqrt(math.pi) * 0.5
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


def _forward(xp: Any, a: Any, approximate: str = "none") -> Any:
    x = a.astype(np.float64)
    if approximate == "tanh":
        out = 0.5 * x * (1 + xp.tanh(_BETA_TANH * (x + _KAPPA * x * x * x)))
    else:
        out = 0.5 * x * (1 + _erf(xp, x * _SQRT1_2))
    return out.astype(a.dtype)


def _backward_kernel(xp: Any, g: Any, a: Any, approximate: str = "none") -> Any:
    x = a.astype(np.float64)
    if approximate == "tanh":
        t = xp.tanh(_BETA_TANH * (x + _KAPPA * x * x * x))
        right = 0.5 * x * (1 - t * t) * _BETA_TANH * (1 + 3 * _KAPPA * x * x)
        d = 0.5 * (1 + t) + right
    else:
        d = 0.5 * (1 + _erf(xp, x * _SQRT1_2)) + x * xp.exp(-0.5 * x * x) * _BETA_NONE
    return (g * d).astype(g.dtype)


def _second(c: Any, gg: Any) -> Any:
    """The second derivative times both incoming gradients."""
    x, m = c.s["self"], c.m
    if c.p.get("approximate", "none") == "tanh":
        du = _BETA_TANH * (1 + 3 * _KAPPA * x * x)
        t = m.tanh(_BETA_TANH * (x + _KAPPA * x * x * x))
        d2 = (1 - t * t) * (du + 0.5 * x * (6 * _BETA_TANH * _KAPPA * x - 2 * t * du * du))
    else:
        d2 = _BETA_NONE * m.exp(-0.5 * x * x) * (2 - x * x)
    return gg * c.s["grad_output"] * d2


declare(
    "gelu_backward",
    "GeluBackwardBackward0",
    ("grad_output", "self"),
    _backward_kernel,
    lambda c, gg: (
        c.m.gelu_backward(gg, c.s["self"], **c.p) if c.needs[0] else None,
        _second(c, gg) if c.needs[1] else None,
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
    lambda c, g: c.m.gelu_backward(g, c.s["self"], **c.p),
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
