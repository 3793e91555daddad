"""``nonzero`` and ``argwhere``: indices of non-zero elements, never differentiable."""

from __future__ import annotations

from typing import Any

from engine.backend import array_module
from engine.catalog import Example, public
from engine.tensor import Tensor


@public(
    "nonzero",
    ("input",),
    category="indexing",
    doc="the indices of the non-zero elements, one row each",
    differentiable=False,
    example=Example(values={"input": "mask"}),
)
def nonzero(input: Any, *, as_tuple: bool = False) -> Any:  # noqa: A002
    """An int64 ``(n, ndim)`` tensor, or one 1-D index tensor per dimension with ``as_tuple``."""

    a = input._data
    xp = array_module(a)
    if as_tuple:
        flat = a.reshape(-1) if a.ndim == 0 else a
        return tuple(Tensor._wrap(i.astype("int64")) for i in xp.nonzero(flat))
    return Tensor._wrap(xp.argwhere(a).astype("int64"))


@public(
    "argwhere",
    ("input",),
    category="indexing",
    doc="the indices of the non-zero elements, one row each (nonzero's twin)",
    differentiable=False,
    example=Example(values={"input": "mask"}),
)
def argwhere(input: Any) -> Any:  # noqa: A002
    """``torch.argwhere``: the same as ``nonzero(input)``."""
    return nonzero(input)
