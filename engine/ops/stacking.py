"""Splitting, stacking and turning tensors the NumPy way (``tensor_split``, ``hsplit``,
``dstack``, ``column_stack``, ``atleast_3d``, ``cartesian_prod``, ``ravel``,
``swapaxes``, ``fliplr``, ``rot90``): composites of the engine's views, cats and
flips, as ATen composes them, so their nodes are PyTorch's (``rot90`` has its own)."""

from __future__ import annotations

from typing import Any

from engine.catalog import Example, Param, Port, public
from engine.ops.composites import meshgrid, vstack
from engine.ops.shape import cat, contiguous, reshape, stack, view


@public("ravel", ("input",), category="shape", doc="flattened to one dimension")
def ravel(input: Any) -> Any:  # noqa: A002
    """``contiguous().view(-1)``: a copy (``CloneBackward0``) only when not contiguous."""

    return view(contiguous(input), -1)


@public(
    "swapaxes",
    ("input",),
    (Param("axis0", "dim", 0), Param("axis1", "dim", 1)),
    category="shape",
    doc="transpose under NumPy's name",
)
def swapaxes(input: Any, axis0: int, axis1: int) -> Any:  # noqa: A002
    return input.transpose(axis0, axis1)


@public(
    "swapdims",
    ("input",),
    (Param("dim0", "dim", 0), Param("dim1", "dim", 1)),
    category="shape",
    doc="transpose: dim0 and dim1 swapped",
)
def swapdims(input: Any, dim0: int, dim1: int) -> Any:  # noqa: A002
    return input.transpose(dim0, dim1)


@public(
    "atleast_3d",
    ("tensors",),
    category="shape",
    doc="viewed with at least three dimensions",
    method=False,
    example=Example(inputs={"tensors": (3,)}),
)
def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least three dimensions: a 0-d one viewed as ``(1, 1, 1)``, a
    1-d one ``(1, n, 1)``, a 2-d one with a trailing 1 (unsqueezes, as ATen)."""

    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        return tuple(atleast_3d(t) for t in tensors[0])
    if len(tensors) > 1:
        return tuple(atleast_3d(t) for t in tensors)
    t = tensors[0]
    if t.ndim == 0:
        return reshape(t, (1, 1, 1))
    if t.ndim == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    if t.ndim == 2:
        return t.unsqueeze(-1)
    return t


@public(
    "dstack",
    (Port("tensors", variadic=True),),
    category="shape",
    doc="cat along dim 2, each at least 3-d",
    method=False,
)
def dstack(tensors: Any) -> Any:
    return cat(atleast_3d(list(tensors)), 2)


@public(
    "column_stack",
    (Port("tensors", variadic=True),),
    category="shape",
    doc="1-d tensors as columns, then side by side",
    method=False,
)
def column_stack(tensors: Any) -> Any:
    """1-d (and 0-d) tensors as columns, then the pieces side by side."""

    cols = [reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in tensors]
    return cat(cols, 1)


@public(
    "row_stack",
    (Port("tensors", variadic=True),),
    category="shape",
    doc="vstack under its older name",
    method=False,
)
def row_stack(tensors: Any) -> Any:
    return vstack(tensors)


@public(
    "cartesian_prod",
    (Port("tensors", variadic=True),),
    category="shape",
    doc="every combination of the vectors' elements, one per row",
    method=False,
    example=Example(inputs={"tensors": [(2,), (3,)]}),
)
def cartesian_prod(*tensors: Any) -> Any:
    """Every combination, one per row: the ``ij`` meshgrid flattened and stacked."""

    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.flatten() for g in grids], 1)
