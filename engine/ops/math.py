"""More elementwise math: inverse and hyperbolic trigonometry, logarithms and
exponentials, rounding, ``square``, ``rsqrt`` and ``atan2``.

Each op is one ``declare`` (PyTorch's ``grad_fn`` name, forward, derivative as in
``derivatives.yaml``) plus its public function; rounding ops have zero gradients,
as PyTorch's do.
"""

from __future__ import annotations

from typing import Any

from engine import dtypes
from engine.backend import array_module
from engine.catalog import Param, Port, public
from engine.creation import scalar_tensor_like
from engine.ops import pointwise
from engine.ops.core import ARRAY_MATH, Sample, apply_op, declare
from engine.ops.kernel_dtypes import is_bool, refuse_dtype
from engine.ops.pointwise import POS, UNARY, _unary_public, zeros_like
from engine.tensor import Tensor
from engine.transcendental import libm, libm2

UNIT = (Sample(((2, 3),), unit=True),)  # inputs in (0, 1): asin, acos
DISTINCT = (Sample(((2, 3),), distinct=True),)


def _unary(
    name: str,
    grad_fn: str,
    forward: Any,
    backward: Any,
    *,
    saves: str = "self",
    samples: Any = UNARY,
    category: str = "math",
    doc: str,
    aliases: tuple[str, ...] = (),
) -> Any:
    op = declare(
        name,
        grad_fn,
        ("self",),
        forward,
        backward,
        dtype="float",
        save={saves: None} if saves else {},
        samples=samples,
        quiet=True,
    )
    return _unary_public(name, op, category, doc, inplace=True, aliases=aliases)


tan = _unary(
    "tan",
    "TanBackward0",
    libm("tan"),
    lambda ctx, g: g * ctx.math.add_scalar(ctx.math.pow(ctx.saved["result"], exponent=2), other=1),
    saves="result",
    doc="tangent",
)
asin = _unary(
    "asin",
    "AsinBackward0",
    libm("arcsin"),
    lambda ctx, g: (
        g * ctx.math.rsqrt(ctx.math.add_scalar(-ctx.saved["self"] * ctx.saved["self"], other=1))
    ),
    samples=UNIT,
    doc="inverse sine",
    aliases=("arcsin",),
)
acos = _unary(
    "acos",
    "AcosBackward0",
    libm("arccos"),
    lambda ctx, g: (
        g * -ctx.math.rsqrt(ctx.math.add_scalar(-ctx.saved["self"] * ctx.saved["self"], other=1))
    ),
    samples=UNIT,
    doc="inverse cosine",
    aliases=("arccos",),
)
atan = _unary(
    "atan",
    "AtanBackward0",
    libm("arctan", bounded=True),
    lambda ctx, g: g / ctx.math.add_scalar(ctx.saved["self"] * ctx.saved["self"], other=1),
    doc="inverse tangent",
    aliases=("arctan",),
)
sinh = _unary(
    "sinh",
    "SinhBackward0",
    libm("sinh"),
    lambda ctx, g: g * ctx.math.cosh(ctx.saved["self"]),
    doc="hyperbolic sine",
)
cosh = _unary(
    "cosh",
    "CoshBackward0",
    libm("cosh"),
    lambda ctx, g: g * ctx.math.sinh(ctx.saved["self"]),
    doc="hyperbolic cosine",
)
log2 = _unary(
    "log2",
    "Log2Backward0",
    libm("log2"),
    lambda ctx, g: g / ctx.math.mul_scalar(ctx.saved["self"], other=0.6931471805599453),
    samples=POS,
    doc="base-2 logarithm",
)
log10 = _unary(
    "log10",
    "Log10Backward0",
    libm("log10"),
    lambda ctx, g: g / ctx.math.mul_scalar(ctx.saved["self"], other=2.302585092994046),
    samples=POS,
    doc="base-10 logarithm",
)
log1p = _unary(
    "log1p",
    "Log1PBackward0",
    libm("log1p"),
    lambda ctx, g: g / ctx.math.add_scalar(ctx.saved["self"], other=1),
    samples=POS,
    doc="log(1 + input)",
)
expm1 = _unary(
    "expm1",
    "Expm1Backward0",
    libm("expm1"),
    lambda ctx, g: g * ctx.math.add_scalar(ctx.saved["result"], other=1),
    saves="result",
    doc="exp(input) - 1",
)
rsqrt = _unary(
    "rsqrt",
    "RsqrtBackward0",
    lambda xp, a: 1 / xp.sqrt(a),
    lambda ctx, g: -0.5 * g * ctx.math.pow(ctx.saved["result"], exponent=3),
    saves="result",
    samples=POS,
    doc="1 / sqrt(input)",
)


def _rounding(name: str, grad_fn: str, fn: str, doc: str) -> Any:
    op = declare(
        name,
        grad_fn,
        ("self",),
        lambda xp, a: getattr(xp, fn)(a) if a.dtype.kind == "f" else a.copy(),
        lambda ctx, g: g * 0,
        dtype="same",
        samples=DISTINCT,
    )
    return _unary_public(name, op, "math", doc, inplace=True, kernel=f"{name}_vml_cpu")


floor = _rounding("floor", "FloorBackward0", "floor", "round down")
ceil = _rounding("ceil", "CeilBackward0", "ceil", "round up")
trunc = _rounding("trunc", "TruncBackward0", "trunc", "round towards zero")
frac_op = declare(
    "frac",
    "FracBackward0",
    ("self",),
    lambda xp, a: a - xp.trunc(a),
    lambda ctx, g: g,
    dtype="same",
    samples=DISTINCT,
)
frac = _unary_public(
    "frac", frac_op, "math", "fractional part", inplace=True, kernel="frac_cpu", integral=True
)

ROUND = declare(
    "round",
    "RoundBackward0",
    ("self",),
    lambda xp, a: xp.round(a) if a.dtype.kind == "f" else a.copy(),
    lambda ctx, g: g * 0,
    dtype="same",
    samples=DISTINCT,
)
ROUND_DECIMALS = declare(
    "round_decimals",
    "RoundBackward1",
    ("self",),
    lambda xp, a, decimals: xp.round(a, decimals),
    lambda ctx, g: g * 0,
    dtype="same",
    samples=(Sample(((2, 3),), {"decimals": 1}, distinct=True),),
)


@public(
    "round",
    ("input",),
    (Param("decimals", "int"),),
    category="math",
    doc="round half to even",
    inplace=True,
)
def round(input: Any, *, decimals: int = 0) -> Any:  # noqa: A001, A002
    if decimals:
        refuse_dtype("round_cpu", input, integral=True)
        return apply_op(ROUND_DECIMALS, (input,), {"decimals": decimals})
    refuse_dtype("round_vml_cpu", input)
    return apply_op(ROUND, (input,))


@public("square", ("input",), category="math", doc="input ** 2")
def square(input: Any) -> Any:  # noqa: A002
    """``input ** 2``: PyTorch records it as ``pow`` (``PowBackward0``)."""
    return pointwise.pow(input, 2)


def _atan2_grads(ctx: Any, g: Any) -> tuple[Any, Any]:
    """``atan2_backward``: one ``(self² + other²).reciprocal()``, zero where infinite."""
    s, o = ctx.saved["self"], ctx.saved["other"]
    recip = ctx.math.reciprocal(s * s + o * o)
    data = recip if ctx.math is ARRAY_MATH else recip._data
    recip = ctx.math.masked_fill(recip, mask=array_module(data).isinf(data), value=0)
    return (g * o * recip if ctx.needs[0] else None, g * -s * recip if ctx.needs[1] else None)


ATAN2 = declare(
    "atan2",
    "Atan2Backward0",
    ("self", "other"),
    libm2("arctan2"),
    lambda ctx, g: _atan2_grads(ctx, g),
    dtype="float",
    save={"self": None, "other": None},
    samples=(Sample(((2, 3), (2, 3)), positive=True),),
    quiet=True,
)


@public(
    "atan2",
    ("input", "other"),
    category="math",
    doc="angle of (other, input)",
    inplace=True,
    aliases=("arctan2",),
)
def atan2(input: Any, other: Any) -> Any:  # noqa: A002
    return apply_op(ATAN2, (input, other))


# -- remainder and fmod ---------------------------------------------------------------------
def _nonzero_divisor(xp: Any, b: Any) -> Any:
    """An integral divisor, refused where it holds a zero, as ATen's integer kernels refuse."""
    kind = b.dtype.kind if hasattr(b, "dtype") else ("i" if type(b) is int else "f")
    if kind in "iub" and not xp.all(b):
        raise RuntimeError("ZeroDivisionError")
    return b


def _floor_div_grad(ctx: Any, g: Any, floor: bool) -> Any:
    """``-grad * self.div(other, rounding_mode=...)`` (one ``DivBackward2`` node)."""
    return -g * ctx.math.div_mode(
        ctx.saved["self"], ctx.saved["other"], rounding_mode="floor" if floor else "trunc"
    )


def _div_mode(xp: Any, a: Any, b: Any, rounding_mode: str) -> Any:
    b = _nonzero_divisor(xp, b) if a.dtype.kind in "iu" else b
    return xp.floor_divide(a, b) if rounding_mode == "floor" else xp.trunc(a / b)


declare(
    "div_mode",
    "DivBackward2",
    ("self", "other"),
    _div_mode,
    lambda ctx, g: (
        zeros_like(ctx, g) if ctx.needs[0] else None,
        zeros_like(ctx, g) if ctx.needs[1] else None,
    ),
    samples=(Sample(((2, 3), (2, 3)), {"rounding_mode": "floor"}, positive=True),),
    quiet=True,
)


def _floor_divide_grad(ctx: Any, g: Any) -> Any:
    raise RuntimeError("derivative for aten::floor_divide is not implemented")


FLOOR_DIVIDE = declare(
    "floor_divide",
    "NotImplemented",
    ("self", "other"),
    lambda xp, a, b: xp.floor_divide(a, _nonzero_divisor(xp, b) if a.dtype.kind in "iu" else b),
    _floor_divide_grad,
    quiet=True,
)


@public(
    "floor_divide",
    ("input", Port("other", scalar_ok=True)),
    category="arithmetic",
    doc="input // other, rounded toward minus infinity",
    inplace=True,
)
def floor_divide(input: Any, other: Any) -> Any:  # noqa: A002
    """``input // other``: ATen's node for it is ``NotImplemented`` (backward refuses)."""

    if not isinstance(input, Tensor):
        input = scalar_tensor_like(input, other)  # noqa: A001
    return apply_op(FLOOR_DIVIDE, (input, other))


def _remainder(xp: Any, a: Any, b: Any) -> Any:
    """ATen's ``remainder``: integers as Python's ``%``; floats as ``fmod`` moved into the
    divisor's sign, so a zero keeps the dividend's sign (``-3.0 % 3`` is ``-0.0``, where
    NumPy's ``remainder`` gives the divisor's)."""
    if a.dtype.kind in "iu":
        return xp.remainder(a, _nonzero_divisor(xp, b))
    m = xp.fmod(a, b)
    shift = (m != 0) & ((xp.asarray(b) < 0) != (m < 0))
    return xp.where(shift, m + b, m)


REMAINDER_SCALAR = declare(
    "remainder",
    "RemainderBackward0",
    ("self",),
    lambda xp, a, other: _remainder(xp, a, other),
    lambda ctx, g: g,
    dtype=lambda i, p: dtypes.result_type(i[0], p["other"]),
    samples=(Sample(((2, 3),), {"other": 0.7}, distinct=True),),
    quiet=True,
)
REMAINDER = declare(
    "remainder_tensor",
    "RemainderBackward1",
    ("self", "other"),
    _remainder,
    lambda ctx, g: (
        g if ctx.needs[0] else None,
        _floor_div_grad(ctx, g, floor=True) if ctx.needs[1] else None,
    ),
    save={"self": ("other",), "other": ("other",)},
    samples=(Sample(((2, 3), (2, 3)), positive=True),),
    quiet=True,
)
FMOD_SCALAR = declare(
    "fmod",
    "FmodBackward0",
    ("self",),
    lambda xp, a, other: xp.fmod(a, _nonzero_divisor(xp, other) if a.dtype.kind in "iu" else other),
    lambda ctx, g: g,
    dtype=lambda i, p: dtypes.result_type(i[0], p["other"]),
    samples=(Sample(((2, 3),), {"other": 0.7}, distinct=True),),
    quiet=True,
)
FMOD = declare(
    "fmod_tensor",
    "FmodBackward1",
    ("self", "other"),
    lambda xp, a, b: xp.fmod(a, _nonzero_divisor(xp, b) if a.dtype.kind in "iu" else b),
    lambda ctx, g: (
        g if ctx.needs[0] else None,
        _floor_div_grad(ctx, g, floor=False) if ctx.needs[1] else None,
    ),
    save={"self": ("other",), "other": ("other",)},
    samples=(Sample(((2, 3), (2, 3)), positive=True),),
    quiet=True,
)


def _modulo(name: str, scalar_op: Any, tensor_op: Any, doc: str) -> Any:
    def call(input: Any, other: Any) -> Any:  # noqa: A002

        if not isinstance(input, Tensor):
            input = scalar_tensor_like(input, other)  # noqa: A001
        if is_bool(input) and is_bool(other):
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")
        if isinstance(other, Tensor):
            return apply_op(tensor_op, (input, other))
        return apply_op(scalar_op, (input,), {"other": other})

    call.__name__ = call.__qualname__ = name
    return public(
        name,
        ("input", Port("other", scalar_ok=True)),
        category="arithmetic",
        doc=doc,
        inplace=True,
    )(call)


remainder = _modulo("remainder", REMAINDER_SCALAR, REMAINDER, "modulo with the divisor's sign")
fmod = _modulo("fmod", FMOD_SCALAR, FMOD, "modulo with the dividend's sign")
