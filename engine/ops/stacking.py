"""Splitting, stacking and turning tensors the NumPy way (``tensor_split``, ``hsplit``,
``dstack``, ``column_stack``, ``atleast_3d``, ``cartesian_prod``, ``ravel``,
``swapaxes``, ``fliplr``, ``rot90``): composites of the engine's views, cats and
flips, as ATen composes them, so their nodes are PyTorch's (``rot90`` has its own)."""

from __future__ import annotations

import itertools
from typing import Any

from engine.ops.core import Sample, apply_op, declare
from engine.ops.shape import _wrap


def _rot90(xp: Any, a: Any, k: int, dims: tuple[int, int]) -> Any:
    """``np.rot90`` from flips and a swap (CuPy-portable); ``k`` is already in 0..3."""
    d0, d1 = dims
    if k == 0:
        return a.copy()
    if k == 2:
        return xp.flip(xp.flip(a, d0), d1).copy()
    return xp.flip(xp.swapaxes(a, d0, d1), d0 if k == 1 else d1).copy()


ROT90 = declare(
    "rot90",
    "Rot90Backward0",
    ("self",),
    _rot90,
    lambda c, g: c.m.rot90(g, k=-c.p["k"], dims=c.p["dims"]),
    dtype="same",
    samples=(Sample(((2, 3),), {"k": 1, "dims": (0, 1)}),),
)


def rot90(input: Any, k: int = 1, dims: Any = (0, 1)) -> Any:  # noqa: A002
    """Turned by ``k`` quarter turns from the first of ``dims`` towards the second."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d = (_wrap(dims[0], input.ndim), _wrap(dims[1], input.ndim))
    if d[0] == d[1]:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    return apply_op(ROT90, (input,), {"k": k % 4, "dims": d})


def ravel(input: Any) -> Any:  # noqa: A002
    """``contiguous().view(-1)``: a copy (``CloneBackward0``) only when not contiguous."""
    from engine.ops.shape import contiguous, view

    return view(contiguous(input), -1)


def swapaxes(input: Any, axis0: int, axis1: int) -> Any:  # noqa: A002
    return input.transpose(axis0, axis1)


def swapdims(input: Any, dim0: int, dim1: int) -> Any:  # noqa: A002
    return input.transpose(dim0, dim1)


def fliplr(input: Any) -> Any:  # noqa: A002
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input: Any) -> Any:  # noqa: A002
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def tensor_split(input: Any, indices_or_sections: Any, dim: int = 0) -> tuple[Any, ...]:  # noqa: A002
    """Pieces along ``dim``: ``n`` near-equal ones (the first ``size % n`` one longer)
    or cut at the given indices; each a slice (``SliceBackward0``)."""
    from engine.tensor import Tensor

    d = _wrap(dim, input.ndim)
    size = input.shape[d]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(
                f"number of sections must be larger than 0, got {indices_or_sections}"
            )
        lengths = [size // n + (1 if i < size % n else 0) for i in range(n)]
        cuts, start = [], 0
        for length in lengths[:-1]:
            start += length
            cuts.append(start)
    else:
        cuts = list(indices_or_sections)
    bounds = [0, *cuts, size]
    out = []
    for lo, hi in itertools.pairwise(bounds):
        lo, hi = min(max(lo, 0), size), min(max(hi, 0), size)
        out.append(input.narrow(d, lo, max(hi - lo, 0)))
    return tuple(out)


def _split_along(name: str, input: Any, sections: Any, dim: int, least: int) -> tuple[Any, ...]:  # noqa: A002
    if input.ndim < least:
        raise RuntimeError(
            f"torch.{name} requires a tensor with at least {least} dimension, but got a "
            f"tensor with {input.ndim} dimensions!"
        )
    if isinstance(sections, int) and input.shape[dim] % sections:
        raise RuntimeError(
            f"torch.{name} attempted to split along dimension {dim}, but the size of the "
            f"dimension {input.shape[dim]} is not divisible by the split_size {sections}!"
        )
    return tensor_split(input, sections, dim)


def hsplit(input: Any, sections: Any) -> tuple[Any, ...]:  # noqa: A002
    return _split_along("hsplit", input, sections, 1 if input.ndim > 1 else 0, 1)


def vsplit(input: Any, sections: Any) -> tuple[Any, ...]:  # noqa: A002
    return _split_along("vsplit", input, sections, 0, 2)


def dsplit(input: Any, sections: Any) -> tuple[Any, ...]:  # noqa: A002
    return _split_along("dsplit", input, sections, 2, 3)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least three dimensions: a 0-d one viewed as ``(1, 1, 1)``, a
    1-d one ``(1, n, 1)``, a 2-d one with a trailing 1 (unsqueezes, as ATen)."""
    from engine.ops.shape import reshape

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


def dstack(tensors: Any) -> Any:
    from engine.functions import cat

    return cat(atleast_3d(list(tensors)), 2)


def column_stack(tensors: Any) -> Any:
    """1-d (and 0-d) tensors as columns, then the pieces side by side."""
    from engine.functions import cat
    from engine.ops.shape import reshape

    cols = [reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in tensors]
    return cat(cols, 1)


def row_stack(tensors: Any) -> Any:
    from engine.functions import vstack

    return vstack(tensors)


def cartesian_prod(*tensors: Any) -> Any:
    """Every combination, one per row: the ``ij`` meshgrid flattened and stacked."""
    from engine.functions import meshgrid, stack

    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.flatten() for g in grids], 1)
