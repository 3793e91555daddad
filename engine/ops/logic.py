"""Tests on values: ``isnan``/``isinf``/``isfinite``, ``isclose``, ``allclose``,
``equal``, ``all`` and ``any``.  None is differentiable; results are bool tensors
(or Python bools for ``allclose`` and ``equal``), as in PyTorch."""

from __future__ import annotations

from typing import Any

from engine import dtypes
from engine.catalog import Param, public
from engine.ops.core import Sample, apply_op, declare
from engine.ops.reduce import _norm_dims
from engine.tensor import Tensor

VALUE = (Sample(((2, 3),)),)


def _test(name: str, fn: Any, doc: str) -> Any:
    op = declare(name, None, ("self",), fn, dtype="bool", samples=VALUE)

    def call(input: Any) -> Any:  # noqa: A002
        return apply_op(op, (input,))

    call.__name__ = call.__qualname__ = name
    return public(name, ("input",), category="comparison", doc=doc, differentiable=False)(call)


isnan = _test("isnan", lambda xp, a: xp.isnan(a), "True where the value is NaN")
isinf = _test("isinf", lambda xp, a: xp.isinf(a), "True where the value is ±inf")
isfinite = _test("isfinite", lambda xp, a: xp.isfinite(a), "True where the value is finite")

ISCLOSE = declare(
    "isclose",
    None,
    ("self", "other"),
    lambda xp, a, b, rtol=1e-05, atol=1e-08, equal_nan=False: xp.isclose(
        a, b, rtol=rtol, atol=atol, equal_nan=equal_nan
    ),
    dtype="bool",
    samples=(Sample(((2, 3), (2, 3))),),
)


def _check_same_dtype(name: str, a: Any, b: Any) -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"{a.dtype.scalar_name} did not match {b.dtype.scalar_name}"
            if name != "equal"
            else f"Expected object of scalar type {a.dtype.scalar_name} but got scalar type "
            f"{b.dtype.scalar_name} for second argument"
        )


@public(
    "isclose",
    ("input", "other"),
    (
        Param("rtol", "float"),
        Param("atol", "float"),
        Param("equal_nan", "bool"),
    ),
    category="comparison",
    doc="|input - other| <= atol + rtol * |other|",
    differentiable=False,
)
def isclose(
    input: Any,  # noqa: A002
    other: Any,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Any:
    _check_same_dtype("isclose", input, other)
    out = apply_op(ISCLOSE, (input, other), {"rtol": rtol, "atol": atol, "equal_nan": equal_nan})
    # PyTorch builds the mask with in-place ors: one for NaNs, one for the tolerance.
    bumps = int(equal_nan and input.dtype.is_floating_point) + int(rtol != 0 or atol != 0)
    if bumps:
        out._counter()[0] += bumps
    return out


def allclose(
    input: Any,  # noqa: A002
    other: Any,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> bool:
    return bool(all(isclose(input, other, rtol, atol, equal_nan)).item())


def equal(input: Any, other: Any) -> bool:  # noqa: A002
    """Same size and same values (``False`` for different shapes, unlike ``eq``)."""
    if not isinstance(other, Tensor):
        raise TypeError(
            f"equal(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}"
        )
    if input.device != other.device:
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{input.device} and {other.device}!"
        )
    if tuple(input.shape) != tuple(other.shape):
        return False
    a, b = input._data, other._data
    if input.dtype is not other.dtype:
        common = dtypes.promote_types(input.dtype, other.dtype).np
        a, b = a.astype(common), b.astype(common)
    return bool((a == b).all())


def _reduce_bool(name: str, reducer: str) -> Any:
    whole = declare(
        name,
        None,
        ("self",),
        lambda xp, a: getattr(xp, reducer)(a != 0),
        dtype=_bool_or_uint8,
        samples=VALUE,
    )
    along = declare(
        f"{name}_dim",
        None,
        ("self",),
        lambda xp, a, dims, keepdim=False: getattr(xp, reducer)(
            a != 0, axis=dims, keepdims=keepdim
        ),
        dtype=_bool_or_uint8,
        samples=(Sample(((2, 3),), {"dims": (1,)}),),
    )

    def call(input: Any, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A002
        if dim is None and not keepdim:
            return apply_op(whole, (input,))
        dims = _norm_dims(tuple(range(input.ndim)) if dim is None else dim, input.ndim)
        return apply_op(along, (input,), {"dims": dims, "keepdim": keepdim})

    call.__name__ = call.__qualname__ = name
    return public(
        name,
        ("input",),
        (Param("dim", "dims"), Param("keepdim", "bool")),
        category="comparison",
        doc=f"whether {'every' if name == 'all' else 'any'} element is non-zero",
        differentiable=False,
    )(call)


def _bool_or_uint8(inputs: tuple[Any, ...], params: dict[str, Any]) -> dtypes.dtype:
    """``all``/``any`` keep ``uint8`` inputs as ``uint8`` and give ``bool`` otherwise."""
    return dtypes.uint8 if inputs[0].dtype is dtypes.uint8 else dtypes.bool_


all = _reduce_bool("all", "all")  # noqa: A001
any = _reduce_bool("any", "any")  # noqa: A001
