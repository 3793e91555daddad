"""Functions PyTorch implements by calling other ops (``CompositeImplicitAutograd``):
aliases (``true_divide``, ``absolute``, ``negative``, ``positive``), ``float_power``,
``fliplr``/``flipud``, ``take_along_dim``, ``tensor_split`` and ``hsplit``/``vsplit``/
``dsplit``, ``msort``, and the non-differentiable ``signbit``/``heaviside``.

Each is composed exactly as ATen composes it, so the ``grad_fn`` chain a learner
inspects is PyTorch's (``fliplr`` is ``FlipBackward0``; ``take_along_dim`` is
``GatherBackward0`` over ``ExpandBackward0``; every ``tensor_split`` piece a
``SliceBackward0``).  No node of their own is declared here.
"""

from __future__ import annotations

from typing import Any

from engine import dtypes
from engine.catalog import Example, Param, Port, public
from engine.integers import is_int
from engine.ops import pointwise
from engine.ops.broadcast import broadcast_shapes
from engine.ops.core import apply_op, declare
from engine.ops.index import SLICE
from engine.ops.pointwise import UNARY
from engine.ops.select import gather, sort
from engine.ops.shape import _wrap, expand
from engine.ops.stats import flip


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "_data")


@public(
    "true_divide",
    ("input", Port("other", scalar_ok=True)),
    category="arithmetic",
    doc="input / other (an alias of div)",
)
def true_divide(input: Any, other: Any) -> Any:  # noqa: A002
    return pointwise.div(input, other)


@public("absolute", ("input",), category="math", doc="absolute value (an alias of abs)")
def absolute(input: Any) -> Any:  # noqa: A002
    return pointwise.abs(input)


@public("negative", ("input",), category="arithmetic", doc="-input (an alias of neg)")
def negative(input: Any) -> Any:  # noqa: A002
    return pointwise.neg(input)


@public(
    "positive", ("input",), category="arithmetic", doc="input itself (+input)", differentiable=True
)
def positive(input: Any) -> Any:  # noqa: A002
    if input.dtype is dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@public(
    "float_power",
    (Port("input", scalar_ok=True), Port("exponent", scalar_ok=True)),
    category="arithmetic",
    doc="input ** exponent in double precision",
)
def float_power(input: Any, exponent: Any) -> Any:  # noqa: A002
    """ATen's: both operands converted to double (``_to_copy`` where they are not), then
    ``pow``."""
    if _is_tensor(input):
        base = input.to(dtypes.float64)
        exp = exponent.to(dtypes.float64) if _is_tensor(exponent) else float(exponent)
        return pointwise.pow(base, exp)
    return pointwise.pow(float(input), exponent.to(dtypes.float64))


@public("fliplr", ("input",), category="shape", doc="reverse the columns (dim 1)")
def fliplr(input: Any) -> Any:  # noqa: A002
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@public("flipud", ("input",), category="shape", doc="reverse the rows (dim 0)")
def flipud(input: Any) -> Any:  # noqa: A002
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


@public(
    "take_along_dim",
    ("input", "indices"),
    (Param("dim", "dims"),),
    category="indexing",
    doc="values at indices along dim (gather with broadcasting)",
    example=Example(inputs={"indices": (2, 1)}, params={"dim": 1}, values={"indices": "index"}),
)
def take_along_dim(input: Any, indices: Any, dim: int | None = None) -> Any:  # noqa: A002

    if indices.dtype is not dtypes.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{indices.dtype.scalar_name}"
        )
    if dim is None:
        return gather(input.view(-1), 0, indices.view(-1))
    if input.ndim != indices.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
            "dimensions for indices"
        )
    d = _wrap(dim, input.ndim)
    sizes = list(input.shape)
    sizes[d] = indices.shape[d]
    index_shape = broadcast_shapes(tuple(sizes), tuple(indices.shape))
    sizes = list(indices.shape)
    sizes[d] = input.shape[d]
    input_shape = broadcast_shapes(tuple(sizes), tuple(input.shape))
    return gather(expand(input, *input_shape), d, expand(indices, *index_shape))


def _slices(input: Any, dim: int, bounds: list[tuple[int, int]]) -> tuple[Any, ...]:
    return tuple(
        apply_op(SLICE, (input,), {"dim": dim, "start": s, "end": e, "step": 1}) for s, e in bounds
    )


@public(
    "tensor_split",
    ("input",),
    (Param("indices_or_sections", "dims", 2), Param("dim", "dim")),
    outputs=("parts",),
    returns_list=True,
    category="shape",
    doc="views split into sections or at indices along dim",
)
def tensor_split(input: Any, indices_or_sections: Any, dim: int = 0) -> tuple[Any, ...]:  # noqa: A002

    if input.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _wrap(dim, input.ndim)
    size = input.shape[d]
    if _is_tensor(indices_or_sections):
        t = indices_or_sections
        indices_or_sections = t.item() if t.ndim == 0 else t.tolist()
    if is_int(indices_or_sections):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        base, extra = divmod(size, n)
        bounds, start = [], 0
        for i in range(n):
            stop = start + base + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    else:
        bounds, start = [], 0
        for idx in [*indices_or_sections, size]:
            idx = min(max(idx + size if idx < 0 else idx, 0), size)
            bounds.append((start, max(start, idx)))
            start = max(start, idx)
    return _slices(input, d, bounds)


def _split_along(name: str, dim: int, least: int) -> Any:
    def fn(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:  # noqa: A002
        if input.ndim < least:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {least} dimension, but got a "
                f"tensor with {input.ndim} dimensions!"
            )
        d = 0 if (name == "hsplit" and input.ndim == 1) else dim
        if is_int(indices_or_sections):
            size = input.shape[d]
            if indices_or_sections == 0 or size % indices_or_sections:
                raise RuntimeError(
                    f"torch.{name} attempted to split along dimension {d}, but the size of the "
                    f"dimension {size} is not divisible by the split_size {indices_or_sections}!"
                )
        return tensor_split(input, indices_or_sections, d)

    fn.__name__ = fn.__qualname__ = name
    return public(
        name,
        ("input",),
        (Param("indices_or_sections", "dims", 2),),
        outputs=("parts",),
        returns_list=True,
        category="shape",
        doc=f"tensor_split along dim {dim}",
        example=Example(inputs={"input": (2, 4, 2)}),
    )(fn)


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)


@public("msort", ("input",), category="shape", doc="sorted along dim 0")
def msort(input: Any) -> Any:  # noqa: A002
    return sort(input, dim=0)[0]


SIGNBIT = declare(
    "signbit",
    None,
    ("self",),
    lambda xp, a: xp.signbit(a) if a.dtype.kind != "b" else xp.zeros(a.shape, bool),
    dtype="bool",
    samples=UNARY,
)


@public(
    "signbit",
    ("input",),
    category="comparison",
    doc="True where the sign bit is set",
    differentiable=False,
)
def signbit(input: Any) -> Any:  # noqa: A002
    return apply_op(SIGNBIT, (input,))


def _heaviside_fwd(xp: Any, a: Any, v: Any) -> Any:
    return xp.where(a == 0, v, (a > 0).astype(a.dtype)).astype(xp.result_type(a, v))


def _heaviside_grad(ctx: Any, g: Any) -> Any:
    raise RuntimeError("derivative for aten::heaviside is not implemented")


HEAVISIDE = declare(
    "heaviside",
    "NotImplemented",
    ("self", "values"),
    _heaviside_fwd,
    _heaviside_grad,
)


@public(
    "heaviside",
    ("input", "values"),
    category="math",
    doc="0 below zero, 1 above, values at zero",
    differentiable=False,
    inplace=True,
    example=Example(values={"input": "constant", "values": "constant"}),
)
def heaviside(input: Any, values: Any) -> Any:  # noqa: A002
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    return apply_op(HEAVISIDE, (input, values))
