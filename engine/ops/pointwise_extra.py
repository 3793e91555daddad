"""More elementwise ops real programs call: ``erf``/``erfc`` (a hand-written GELU),
``lerp`` (weight averages), ``sgn``, ``fix`` and ``positive``, each with PyTorch's node
and derivative formula (``2 / sqrt(pi) * exp(-x²) * grad`` is ``MulBackward0`` of a
``MulBackward1``, as ATen's C++ spells it)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.backend import to_numpy
from engine.catalog import public
from engine.creation import tensor
from engine.ops.core import apply_op, declare
from engine.ops.math import trunc

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _libm_unary(fn: Any) -> Any:
    """``fn`` of each element in double, rounded once to the input's float dtype."""

    def forward(xp: Any, a: Any) -> Any:
        arr = to_numpy(a)
        wide = np.fromiter(map(fn, arr.astype(np.float64).ravel().tolist()), np.float64, arr.size)
        out = wide.reshape(arr.shape).astype(arr.dtype if arr.dtype.kind == "f" else np.float32)
        return xp.asarray(out)

    return forward


@public("fix", ("input",), category="math", doc="trunc under NumPy's name: toward zero")
def fix(input: Any) -> Any:  # noqa: A002
    """``trunc`` under NumPy's name (``TruncBackward0``)."""

    return trunc(input)


LOGICAL_XOR = declare(
    "logical_xor", None, ("self", "other"), lambda xp, a, b: xp.logical_xor(a, b), dtype="bool"
)


@public(
    "logical_xor",
    ("input", "other"),
    category="comparison",
    doc="input or other but not both, elementwise (bool)",
    differentiable=False,
)
def logical_xor(input: Any, other: Any) -> Any:  # noqa: A002
    return apply_op(LOGICAL_XOR, (input, other))


def _flags(input: Any, test: Any) -> Any:  # noqa: A002

    return tensor(test(to_numpy(input._data)), device=input.device)


@public(
    "isposinf",
    ("input",),
    category="comparison",
    doc="whether each element is +inf",
    differentiable=False,
)
def isposinf(input: Any) -> Any:  # noqa: A002
    return _flags(input, np.isposinf)


@public(
    "isneginf",
    ("input",),
    category="comparison",
    doc="whether each element is -inf",
    differentiable=False,
)
def isneginf(input: Any) -> Any:  # noqa: A002
    return _flags(input, np.isneginf)
