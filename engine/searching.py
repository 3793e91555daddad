"""Non-differentiable helpers over values in order or as sets, as real programs call them:
``searchsorted``/``bucketize`` (where values fall among sorted ones), ``isin``,
``unique_consecutive``, ``histc``, integer ``gcd``/``lcm`` and bit shifts."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import to_numpy
from engine.catalog import Example, Param, Port, public
from engine.creation import tensor
from engine.tensor import Tensor


def _like(arr: Any, like: Any) -> Tensor:
    return tensor(np.asarray(arr), device=like.device if isinstance(like, Tensor) else None)


def _array(x: Any) -> np.ndarray:
    return to_numpy(x._data) if isinstance(x, Tensor) else np.asarray(x)


@public(
    "isin",
    (Port("elements", scalar_ok=True), Port("test_elements", scalar_ok=True)),
    (Param("assume_unique", "bool"), Param("invert", "bool")),
    category="comparison",
    doc="whether each element is among test_elements",
    method=False,
    differentiable=False,
    example=Example(
        inputs={"test_elements": (3,)}, values={"elements": "index", "test_elements": "index"}
    ),
)
def isin(
    elements: Any,
    test_elements: Any,
    *,
    assume_unique: bool = False,
    invert: bool = False,
) -> Tensor:
    """Whether each element is among ``test_elements`` (a bool tensor of its shape)."""
    out = np.isin(_array(elements), _array(test_elements), invert=invert)
    return _like(out, elements if isinstance(elements, Tensor) else test_elements)


def _integral(name: str, *xs: Any) -> None:
    for x in xs:
        if isinstance(x, Tensor) and (x.dtype.is_floating_point or x.dtype is dtypes.bool_):
            scalar = x.dtype.scalar_name
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{scalar}'")
        if isinstance(x, float):
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Double'")


def _int_binary(name: str, ufunc: Any, input: Any, other: Any) -> Tensor:  # noqa: A002
    _integral(name, input, other)
    out_dtype = dtypes.result_type(input, other)
    out = ufunc(_array(input).astype(out_dtype.np), _array(other).astype(out_dtype.np))
    return _like(np.asarray(out, dtype=out_dtype.np), input if isinstance(input, Tensor) else other)


@public(
    "gcd",
    ("input", "other"),
    category="math",
    doc="greatest common divisor, elementwise (integers)",
    differentiable=False,
    example=Example(values={"input": "index", "other": "index"}),
)
def gcd(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return _int_binary("gcd", np.gcd, input, other)


@public(
    "lcm",
    ("input", "other"),
    category="math",
    doc="least common multiple, elementwise (integers)",
    differentiable=False,
    example=Example(values={"input": "index", "other": "index"}),
)
def lcm(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return _int_binary("lcm", np.lcm, input, other)


def _shift(left: bool, input: Any, other: Any) -> Tensor:  # noqa: A002
    """ATen's shifts: a shift by the width of the type or more gives 0 (or -1 for a
    negative value shifted right)."""
    _integral("lshift" if left else "rshift", input, other)
    out_dtype = dtypes.result_type(input, other)
    a, b = _array(input).astype(out_dtype.np), _array(other).astype(out_dtype.np)
    bits = a.dtype.itemsize * 8
    wide = (b < 0) | (b >= bits)
    safe = np.where(wide, 0, b)
    with np.errstate(over="ignore"):
        if left:
            out = np.where(wide, 0, np.left_shift(a, safe))
        else:
            out = np.where(wide, np.where(a < 0, -1, 0), np.right_shift(a, safe))
    return _like(np.asarray(out, dtype=out_dtype.np), input if isinstance(input, Tensor) else other)


@public(
    "bitwise_left_shift",
    ("input", Port("other", scalar_ok=True)),
    category="math",
    doc="input shifted left by other bits (integers)",
    differentiable=False,
    example=Example(values={"input": "index", "other": "index"}),
)
def bitwise_left_shift(input: Any, other: Any) -> Tensor:  # noqa: A002
    return _shift(True, input, other)


@public(
    "bitwise_right_shift",
    ("input", Port("other", scalar_ok=True)),
    category="math",
    doc="input shifted right by other bits (integers)",
    differentiable=False,
    example=Example(values={"input": "index", "other": "index"}),
)
def bitwise_right_shift(input: Any, other: Any) -> Tensor:  # noqa: A002
    return _shift(False, input, other)
