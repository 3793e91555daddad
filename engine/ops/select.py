"""Selecting and placing values by index or mask: ``masked_fill``, ``index_select``,
``gather``, ``scatter``/``scatter_add``, ``sort``/``argsort`` and ``topk``.

Indices and masks are parameters (never differentiable); the values of ``sort`` and
``topk`` carry the gradient back to where each value came from.
"""

from __future__ import annotations

from typing import Any

from engine import dtypes, return_types
from engine.catalog import Example, Param, Port, public
from engine.ops.atomic_add import add_at
from engine.ops.core import OPS, Sample, _broadcast_error, apply_inplace, apply_op, declare
from engine.ops.kernel_devices import check_common_device
from engine.ops.pointwise import zero_scalar
from engine.ops.shape import _wrap
from engine.tensor import Tensor


def _data(x: Any) -> Any:
    return x._data if isinstance(x, Tensor) else x


def _check_index(name: str, index: Any) -> None:
    if not isinstance(index, Tensor) or index.dtype is not dtypes.int64:
        got = index.dtype.scalar_name if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"{name}(): Expected dtype int64 for index, got {got}")


def _check_bounds(index: Any, size: int, dim: int, what: str) -> None:
    arr = index._data
    if arr.size and (int(arr.max()) >= size or int(arr.min()) < -size):
        bad = int(arr.max()) if int(arr.max()) >= size else int(arr.min())
        if what == "gather":
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
        raise IndexError("index out of range in self")


# -- masked_fill -------------------------------------------------------------------------
MASKED_FILL = declare(
    "masked_fill",
    "MaskedFillBackward0",
    ("self",),
    lambda xp, a, mask, value: xp.where(mask, a.dtype.type(value), a),
    lambda ctx, g: ctx.math.masked_fill(g, mask=ctx.params["mask"], value=0.0),
    dtype="same",
    samples=(Sample(((2, 3),), {"mask": "mask_param", "value": 0.5}),),
)
MASKED_FILL_T = declare(
    "masked_fill_tensor",
    "MaskedFillBackward1",
    ("self", "value"),
    lambda xp, a, v, mask: xp.where(mask, v.astype(a.dtype), a),
    lambda ctx, g: (
        ctx.math.masked_fill(g, mask=ctx.params["mask"], value=0.0) if ctx.needs[0] else None,
        ctx.math.sum(ctx.math.where(g, zero_scalar(ctx, g), condition=ctx.params["mask"]))
        if ctx.needs[1]
        else None,
    ),
    dtype="same",
    samples=(Sample(((2, 3), ()), {"mask": "mask_param"}),),
)


@public(
    "masked_fill",
    ("input", "mask"),
    (Param("value", "number", 0.0),),
    category="indexing",
    doc="value where mask is True",
    inplace=True,
    example=Example(values={"mask": "mask"}),
)
def masked_fill(input: Any, mask: Any, value: Any) -> Any:  # noqa: A002
    if isinstance(mask, Tensor) and mask.device != input.device:  # (``masked_fill__cuda``)
        raise RuntimeError(
            "expected self and mask to be on the same device, but got mask on "
            f"{mask.device} and self on {input.device}"
        )
    if not isinstance(mask, Tensor) or mask.dtype is not dtypes.bool_:
        got = mask.dtype.cpp_name if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {got}"
        )
    import numpy as np

    m = mask._data
    try:
        np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    except ValueError:
        # ``masked_fill`` expands the mask with self (``expand_outplace(mask, self)``),
        # ``masked_fill_`` self with the mask: the sizes are named in that order
        pair = (input._data, m) if apply_op is apply_inplace else (m, input._data)
        raise _broadcast_error(pair) from None
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        return apply_op(MASKED_FILL_T, (input, value), {"mask": m})
    return apply_op(MASKED_FILL, (input,), {"mask": m, "value": value})


# -- index_select / gather / scatter -------------------------------------------------------
def _index_add_fwd(xp: Any, g: Any, shape: tuple[int, ...], dim: int, index: Any) -> Any:
    out = xp.zeros(shape, dtype=g.dtype)
    moved = xp.moveaxis(out, dim, 0)
    add_at(xp, moved, index, xp.moveaxis(g, dim, 0))
    return out


declare(
    "index_select_backward",
    "IndexAddBackward0",
    ("grad",),
    _index_add_fwd,
    lambda ctx, gg: ctx.math.index_select_op(gg, dim=ctx.params["dim"], index=ctx.params["index"]),
)
INDEX_SELECT = declare(
    "index_select_op",
    "IndexSelectBackward0",
    ("self",),
    lambda xp, a, dim, index: xp.take(a, index, axis=dim) if a.ndim else a[index],
    lambda ctx, g: ctx.math.index_select_backward(
        g, shape=tuple(ctx.shapes[0]), dim=ctx.params["dim"], index=ctx.params["index"]
    ),
    dtype="same",
    samples=(Sample(((3, 2),), {"dim": 0, "index": "index_param"}),),
    grad_version=1,
)


def _index_add_src_fwd(xp: Any, a: Any, src: Any, dim: int, index: Any, alpha: Any) -> Any:
    out = a.copy()
    add_at(
        xp,
        xp.moveaxis(out, dim, 0),
        index,
        xp.moveaxis(src * alpha if alpha != 1 else src, dim, 0),
    )
    return out


INDEX_ADD = declare(
    "index_add",
    "IndexAddBackward0",
    ("self", "source"),
    _index_add_src_fwd,
    lambda ctx, g: (
        g if ctx.needs[0] else None,
        (
            ctx.math.index_select_op(g, dim=ctx.params["dim"], index=ctx.params["index"])
            if ctx.params["alpha"] == 1
            else ctx.math.mul_scalar(
                ctx.math.index_select_op(g, dim=ctx.params["dim"], index=ctx.params["index"]),
                other=ctx.params["alpha"],
            )
        )
        if ctx.needs[1]
        else None,
    ),
    dtype="same",
    samples=(
        Sample(((3, 2), (4, 2)), {"dim": 0, "index": "index_param", "alpha": 1}),
        Sample(((3, 2), (4, 2)), {"dim": 0, "index": "index_param", "alpha": 2.5}),
    ),
)


@public(
    "index_add",
    ("input", "index", "source"),
    (Param("dim", "dim", 0), Param("alpha", "number")),
    category="indexing",
    doc="a copy of input with source's slices added at index along dim (times alpha)",
    inplace=True,
    example=Example(inputs={"index": (2,), "source": (2, 3)}, values={"index": "index"}),
)
def index_add(input: Any, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Any:  # noqa: A002
    _check_index("index_add", index)
    d = _wrap(dim, input.ndim) if input.ndim else 0
    _check_bounds(index, input.shape[d] if input.ndim else 1, d, "index_add")
    return apply_op(
        INDEX_ADD, (input, source), {"dim": d, "index": index._data.reshape(-1), "alpha": alpha}
    )


@public(
    "index_select",
    ("input", "index"),
    (Param("dim", "dim", 0),),
    category="indexing",
    doc="rows (or slices along dim) picked by index",
    example=Example(inputs={"index": (4,)}, values={"index": "index"}),
)
def index_select(input: Any, dim: int, index: Any) -> Any:  # noqa: A002
    check_common_device("_index_select", self=input, index=index)
    _check_index("index_select", index)
    d = _wrap(dim, input.ndim) if input.ndim else 0
    _check_bounds(index, input.shape[d] if input.ndim else 1, d, "index_select")
    return apply_op(INDEX_SELECT, (input,), {"dim": d, "index": index._data.reshape(-1)})


@public(
    "gather",
    ("input", "index"),
    (Param("dim", "dim", 0),),
    category="indexing",
    doc="values picked along dim by index",
    example=Example(values={"index": "index"}),
)
def gather(input: Any, dim: int, index: Any) -> Any:  # noqa: A002

    check_common_device("gather", self=input, index=index)
    _check_index("gather", index)
    d = _wrap(dim, input.ndim)
    _check_bounds(index, input.shape[d], d, "gather")
    return apply_op(OPS["gather"], (input,), {"dim": d, "index": index._data})


def _scatter_fwd(xp: Any, a: Any, src: Any, dim: int, index: Any, add: bool = False) -> Any:
    # an explicit grid, not ``put_along_axis``: PyTorch's index may be smaller than self
    # in the other dims too, where NumPy would ask the two to broadcast
    out = a.copy()
    grid = list(xp.indices(index.shape, sparse=True))
    grid[dim] = index
    values = src[tuple(slice(0, s) for s in index.shape)]
    if add:
        add_at(xp, out, tuple(grid), values)
    else:
        out[tuple(grid)] = values
    return out


SCATTER = declare(
    "scatter_src",
    "ScatterBackward0",
    ("self", "src"),
    lambda xp, a, s, dim, index: _scatter_fwd(xp, a, s, dim, index),
    lambda ctx, g: (
        ctx.math.scatter_value(g, dim=ctx.params["dim"], index=ctx.params["index"], value=0.0)
        if ctx.needs[0]
        else None,
        ctx.math.gather(g, dim=ctx.params["dim"], index=ctx.params["index"])
        if ctx.needs[1]
        else None,
    ),
    dtype="same",
    samples=(Sample(((2, 3), (2, 2)), {"dim": 1, "index": "scatter_index"}),),
)
SCATTER_VALUE = declare(
    "scatter_value",
    "ScatterBackward1",
    ("self",),
    lambda xp, a, dim, index, value: _scatter_fwd(
        xp, a, xp.full(index.shape, value, dtype=a.dtype), dim, index
    ),
    lambda ctx, g: ctx.math.scatter_value(
        g, dim=ctx.params["dim"], index=ctx.params["index"], value=0.0
    ),
    dtype="same",
    samples=(Sample(((2, 3),), {"dim": 1, "index": "scatter_index", "value": 0.5}),),
)
SCATTER_ADD = declare(
    "scatter_add",
    "ScatterAddBackward0",
    ("self", "src"),
    lambda xp, a, s, dim, index: _scatter_fwd(xp, a, s, dim, index, add=True),
    lambda ctx, g: (
        g if ctx.needs[0] else None,
        ctx.math.gather(g, dim=ctx.params["dim"], index=ctx.params["index"])
        if ctx.needs[1]
        else None,
    ),
    dtype="same",
    samples=(Sample(((2, 3), (2, 2)), {"dim": 1, "index": "scatter_index"}),),
)


@public(
    "scatter",
    ("input", "index", Port("src", scalar_ok=True)),
    (Param("dim", "dim", 0),),
    category="indexing",
    doc="a copy of input with src written at index along dim",
    inplace=True,
    example=Example(inputs={"index": (1, 3)}, values={"index": "index"}),
)
def scatter(input: Any, dim: int, index: Any, src: Any = None, *, value: Any = None) -> Any:  # noqa: A002
    _check_index("scatter", index)
    d = _wrap(dim, input.ndim)
    src = value if src is None else src
    if isinstance(src, Tensor):
        return apply_op(SCATTER, (input, src), {"dim": d, "index": index._data})
    return apply_op(SCATTER_VALUE, (input,), {"dim": d, "index": index._data, "value": src})


@public(
    "scatter_add",
    ("input", "index", "src"),
    (Param("dim", "dim", 0),),
    category="indexing",
    doc="a copy of input with src added at index along dim",
    inplace=True,
    example=Example(values={"index": "index"}),
)
def scatter_add(input: Any, dim: int, index: Any, src: Any) -> Any:  # noqa: A002
    _check_index("scatter_add", index)
    return apply_op(
        SCATTER_ADD, (input, src), {"dim": _wrap(dim, input.ndim), "index": index._data}
    )


# -- sort / topk -----------------------------------------------------------------------------
def _values_grad(ctx: Any, g: Any, _indices_grad: Any = None) -> Any:
    return ctx.math.scatter_backward(
        g,
        shape=tuple(ctx.shapes[0]),
        dim=ctx.params["dim"],
        index=ctx.saved["indices"],
        keepdim=True,
    )


def _sort_fwd(xp: Any, a: Any, dim: int, descending: bool = False, stable: bool = False) -> Any:
    if a.ndim == 0:
        return a.copy(), xp.zeros((), dtype="int64")
    idx = xp.argsort(-a if descending else a, axis=dim, kind="stable")
    return xp.take_along_axis(a, idx, axis=dim), idx.astype("int64")


def _topk_fwd(xp: Any, a: Any, k: int, dim: int, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
    idx = xp.argsort(-a if largest else a, axis=dim, kind="stable")
    idx = xp.take(idx, xp.arange(k), axis=dim)
    return xp.take_along_axis(a, idx, axis=dim), idx.astype("int64")


SORT = declare(
    "sort",
    "SortBackward0",
    ("self",),
    _sort_fwd,
    _values_grad,
    dtype="same",
    outputs=2,
    save={"indices": None},
    samples=(Sample(((2, 3),), {"dim": 1}, distinct=True),),
    grad_version=2,
)
TOPK = declare(
    "topk",
    "TopkBackward0",
    ("self",),
    _topk_fwd,
    _values_grad,
    dtype="same",
    outputs=2,
    save={"indices": None},
    samples=(Sample(((2, 4),), {"k": 2, "dim": 1}, distinct=True),),
    grad_version=2,
)


@public(
    "sort",
    ("input",),
    (Param("dim", "dim"), Param("descending", "bool"), Param("stable", "bool")),
    outputs=("values", "indices"),
    category="indexing",
    doc="values in order, with indices",
)
def sort(input: Any, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:  # noqa: A002
    d = _wrap(dim, input.ndim) if input.ndim else 0
    values, indices = apply_op(SORT, (input,), {"dim": d, "descending": descending})
    return return_types.sort(values, indices)


@public(
    "argsort",
    ("input",),
    (Param("dim", "dim"), Param("descending", "bool"), Param("stable", "bool")),
    category="indexing",
    doc="the int64 indices that sort input along dim",
    differentiable=False,
)
def argsort(input: Any, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:  # noqa: A002
    return sort(input, dim, descending, stable).indices


@public(
    "topk",
    ("input",),
    (Param("k", "int", 1), Param("dim", "dim"), Param("largest", "bool")),
    outputs=("values", "indices"),
    category="indexing",
    doc="the k largest values",
)
def topk(input: Any, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
    d = _wrap(dim, input.ndim) if input.ndim else 0
    size = input.shape[d] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    values, indices = apply_op(TOPK, (input,), {"k": k, "dim": d, "largest": largest})
    return return_types.topk(values, indices)
