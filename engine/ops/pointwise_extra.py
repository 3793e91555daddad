"""More elementwise ops real programs call: ``erf``/``erfc`` (a hand-written GELU),
``lerp`` (weight averages), ``sgn``, ``fix`` and ``positive``, each with PyTorch's node
and derivative formula (``2 / sqrt(pi) * exp(-x²) * grad`` is ``MulBackward0`` of a
``MulBackward1``, as ATen's C++ spells it)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.backend import array_module, to_numpy
from engine.ops.core import _TENSOR, ARRAY_MATH, Sample, apply_op, declare
from engine.ops.kernel_dtypes import refuse_dtype
from engine.ops.pointwise import data_of

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _libm_unary(fn: Any) -> Any:
    """``fn`` of each element in double, rounded once to the input's float dtype."""

    def forward(xp: Any, a: Any) -> Any:
        arr = to_numpy(a)
        wide = np.fromiter(map(fn, arr.astype(np.float64).ravel().tolist()), np.float64, arr.size)
        out = wide.reshape(arr.shape).astype(arr.dtype if arr.dtype.kind == "f" else np.float32)
        return xp.asarray(out)

    return forward


def _gauss(c: Any, scale: float) -> Any:
    """``scale * exp(-(self.pow(2)))``: the derivative shared by erf and erfc."""
    return c.m.mul_scalar(c.m.exp(c.m.neg(c.m.pow(c.s["self"], exponent=2))), other=scale)


ERF = declare(
    "erf",
    "ErfBackward0",
    ("self",),
    _libm_unary(math.erf),
    lambda c, g: _gauss(c, _TWO_OVER_SQRT_PI) * g,
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),)), Sample(((),))),
    quiet=True,
)
ERFC = declare(
    "erfc",
    "ErfcBackward0",
    ("self",),
    _libm_unary(math.erfc),
    lambda c, g: _gauss(c, -_TWO_OVER_SQRT_PI) * g,
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),)),),
    quiet=True,
)


def _lerp_fwd(xp: Any, a: Any, b: Any, weight: float) -> Any:
    """ATen's ``lerp``: from the nearer end, so ``weight`` 0 and 1 give the ends exactly."""
    w = xp.asarray(weight, dtype=a.dtype)
    out = a + w * (b - a) if abs(weight) < 0.5 else b - (b - a) * (1 - w)
    return out.astype(a.dtype, copy=False)


LERP = declare(
    "lerp",
    "LerpBackward0",
    ("self", "end"),
    _lerp_fwd,
    lambda c, g: (
        c.m.mul_scalar(g, other=1 - c.p["weight"]) if c.needs[0] else None,
        c.m.mul_scalar(g, other=c.p["weight"]) if c.needs[1] else None,
    ),
    samples=(Sample(((2, 3), (2, 3)), {"weight": 0.3}),),
)


def _lerp_tensor_fwd(xp: Any, a: Any, b: Any, w: Any) -> Any:
    return xp.where(xp.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w)).astype(a.dtype)


def _one(c: Any, like: Any) -> Any:
    """A 0-d constant 1 of ``like``'s dtype (``1 - weight`` in C++ is tensor minus tensor)."""
    data = data_of(c, like)
    one = array_module(data).ones((), dtype=data.dtype)
    return one if c.m is ARRAY_MATH else _TENSOR[0]._wrap(one)


LERP_TENSOR = declare(
    "lerp_tensor",
    "LerpBackward1",
    ("self", "end", "weight"),
    _lerp_tensor_fwd,
    lambda c, g: (
        g * (_one(c, c.s["weight"]) - c.s["weight"]) if c.needs[0] else None,
        g * c.s["weight"] if c.needs[1] else None,
        g * (c.s["end"] - c.s["self"]) if c.needs[2] else None,
    ),
    save={"self": ("weight",), "end": ("weight",), "weight": None},
    samples=(Sample(((2, 3), (2, 3), (2, 3)), unit=True),),
)


def erf(input: Any) -> Any:  # noqa: A002
    refuse_dtype("erf_vml_cpu", input)
    return apply_op(ERF, (input,))


def erfc(input: Any) -> Any:  # noqa: A002
    refuse_dtype("erfc_vml_cpu", input)
    return apply_op(ERFC, (input,))


def lerp(input: Any, end: Any, weight: Any) -> Any:  # noqa: A002
    """``input + weight * (end - input)``; a tensor weight gets a gradient too."""
    from engine.tensor import Tensor

    if isinstance(weight, Tensor):
        return apply_op(LERP_TENSOR, (input, end, weight))
    return apply_op(LERP, (input, end), {"weight": float(weight)})


def lerp_(input: Any, end: Any, weight: Any) -> Any:  # noqa: A002
    """In place (an exponential moving average's ``ema.lerp_(x, 0.1)``)."""
    from engine.ops.core import apply_inplace
    from engine.tensor import Tensor

    if isinstance(weight, Tensor):
        return apply_inplace(LERP_TENSOR, (input, end, weight))
    return apply_inplace(LERP, (input, end), {"weight": float(weight)})


def sgn(input: Any) -> Any:  # noqa: A002
    from engine.ops.pointwise import SGN

    return apply_op(SGN, (input,))


def fix(input: Any) -> Any:  # noqa: A002
    """``trunc`` under NumPy's name (``TruncBackward0``)."""
    from engine.functions import trunc

    return trunc(input)


def positive(input: Any) -> Any:  # noqa: A002
    """The tensor itself (PyTorch returns its input, refusing bools)."""
    if input.dtype.scalar_name == "Bool":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


LOGICAL_XOR = declare(
    "logical_xor", None, ("self", "other"), lambda xp, a, b: xp.logical_xor(a, b), dtype="bool"
)


def logical_xor(input: Any, other: Any) -> Any:  # noqa: A002
    return apply_op(LOGICAL_XOR, (input, other))


def absolute(input: Any) -> Any:  # noqa: A002
    """``abs`` under NumPy's name (``AbsBackward0``)."""
    from engine.functions import abs as abs_

    return abs_(input)


def _flags(input: Any, test: Any) -> Any:  # noqa: A002
    from engine.creation import tensor

    return tensor(test(to_numpy(input._data)), device=input.device)


def isposinf(input: Any) -> Any:  # noqa: A002
    return _flags(input, np.isposinf)


def isneginf(input: Any) -> Any:  # noqa: A002
    return _flags(input, np.isneginf)


def signbit(input: Any) -> Any:  # noqa: A002
    return _flags(input, np.signbit)


def take_along_dim(input: Any, indices: Any, dim: int | None = None) -> Any:  # noqa: A002
    """``gather`` along ``dim`` with the indices broadcast to the input's other sizes
    (``GatherBackward0``); without ``dim``, along the flattened input."""
    from engine.functions import gather

    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    d = dim % max(input.ndim, 1)
    shape = list(
        np.broadcast_shapes(
            tuple(s for i, s in enumerate(input.shape) if i != d),
            tuple(s for i, s in enumerate(indices.shape) if i != d),
        )
    )
    in_shape = [*shape[:d], input.shape[d], *shape[d:]]
    idx_shape = [*shape[:d], indices.shape[d], *shape[d:]]
    src = input if list(input.shape) == in_shape else input.expand(*in_shape)
    idx = indices if list(indices.shape) == idx_shape else indices.expand(*idx_shape)
    return gather(src, d, idx)


def _masked_select_fwd(xp: Any, a: Any, mask: Any) -> Any:
    shape = np.broadcast_shapes(a.shape, mask.shape)
    return xp.broadcast_to(a, shape)[xp.broadcast_to(mask, shape)]


def _masked_scatter_zero_fwd(xp: Any, g: Any, mask: Any, shape: tuple[int, ...]) -> Any:
    """``zeros.masked_scatter_(mask, grad)`` summed back to the input's shape."""
    full = np.broadcast_shapes(shape, mask.shape)
    out = xp.zeros(full, dtype=g.dtype)
    out[xp.broadcast_to(mask, full)] = g
    if tuple(full) != tuple(shape):
        lead = len(full) - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, n in enumerate(shape) if n == 1 and full[lead + i] != 1
        )
        out = out.sum(axis=axes, keepdims=True).reshape(shape)
    return out


MASKED_SELECT = declare(
    "masked_select",
    "MaskedSelectBackward0",
    ("self",),
    _masked_select_fwd,
    lambda c, g: c.m.masked_scatter_zero(g, mask=c.p["mask"], shape=tuple(c.shapes[0])),
    dtype="same",
    samples=(Sample(((2, 3),), {"mask": "mask_param"}),),
)
declare(
    "masked_scatter_zero",
    "MaskedScatterBackward0",
    ("source",),
    _masked_scatter_zero_fwd,
    lambda c, gg: c.m.masked_select(gg, mask=c.p["mask"]),
    dtype="same",
)


def masked_select(input: Any, mask: Any) -> Any:  # noqa: A002
    """The elements where ``mask`` (broadcast with ``input``) is true, as a 1-D tensor."""
    if mask.dtype.scalar_name != "Bool":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    from engine.ops.core import _broadcast_error

    mismatch = _broadcast_error([mask._data, input._data])
    if mismatch is not None:
        raise mismatch
    return apply_op(MASKED_SELECT, (input,), {"mask": mask._data})
