"""Writing values into chosen places: ``index_fill``, ``index_copy``, ``masked_scatter``
(each with its in-place method, PyTorch's ``IndexFillBackward0``, ``IndexCopyBackward0``,
``MaskedScatterBackward0``) and ``fill_diagonal_`` (a fill through a diagonal view, so
its history is ``CopySlices`` as in PyTorch).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import array_module
from engine.catalog import Example, Param, public
from engine.ops.core import ARRAY_MATH, Sample, apply_op, declare
from engine.ops.einsum import diagonal
from engine.ops.host import on_host
from engine.ops.pointwise import data_of
from engine.ops.select import _check_bounds, _check_index
from engine.ops.shape import _wrap


def _along(a: Any, dim: int, index: Any) -> tuple[Any, ...]:
    return (slice(None),) * dim + (index,)


def _index_fill_fwd(xp: Any, a: Any, dim: int, index: Any, value: Any) -> Any:
    out = a.copy()
    if a.ndim == 0:
        return xp.full_like(out, value) if index.size else out
    out[_along(a, dim, index)] = value
    return out


INDEX_FILL = declare(
    "index_fill",
    "IndexFillBackward0",
    ("self",),
    on_host(_index_fill_fwd),
    lambda ctx, g: ctx.math.index_fill(g, dim=ctx.params["dim"], index=_on_device(ctx, g), value=0),
    dtype="same",
    samples=(Sample(((3, 2),), {"dim": 0, "index": "index_param", "value": 1.5}),),
)


def _index_fill_value_grads(ctx: Any, g: Any) -> tuple[Any, Any]:
    """``self``: as ``IndexFillBackward0``; ``value``: the gradient at each distinct index,
    summed."""
    index = _on_device(ctx, g)
    grad_value = None
    if ctx.needs[1]:
        xp = array_module(index)
        grad_value = ctx.math.sum(
            ctx.math.index_select_op(g, dim=ctx.params["dim"], index=xp.unique(index))
        )
    return (
        ctx.math.index_fill(g, dim=ctx.params["dim"], index=index, value=0)
        if ctx.needs[0]
        else None,
        grad_value,
    )


INDEX_FILL_T = declare(
    "index_fill_tensor",
    "IndexFillBackward1",
    ("self", "value"),
    on_host(lambda xp, a, v, dim, index: _index_fill_fwd(xp, a, dim, index, v.reshape(()))),
    _index_fill_value_grads,
    dtype="same",
    samples=(Sample(((3, 2), ()), {"dim": 1, "index": np.array([1])}),),
)


def _index_of(input: Any, dim: int, index: Any, name: str) -> tuple[int, Any]:
    _check_index(name, index)
    d = _wrap(dim, input.ndim) if input.ndim else 0
    _check_bounds(index, input.shape[d] if input.ndim else 1, d, name)
    return d, index._data.reshape(-1)


@public(
    "index_fill",
    ("input", "index"),
    (Param("dim", "dim"), Param("value", "number")),
    category="indexing",
    doc="value written at index along dim",
    inplace=True,
    example=Example(values={"index": "index"}, inputs={"index": (2,)}),
)
def index_fill(input: Any, dim: int, index: Any, value: Any) -> Any:  # noqa: A002
    d, idx = _index_of(input, dim, index, "index_fill_")
    if hasattr(value, "_data"):
        if value.ndim != 0:
            raise RuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        return apply_op(INDEX_FILL_T, (input, value), {"dim": d, "index": idx})
    return apply_op(INDEX_FILL, (input,), {"dim": d, "index": idx, "value": value})


def _index_copy_fwd(xp: Any, a: Any, src: Any, dim: int, index: Any) -> Any:
    out = a.copy()
    if a.ndim == 0:
        return src.reshape(()).copy() if index.size else out
    out[_along(a, dim, index)] = src
    return out


def _on_device(ctx: Any, g: Any) -> Any:
    """The saved index where the gradient is (a device array for a CUDA gradient)."""
    index = ctx.params["index"]
    xp = array_module(data_of(ctx, g))
    return index if xp is np or not isinstance(index, np.ndarray) else xp.asarray(index)


def _index_copy_grads(ctx: Any, g: Any) -> tuple[Any, Any]:
    dim, index = ctx.params["dim"], _on_device(ctx, g)
    return (
        ctx.math.index_fill(g, dim=dim, index=index, value=0) if ctx.needs[0] else None,
        ctx.math.index_select_op(g, dim=dim, index=index) if ctx.needs[1] else None,
    )


INDEX_COPY = declare(
    "index_copy",
    "IndexCopyBackward0",
    ("self", "source"),
    on_host(_index_copy_fwd),
    _index_copy_grads,
    dtype="same",
    samples=(Sample(((3, 2), (2, 2)), {"dim": 0, "index": np.array([2, 0])}),),
)


@public(
    "index_copy",
    ("input", "index", "source"),
    (Param("dim", "dim"),),
    category="indexing",
    doc="source's slices copied to index along dim",
    inplace=True,
    example=Example(
        inputs={"input": (3, 2), "index": (2,), "source": (2, 2)}, values={"index": "index"}
    ),
)
def index_copy(input: Any, dim: int, index: Any, source: Any) -> Any:  # noqa: A002
    d, idx = _index_of(input, dim, index, "index_copy_")
    return apply_op(INDEX_COPY, (input, source), {"dim": d, "index": idx})


def _masked_scatter_fwd(xp: Any, a: Any, src: Any, mask: Any) -> Any:
    shape = np.broadcast_shapes(a.shape, mask.shape)
    out = xp.broadcast_to(a, shape).copy()
    full = xp.broadcast_to(mask, shape)
    count = int(full.sum())
    out[full] = src.reshape(-1)[:count]
    return out


def _masked_scatter_grads(ctx: Any, g: Any) -> tuple[Any, Any]:
    """``self``: the gradient with the masked places zeroed; ``source``: the masked
    gradient values first, zeros after, in ``source``'s shape."""
    m = ctx.math
    mask = ctx.params["mask"]
    grad_self = m.masked_fill(g, mask=mask, value=0) if ctx.needs[0] else None
    if not ctx.needs[1]:
        return grad_self, None
    data = data_of(ctx, g)
    xp = array_module(data)
    shape = tuple(ctx.shapes[1])
    full = xp.broadcast_to(mask, data.shape)
    picked = data[full] if m is ARRAY_MATH else None
    size = int(np.prod(shape)) if shape else 1
    if m is ARRAY_MATH:
        out = xp.zeros(size, dtype=data.dtype)
        out[: picked.shape[0]] = picked
        return grad_self, out.reshape(shape)
    picked_t = m.masked_select(g, mask=full)
    count = int(full.sum())
    pad = type(g)._wrap(xp.zeros(size - count, dtype=data.dtype))
    return grad_self, m.view(m.cat(picked_t, pad, dim=0), size=shape)


MASKED_SCATTER = declare(
    "masked_scatter",
    "MaskedScatterBackward0",
    ("self", "source"),
    on_host(_masked_scatter_fwd),
    _masked_scatter_grads,
    dtype="same",
    samples=(Sample(((2, 3), (2, 3)), {"mask": "mask_param"}),),
)


@public(
    "masked_scatter",
    ("input", "mask", "source"),
    category="indexing",
    doc="source's values, in order, written where mask is True",
    inplace=True,
    example=Example(values={"mask": "mask"}),
)
def masked_scatter(input: Any, mask: Any, source: Any) -> Any:  # noqa: A002

    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{mask.dtype.cpp_name}"
        )
    if int(mask._data.sum()) > source.numel():
        raise RuntimeError("masked_scatter: expected source to have at least as many elements")
    return apply_op(MASKED_SCATTER, (input, source), {"mask": mask._data})


def fill_diagonal_(self: Any, fill_value: Any, wrap: bool = False) -> Any:
    """The main diagonal filled through a view (``CopySlices``); ``wrap`` continues below
    a tall matrix every ``columns + 1`` rows, as NumPy's and PyTorch's do."""

    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.ndim > 2:
        raise NotImplementedError("fill_diagonal_ of more than 2 dimensions in the engine")
    rows, cols = self.shape
    diagonal(self, 0, 0, 1).fill_(fill_value)
    if wrap and rows > cols + 1:
        for start in range(cols + 1, rows, cols + 1):
            diagonal(self[start:], 0, 0, 1).fill_(fill_value)
    return self
