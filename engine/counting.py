"""Small non-differentiable helpers real programs call at the top level: ``numel``,
``count_nonzero``, ``bincount``, ``tril_indices``/``triu_indices``, ``finfo``/``iinfo``."""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

from engine import dtypes
from engine.backend import to_numpy
from engine.catalog import Example, Param, Port, public
from engine.creation import tensor
from engine.integers import as_int, int_tuple, is_int
from engine.ops.core import apply_op, declare
from engine.tensor import Tensor


def _bincount_grad(ctx: Any, g: Any) -> Any:
    raise RuntimeError("derivative for aten::bincount is not implemented")


#: Weighted counts of weights that require grad: ATen's ``NotImplemented`` node, whose
#: one edge is the weights and whose backward refuses.
BINCOUNT_WEIGHTED = declare(
    "bincount",
    "NotImplemented",
    ("weights",),
    lambda xp, w, counts: counts,
    _bincount_grad,
)


def _wrap(arr: Any, like: Tensor | None = None) -> Tensor:
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
    axis = None if dim is None else (as_int(dim) if is_int(dim) else int_tuple(dim))
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
    """Occurrences of each non-negative integer; with ``weights`` their sums, float32
    for float32 weights and float64 for any other (ATen's two kernels)."""
    if input.dtype.is_floating_point or input.dtype.name == "bool":
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{input.dtype.scalar_name}'"
        )
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    arr = to_numpy(input._data)
    if input.ndim == 1 and arr.size == 0:
        return _wrap(np.zeros(minlength, dtype=np.int64), input)
    if input.ndim != 1 or arr.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return _wrap(np.bincount(arr, minlength=minlength).astype(np.int64), input)
    if weights.ndim != 1 or weights.shape[0] != arr.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    w = to_numpy(weights._data)
    out_dtype = np.float32 if w.dtype == np.float32 else np.float64
    out = np.zeros(max(int(arr.max()) + 1, minlength), dtype=out_dtype)
    np.add.at(out, arr, w.astype(out_dtype))
    if weights.requires_grad:
        return apply_op(BINCOUNT_WEIGHTED, (weights,), {"counts": out})
    return _wrap(out, input)


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
        info: Any = ml_dtypes.finfo(dt.np) if dt is dtypes.bfloat16 else np.finfo(dt.np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        # ``10 ** -digits`` with ``digits = floor(-log10(eps))``, as c10 computes it
        # (ml_dtypes gives bfloat16 0.0100098, PyTorch 0.01)
        self.resolution = 10.0 ** -math.floor(-math.log10(self.eps))
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
