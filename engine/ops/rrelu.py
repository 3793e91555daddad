"""Randomized leaky ReLU (``F.rrelu``, ``nn.RReLU``): ATen's ``rrelu_with_noise``.

Training draws a slope per non-positive element from ``uniform(lower, upper)`` (a 53-bit
double, rounded to the dtype), in the input's row-major order, and keeps the slopes as
the node's ``noise`` (1 where the input is positive); evaluation is a leaky ReLU with the
mean slope.  The gradient is ``grad * noise``, or the leaky ReLU's where the slopes were
not drawn (evaluation, or a range narrower than 1e-6), as ``rrelu_with_noise_backward``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.catalog import Param, public
from engine.ops.core import Sample, apply_inplace, apply_op, declare
from engine.ops.kernel_dtypes import refuse_dtype
from engine.ops.pointwise import zeros_like
from engine.random import sampling
from engine.random.generator import generator_of

NS = "torch.nn.functional"
#: Slopes as training draws them (and 1 where the input is positive), for the test matrix.
_NOISE = np.array([[0.2, 1.0, 0.3], [1.0, 0.15, 0.25]])
_TRAIN = {"noise": _NOISE, "lower": 0.125, "upper": 1 / 3, "training": True}
_EVAL = {**_TRAIN, "training": False}


def _drawn(training: bool, lower: float, upper: float) -> bool:
    return training and upper - lower > 1e-6


def _backward_kernel(
    xp: Any, g: Any, x: Any, *, noise: Any, lower: float, upper: float, training: bool
) -> Any:
    if _drawn(training, lower, upper):
        return g * xp.asarray(noise).astype(g.dtype, copy=False)
    slope = g.dtype.type((lower + upper) / 2)
    return xp.where(x > 0, g, g * slope)


def _backward_second(ctx: Any, gg: Any) -> tuple[Any, Any]:
    return (
        ctx.math.rrelu_with_noise_backward(gg, ctx.saved["self"], **ctx.params)
        if ctx.needs[0]
        else None,
        zeros_like(ctx, ctx.saved["self"]) if ctx.needs[1] else None,
    )


declare(
    "rrelu_with_noise_backward",
    "RreluWithNoiseBackwardBackward0",
    ("grad_output", "self"),
    _backward_kernel,
    _backward_second,
    save={"self": None, "grad_output": ("self",)},
    saved_params=("noise",),
    samples=(Sample(((2, 3), (2, 3)), _TRAIN, distinct=True),),
)


def _forward(xp: Any, a: Any, *, noise: Any, lower: float, upper: float, training: bool) -> Any:
    if training:
        return a * xp.asarray(noise).astype(a.dtype, copy=False)
    return xp.where(a > 0, a, a * a.dtype.type((lower + upper) / 2))


def _grad(ctx: Any, g: Any) -> Any:
    saved = ctx.saved["self"] if "self" in ctx.saved else ctx.saved["result"]
    return ctx.math.rrelu_with_noise_backward(g, saved, **ctx.params)


RRELU = declare(
    "rrelu_with_noise",
    "RreluWithNoiseBackward0",
    ("self",),
    _forward,
    _grad,
    dtype="same",
    save={"self": None},
    saved_params=("noise",),
    samples=(Sample(((2, 3),), _TRAIN, distinct=True), Sample(((2, 3),), _EVAL, distinct=True)),
)
#: ``rrelu_`` (``F.rrelu(x, inplace=True)``): the input is gone, so the node saves the result
#: (a positive slope keeps the input's sign).
RRELU_INPLACE = declare(
    "rrelu_with_noise_",
    "RreluWithNoiseBackward1",
    ("self",),
    _forward,
    _grad,
    dtype="same",
    save={"result": None},
    saved_params=("noise",),
)


def _noise(input: Any, lower: float, upper: float, training: bool, generator: Any) -> Any:  # noqa: A002
    """The slopes ``_rrelu_with_noise_train`` draws (uninitialised, here ones, when not
    training: PyTorch's noise is then an ``empty_like`` it never reads)."""

    data = np.asarray(input.numpy(force=True))
    noise = np.ones(data.shape, dtype=data.dtype)
    if training:
        drawn = data <= 0  # NaN draws nothing (ATen's ``else``: a slope of 1)
        gen = generator_of(generator, input.is_cuda)
        n = int(drawn.sum())
        # ``uniform_real_distribution<double>`` between the bounds rounded to the dtype
        # (its ``opmath_t``), compiled outside the AVX2 kernels: the multiply and the add
        # round apart (no fused multiply-add, unlike ``uniform_``)
        opmath = np.float64 if data.dtype == np.float64 else np.float32
        low, high = (float(opmath(v)) for v in (lower, upper))
        unit = sampling.unit(gen, n, np.dtype(np.float64))
        noise[drawn] = (unit * (high - low) + low).astype(data.dtype)
    return noise


@public(
    "rrelu",
    ("input",),
    (Param("lower", "float"), Param("upper", "float"), Param("training", "bool")),
    namespace=NS,
    category="activation",
    doc="x if x > 0 else a * x, a drawn from uniform(lower, upper) in training",
    method=False,
)
def rrelu(
    input: Any,  # noqa: A002
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Any:
    refuse_dtype("rrelu_with_noise_out_cpu", input, integral=True)
    if not lower <= upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    params = {
        "noise": _noise(input, lower, upper, training, None),
        "lower": lower,
        "upper": upper,
        "training": training,
    }
    if inplace:
        return apply_inplace(RRELU_INPLACE, (input,), params)
    return apply_op(RRELU, (input,), params)
