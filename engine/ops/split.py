"""``split``, ``chunk`` and ``unbind``: several views of one tensor that share a single
node (``SplitBackward0``, ``UnbindBackward0``), each output at its own index, as in
PyTorch.  Outputs that received no gradient contribute zeros to the input's gradient.
"""

from __future__ import annotations

from typing import Any

from engine.backend import array_module
from engine.catalog import Param, public
from engine.integers import is_int
from engine.ops.core import TENSOR_MATH, Sample, apply_op, declare
from engine.ops.shape import _wrap


def _split_fwd(xp: Any, a: Any, dim: int, sizes: tuple[int, ...], output_nr: Any = None) -> Any:
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    parts = [a[(slice(None),) * dim + (slice(s, s + n),)] for s, n in zip(starts, sizes)]
    return parts[output_nr] if output_nr is not None else tuple(parts)


def _unbind_fwd(xp: Any, a: Any, dim: int, output_nr: Any = None) -> Any:
    if output_nr is not None:
        return a[(slice(None),) * dim + (output_nr,)]
    return tuple(a[(slice(None),) * dim + (i,)] for i in range(a.shape[dim]))


def _filled(ctx: Any, grads: tuple[Any, ...]) -> list[Any]:
    """Each output's gradient, zeros where an output was not used."""

    present = next(g for g in grads if g is not None)
    out = []
    for g, (shape, dtype, _) in zip(grads, ctx._out_meta):
        if g is None:
            if ctx.math is TENSOR_MATH:
                g = present.new_zeros(*shape)
            else:
                g = array_module(present).zeros(shape, dtype=dtype)
        out.append(g)
    return out


def _split_grad(ctx: Any, *grads: Any) -> Any:
    parts = _filled(ctx, grads)
    if ctx.math is TENSOR_MATH:
        return ctx.math.cat(*parts, dim=ctx.params["dim"])

    return array_module(parts[0]).concatenate(parts, axis=ctx.params["dim"])


def _unbind_grad(ctx: Any, *grads: Any) -> Any:
    parts = _filled(ctx, grads)
    if ctx.math is TENSOR_MATH:
        return ctx.math.stack(*parts, dim=ctx.params["dim"], stack=True)

    return array_module(parts[0]).stack(parts, axis=ctx.params["dim"])


SPLIT = declare(
    "split",
    "SplitBackward0",
    ("self",),
    _split_fwd,
    _split_grad,
    dtype="same",
    split=True,
    samples=(Sample(((5, 3),), {"dim": 0, "sizes": (2, 2, 1)}),),
)
SPLIT_SIZES = declare(
    "split_with_sizes",
    "SplitWithSizesBackward0",
    ("self",),
    _split_fwd,
    _split_grad,
    dtype="same",
    split=True,
    samples=(Sample(((5, 3),), {"dim": 1, "sizes": (1, 2)}),),
)
UNBIND = declare(
    "unbind",
    "UnbindBackward0",
    ("self",),
    _unbind_fwd,
    _unbind_grad,
    dtype="same",
    split=True,
    samples=(Sample(((2, 3),), {"dim": 1}),),
)


@public(
    "split",
    ("tensor",),
    (Param("split_size_or_sections", "dims", 1), Param("dim", "dim")),
    outputs=("parts",),
    returns_list=True,
    category="shape",
    doc="views of consecutive pieces along dim",
)
def split(tensor: Any, split_size_or_sections: Any, dim: int = 0) -> tuple[Any, ...]:
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap(dim, tensor.ndim)
    size = tensor.shape[d]
    op = SPLIT
    if is_int(split_size_or_sections):
        step = split_size_or_sections
        if step <= 0 and not (step == 0 and size == 0):
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
            )
        sizes = tuple(min(step, size - s) for s in range(0, size, step)) if size else (0,)
    else:
        op = SPLIT_SIZES
        sizes = tuple(int(n) for n in split_size_or_sections)
        if sum(sizes) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {d}), but got split_sizes={list(sizes)}"
            )
    return apply_op(op, (tensor,), {"dim": d, "sizes": sizes})


@public(
    "chunk",
    ("input",),
    (Param("chunks", "int", 2), Param("dim", "dim")),
    outputs=("parts",),
    returns_list=True,
    category="shape",
    doc="views of (nearly) equal pieces along dim",
)
def chunk(input: Any, chunks: int, dim: int = 0) -> tuple[Any, ...]:  # noqa: A002
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap(dim, input.ndim)
    size = input.shape[d]
    step = -(-size // chunks) if size else 1
    return split(input, step, d)


@public(
    "unbind",
    ("input",),
    (Param("dim", "dim"),),
    outputs=("parts",),
    returns_list=True,
    category="shape",
    doc="views of each slice along dim",
)
def unbind(input: Any, dim: int = 0) -> tuple[Any, ...]:  # noqa: A002
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return apply_op(UNBIND, (input,), {"dim": _wrap(dim, input.ndim)})
