"""``lerp``, ``addcmul`` and ``addcdiv``: the fused updates hand-written optimizers and
moving averages use (``ema.lerp_(w, 0.01)``, ``p.addcdiv_(m, v.sqrt(), value=-lr)``).

Each is one node in PyTorch (``LerpBackward0/1``, ``AddcmulBackward0``,
``AddcdivBackward0``) with the formulas of ``derivatives.yaml``; ``lerp`` computes as
ATen's kernel does (from whichever end is nearer), so float32 results agree bit for bit.
"""

from __future__ import annotations

from typing import Any

from engine.catalog import Example, Param, Port, public
from engine.numerics import fma
from engine.ops.core import ARRAY_MATH, Sample, apply_op, declare
from engine.ops.pointwise import scalar_minus, zero_scalar

S3 = Sample(((2, 3), (2, 3), (2, 3)))
S3B = Sample(((2, 3), (3,), (2, 1)))


def _lerp(xp: Any, a: Any, b: Any, w: Any) -> Any:
    """ATen's vectorised ``lerp``: ``fma(w, b - a, a)`` below one half, else
    ``fma(-(b - a), 1 - w, b)``, each rounded once."""
    diff = b - a
    if not hasattr(w, "shape"):
        if getattr(diff, "dtype", None) is not None and diff.dtype.kind == "f":
            w = diff.dtype.type(w)
        return fma(w, diff, a) if abs(w) < 0.5 else fma(-diff, 1 - w, b)
    return xp.where(xp.abs(w) < 0.5, fma(w, diff, a), fma(-diff, 1 - w, b))


LERP = declare(
    "lerp",
    "LerpBackward0",
    ("self", "end"),
    lambda xp, a, b, weight: _lerp(xp, a, b, weight),
    lambda ctx, g: (
        ctx.math.mul_scalar(g, other=1 - ctx.params["weight"]) if ctx.needs[0] else None,
        ctx.math.mul_scalar(g, other=ctx.params["weight"]) if ctx.needs[1] else None,
    ),
    samples=(Sample(((2, 3), (2, 3)), {"weight": 0.3}), Sample(((2, 3), (3,)), {"weight": 0.7})),
)
LERP_T = declare(
    "lerp_tensor",
    "LerpBackward1",
    ("self", "end", "weight"),
    _lerp,
    lambda ctx, g: (
        g * scalar_minus(ctx, 1.0, ctx.saved["weight"]) if ctx.needs[0] else None,
        g * ctx.saved["weight"] if ctx.needs[1] else None,
        g * (ctx.saved["end"] - ctx.saved["self"]) if ctx.needs[2] else None,
    ),
    save={"weight": ("self", "end"), "self": ("weight",), "end": ("weight",)},
    samples=(S3, S3B),
)


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "_data")


@public(
    "lerp",
    ("input", "end", Port("weight", scalar_ok=True)),
    category="arithmetic",
    doc="input + weight * (end - input)",
    inplace=True,
    example=Example(values={"weight": "probability"}),
)
def lerp(input: Any, end: Any, weight: Any) -> Any:  # noqa: A002
    if _is_tensor(weight):
        return apply_op(LERP_T, (input, end, weight))
    return apply_op(LERP, (input, end), {"weight": weight})


def _addcmul(a: Any, t1: Any, t2: Any, value: Any) -> Any:
    """ATen's CPU kernel: ``fma(value * tensor1, tensor2, self)``, one rounding."""
    if value != 1:
        t1 = (t1.dtype.type(value) if t1.dtype.kind == "f" else value) * t1
    return fma(t1, t2, a)


def _addcmul_grads(ctx: Any, g: Any) -> tuple[Any, Any, Any]:
    value = ctx.params.get("value", 1)
    m = ctx.math
    return (
        g if ctx.needs[0] else None,
        g * m.mul_scalar(ctx.saved["tensor2"], other=value) if ctx.needs[1] else None,
        g * m.mul_scalar(ctx.saved["tensor1"], other=value) if ctx.needs[2] else None,
    )


ADDCMUL = declare(
    "addcmul",
    "AddcmulBackward0",
    ("self", "tensor1", "tensor2"),
    lambda xp, a, t1, t2, value=1: _addcmul(a, t1, t2, value),
    _addcmul_grads,
    save={"tensor2": ("tensor1",), "tensor1": ("tensor2",)},
    samples=(S3, S3B, Sample(((2, 3), (2, 3), (2, 3)), {"value": -0.5})),
)


def _scalar_over(ctx: Any, k: Any, t: Any) -> Any:
    """``value / tensor2`` in a formula: a 0-d constant divided by the tensor (PyTorch's
    ``DivBackward0`` with a constant first edge under ``create_graph``)."""
    if ctx.math is ARRAY_MATH:
        return k / t
    return ctx.math.div(zero_scalar(ctx, t) + k, t)


def _addcdiv_grads(ctx: Any, g: Any) -> tuple[Any, Any, Any]:
    value = ctx.params.get("value", 1)
    m = ctx.math
    t1, t2 = ctx.saved["tensor1"], ctx.saved["tensor2"]
    return (
        g if ctx.needs[0] else None,
        g * _scalar_over(ctx, value, t2) if ctx.needs[1] else None,
        -g * (m.mul_scalar(t1, other=value) / (t2 * t2)) if ctx.needs[2] else None,
    )


ADDCDIV = declare(
    "addcdiv",
    "AddcdivBackward0",
    ("self", "tensor1", "tensor2"),
    lambda xp, a, t1, t2, value=1: a + (value * t1) / t2 if value != 1 else a + t1 / t2,
    _addcdiv_grads,
    save={"tensor2": ("tensor1", "tensor2"), "tensor1": ("tensor2",)},
    samples=(
        Sample(((2, 3), (2, 3), (2, 3)), positive=True),
        Sample(((2, 3), (3,), (2, 1)), {"value": -0.5}, positive=True),
    ),
    quiet=True,
)

VALUE = Param("value", "number")


@public(
    "addcmul",
    ("input", "tensor1", "tensor2"),
    (VALUE,),
    category="arithmetic",
    doc="input + value * tensor1 * tensor2",
    inplace=True,
)
def addcmul(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:  # noqa: A002
    return apply_op(ADDCMUL, (input, tensor1, tensor2), {"value": value})


@public(
    "addcdiv",
    ("input", "tensor1", "tensor2"),
    (VALUE,),
    category="arithmetic",
    doc="input + value * tensor1 / tensor2",
    inplace=True,
    example=Example(values={"tensor2": "positive"}),
)
def addcdiv(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Any:  # noqa: A002
    t1, t2 = tensor1.dtype, tensor2.dtype
    if not t1.is_floating_point and not t2.is_floating_point:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic "
            "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes."
        )
    return apply_op(ADDCDIV, (input, tensor1, tensor2), {"value": value})
