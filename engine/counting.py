"""Small non-differentiable helpers real programs call at the top level: ``numel``,
``count_nonzero``, ``bincount``, ``tril_indices``/``triu_indices``, ``finfo``/``iinfo``."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import to_numpy
from engine.catalog import Example, Param, Port, public
from engine.tensor import Tensor


def _wrap(arr: Any, like: Tensor | None = None) -> Tensor:
    from engine.creation import tensor

    return tensor(arr, device=None if like is None else like.device)


def numel(input: Tensor) -> int:  # noqa: A002
    return input.numel()


@public(
    "count_nonzero",
    ("input",),
    (Param("dim", "dims"),),
    category="reduction",
    doc="how many elements are not zero, overall or along dim (int64)",
    differentiable=False,
)
def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:  # noqa: A002
    """How many elements are not zero, overall or along ``dim`` (an int64 tensor)."""
    arr = to_numpy(input._data) != 0
    axis = None if dim is None else (dim if isinstance(dim, int) else tuple(dim))
    return _wrap(np.asarray(np.count_nonzero(arr, axis=axis), dtype=np.int64), input)


@public(
    "bincount",
    ("input", Port("weights", optional=True)),
    (Param("minlength", "int"),),
    category="reduction",
    doc="occurrences of each non-negative integer (summed weights if given)",
    differentiable=False,
    # weights without grad: PyTorch's result has a ``NotImplemented`` node the engine lacks
    example=Example(
        inputs={"input": (6,), "weights": (6,)}, values={"input": "index", "weights": "constant"}
    ),
)
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:  # noqa: A002
    """Occurrences of each non-negative integer (summed ``weights``, in their dtype)."""
    arr = to_numpy(input._data)
    if input.ndim != 1 or input.dtype.is_floating_point or (arr.size and arr.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _wrap(np.bincount(arr, minlength=minlength).astype(np.int64), input)
    w = to_numpy(weights._data)
    return _wrap(np.bincount(arr, weights=w, minlength=minlength).astype(w.dtype), input)


def _tri_indices(rows: Any, cols: Any, offset: int, lower: bool) -> Tensor:
    r, c = (np.tril_indices if lower else np.triu_indices)(rows, offset, cols)
    return _wrap(np.stack([r, c]).astype(np.int64).reshape(2, -1))


@public(
    "tril_indices",
    (),
    (
        Param("row", "int", 3),
        Param("col", "int", 3),
        Param("offset", "int"),
        Param("dtype", "dtype"),
    ),
    category="creation",
    doc="the (row, column) indices of the lower triangle, as a 2 x n int64 tensor",
    method=False,
)
def tril_indices(
    row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None
) -> Tensor:
    """The (row, column) indices of the lower triangle, row by row."""
    out = _tri_indices(row, col, offset, lower=True)
    return out if dtype is None else out.to(dtype)


@public(
    "triu_indices",
    (),
    (
        Param("row", "int", 3),
        Param("col", "int", 3),
        Param("offset", "int"),
        Param("dtype", "dtype"),
    ),
    category="creation",
    doc="the (row, column) indices of the upper triangle, as a 2 x n int64 tensor",
    method=False,
)
def triu_indices(
    row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None
) -> Tensor:
    """The (row, column) indices of the upper triangle, row by row."""
    out = _tri_indices(row, col, offset, lower=False)
    return out if dtype is None else out.to(dtype)


class finfo:  # noqa: N801  (PyTorch's name)
    """Machine limits of a floating dtype, as ``torch.finfo`` reports them."""

    def __init__(self, type: Any = None) -> None:  # noqa: A002
        dt = dtypes.DEFAULT_FLOAT if type is None else type
        info = np.finfo(dt.np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = float(info.resolution)
        self.dtype = repr(dt).removeprefix("torch.")

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:  # noqa: N801
    """Limits of an integral dtype, as ``torch.iinfo`` reports them."""

    def __init__(self, type: Any) -> None:  # noqa: A002
        info = np.iinfo(type.np)
        self.bits, self.min, self.max = int(info.bits), int(info.min), int(info.max)
        self.dtype = repr(type).removeprefix("torch.")

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
