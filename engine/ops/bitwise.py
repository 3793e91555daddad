"""``bitwise_and``/``or``/``xor``/``not``: what ``&``, ``|``, ``^`` and ``~`` mean on tensors.

On bool tensors they are the logical operations; on integer tensors they act on the
bits (``6 & 3 == 2``), and floating tensors are refused, as ATen's kernels refuse them.
None is differentiable."""

from __future__ import annotations

from typing import Any

from engine.catalog import Example, Port, public
from engine.creation import scalar_tensor_like
from engine.ops.core import apply_op, declare
from engine.tensor import Tensor


def _refuse_float(name: str, *xs: Any) -> None:
    for x in xs:
        kind = x.dtype.is_floating_point if isinstance(x, Tensor) else isinstance(x, float)
        if kind:
            scalar = x.dtype.scalar_name if isinstance(x, Tensor) else "Double"
            raise RuntimeError(f"\"{name}_cpu\" not implemented for '{scalar}'")


def _binary(name: str, ufunc: str, doc: str) -> Any:
    op = declare(
        name,
        None,
        ("self", "other"),
        (lambda f: lambda xp, a, b: getattr(xp, f)(a, b))(ufunc),
    )

    def call(input: Any, other: Any) -> Any:  # noqa: A002

        _refuse_float(name, input, other)
        if not isinstance(input, Tensor):
            input = scalar_tensor_like(input, other)  # noqa: A001
        return apply_op(op, (input, other))

    call.__name__ = call.__qualname__ = name
    return public(
        name,
        ("input", Port("other", scalar_ok=True)),
        category="comparison",
        doc=doc,
        differentiable=False,
        inplace=True,
        example=Example(values={"input": "index", "other": "index"}),
    )(call)


bitwise_and = _binary("bitwise_and", "bitwise_and", "input & other, bit by bit")
bitwise_or = _binary("bitwise_or", "bitwise_or", "input | other, bit by bit")
bitwise_xor = _binary("bitwise_xor", "bitwise_xor", "input ^ other, bit by bit")
BITWISE_NOT = declare("bitwise_not", None, ("self",), lambda xp, a: xp.invert(a))


@public(
    "bitwise_not",
    ("input",),
    category="comparison",
    doc="~input",
    differentiable=False,
    example=Example(values={"input": "index"}),
)
def bitwise_not(input: Any) -> Any:  # noqa: A002
    _refuse_float("bitwise_not", input)
    return apply_op(BITWISE_NOT, (input,))
