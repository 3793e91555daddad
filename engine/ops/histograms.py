"""``torch.histogram`` and ``torch.histc`` with ATen's own bin assignment.

Both make their edges with ``linspace`` in the input's dtype and place each element by
the CPU histogram kernel's rule, in that dtype: ``histc`` by division alone
(``(x - left) * bins / (right - left)``, truncated), ``histogram`` with integer bins by
division corrected by a search among the neighbouring edges, ``histogram`` with a tensor
of edges by binary search.  Elements outside ``[left, right]`` (and NaN) are left out and
the last bin holds its right edge.  Neither is differentiable.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine import return_types
from engine.backend import array_module, to_numpy
from engine.cascade_sum import reduce_sum
from engine.catalog import Example, Param, public
from engine.messages import fmt_shape
from engine.range_values import parallel_chunks
from engine.spaced import linspace
from engine.tensor import Tensor

#: ATen's histogram kernel hands each thread at least this many elements.
HISTOGRAM_GRAIN_SIZE = 200


def _fmt(v: float) -> str:
    """A double as C++'s default stream writes it (six significant digits)."""
    return f"{v:g}"


def _check_bins(bins: int) -> None:
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")


def _linear_edges(lo: float, hi: float, bins: int, dtype: Any) -> Any:
    return to_numpy(linspace(lo, hi, bins + 1, dtype=dtype)._data)


def _positions(flat: Any, edges: Any, how: str) -> tuple[Any, Any]:
    """The bin of every element kept, and which elements are kept (ATen's kernel)."""
    left, right = edges[0], edges[-1]
    keep = (flat >= left) & (flat <= right)
    x = flat[keep]
    n_edges = edges.size
    if how == "search":
        pos = np.searchsorted(edges, x, side="right") - 1
    else:
        span = right - left
        pos = ((x - left) * flat.dtype.type(n_edges - 1) / span).astype(np.int64)
        if how == "local":
            lo = np.maximum(pos - 1, 0)
            hi = np.minimum(pos + 2, n_edges)
            count = np.zeros_like(pos)
            for j in range(3):
                at = lo + j
                inside = at < hi
                count += inside & (edges[np.minimum(at, n_edges - 1)] <= x)
            pos = lo + count - 1
    pos = np.where(pos == n_edges - 1, pos - 1, pos)
    return pos, keep


def _counts(flat: Any, edges: Any, how: str, weight: Any) -> Any:
    """Each thread's chunk (ATen's grain: 200 elements) summed into its own histogram in
    the input's dtype, element by element, and the threads' histograms added in order."""
    hist = np.zeros(edges.size - 1, dtype=flat.dtype)
    for begin, end in parallel_chunks(flat.size, HISTOGRAM_GRAIN_SIZE):
        part = flat[begin:end]
        pos, keep = _positions(part, edges, how)
        local = np.zeros_like(hist)
        np.add.at(local, pos, flat.dtype.type(1) if weight is None else weight[begin:end][keep])
        hist = hist + local
    return hist


def _wrap_like(arr: Any, like: Any) -> Any:
    xp = array_module(like._data)
    return Tensor._wrap(arr if xp is np else xp.asarray(arr))


@public(
    "histc",
    ("input",),
    (Param("bins", "int"), Param("min", "number"), Param("max", "number")),
    category="reduction",
    doc="histogram of equal-width bins between min and max (the data's range when equal)",
    differentiable=False,
)
def histc(input: Any, bins: int = 100, min: Any = 0, max: Any = 0) -> Any:  # noqa: A002
    """Counts in ``bins`` equal bins over ``[min, max]``, in the input's dtype; where
    ``min == max`` the data's own range, widened by one each side if that is empty."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{input.dtype.scalar_name}'"
        )
    data = to_numpy(input._data)
    lo, hi = float(min), float(max)
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_fmt(lo)}, {_fmt(hi)}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    _check_bins(bins)
    edges = _linear_edges(lo, hi, bins, input.dtype)
    return _wrap_like(_counts(data.reshape(-1), edges, "divide", None), input)


@public(
    "histogram",
    ("input",),
    (Param("bins", "int"), Param("density", "bool")),
    outputs=("hist", "bin_edges"),
    category="reduction",
    doc="counts (or a density) of the input over bins, and the bins' edges",
    differentiable=False,
    # PyTorch gives the counts of an input that requires grad a NotImplemented grad_fn
    example=Example(values={"input": "constant"}),
)
def histogram(
    input: Any,  # noqa: A002
    bins: Any = 100,
    *,
    range: tuple[float, float] | None = None,  # noqa: A002
    weight: Any = None,
    density: bool = False,
) -> Any:
    """``(hist, bin_edges)``: ``bins`` equal bins over ``range`` (the data's range when
    absent, widened by a half each side if empty), or the edges given as a tensor."""

    dt = input.dtype
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{dt.scalar_name}'")
    data = to_numpy(input._data).reshape(-1)
    if weight is not None:
        if weight.dtype is not dt:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight "
                f"tensor should have the same dtype, but got input({dt.cpp_name}), and "
                f"weight({weight.dtype.cpp_name})"
            )
        if tuple(weight.shape) != (data.size,):
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape "
                "as the input tensor excluding its innermost dimension, but got input with "
                f"shape [{data.size}, 1] and weight with shape "
                f"{fmt_shape(weight.shape)}"
            )
    w = None if weight is None else to_numpy(weight._data).reshape(-1)
    if isinstance(bins, Tensor):
        if bins.dtype is not dt:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {dt.cpp_name} and bins for dimension 0 with dtype "
                f"{bins.dtype.cpp_name}"
            )
        if bins.ndim != 1:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have one dimension, but got "
                f"{bins.ndim} dimensions in the bins tensor for dimension 0"
            )
        _check_bins(bins.numel() - 1)
        edges = to_numpy(bins._data).copy()
        how = "search"
    else:
        _check_bins(bins)
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif data.size:
            lo, hi = float(data.min()), float(data.max())
        else:
            lo, hi = 0.0, 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(
                f"torch.histogramdd: dimension 0's range [{_fmt(lo)}, {_fmt(hi)}] is not finite"
            )
        if lo > hi:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {_fmt(lo)} "
                f"max {_fmt(hi)} for dimension 0"
            )
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _linear_edges(lo, hi, bins, dt)
        how = "local"
    hist = _counts(data, edges, how, w)
    if density:  # ATen's order: divide by the (cascade) total, then by each bin's width
        total = reduce_sum(hist, None, False)
        hist = hist / (hist.sum(dtype=hist.dtype) if total is None else total)
        hist = hist / np.diff(edges)
    return return_types.histogram(_wrap_like(hist, input), _wrap_like(edges, input))
