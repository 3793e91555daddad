"""``put``/``Tensor.put_``: values written (or, with ``accumulate``, added) at flat indices,
as if the tensor were one row; ``PutBackward0`` gives ``source`` the gradient taken back at
those indices and ``self`` the gradient with them zeroed (all of it when accumulating)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import dtypes
from engine.catalog import Example, Param, applying, public
from engine.ops.core import Sample, declare


def _put_fwd(xp: Any, a: Any, source: Any, index: Any, accumulate: bool) -> Any:
    out = a.copy()
    flat = out.reshape(-1)  # a view of the fresh copy: writes land in ``out``
    idx = index.reshape(-1)
    idx = xp.where(idx < 0, idx + flat.size, idx)
    values = source.reshape(-1).astype(out.dtype)
    if accumulate:
        xp.add.at(flat, idx, values)
    else:
        flat[idx] = values
    return out


def _put_grads(ctx: Any, g: Any) -> tuple[Any, Any]:
    index, m = ctx.params["index"], ctx.math
    g_self = g_source = None
    if ctx.needs[0]:
        g_self = (
            g
            if ctx.params["accumulate"]
            else m.put(
                g, m.mul_scalar(m.take(g, index=index), other=0), index=index, accumulate=False
            )
        )
    if ctx.needs[1]:
        g_source = m.view(m.take(g, index=index), size=tuple(ctx.shapes[1]))
    return g_self, g_source


PUT = declare(
    "put",
    "PutBackward0",
    ("self", "source"),
    _put_fwd,
    _put_grads,
    dtype="same",
    samples=(Sample(((2, 3), (4,)), {"index": "index_param", "accumulate": True}),),
)


def _check(name: str, input: Any, index: Any, source: Any) -> None:  # noqa: A002
    if index.dtype is not dtypes.int64:
        raise RuntimeError(
            f"{name}(): Expected a long tensor for index, but got {index.dtype.scalar_name}"
        )
    if source.numel() != index.numel():
        raise IndexError(
            f"{name}(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    n = input.numel()
    data = index._data
    if data.size:
        bad = data[(data >= n) | (data < -n)]
        if bad.size:
            raise IndexError(
                f"out of range: tried to access index {int(bad.reshape(-1)[0])} on a tensor of "
                f"{n} elements."
            )


@public(
    "put",
    ("input", "index", "source"),
    (Param("accumulate", "bool"),),
    category="indexing",
    doc="values written at flat indices",
    inplace=True,
    example=Example(values={"index": "index"}),
)
@applying
def put(apply_op: Callable[..., Any]) -> Callable[..., Any]:
    def put(input: Any, index: Any, source: Any, accumulate: bool = False) -> Any:  # noqa: A002
        _check("put_", input, index, source)
        return apply_op(
            PUT, (input, source), {"index": index._data, "accumulate": bool(accumulate)}
        )

    return put
