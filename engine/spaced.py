"""Creation of structured tensors: ``linspace``, ``logspace``, ``eye``, ``from_numpy``.

``linspace`` fills from both ends, as ATen's kernel does (the first half counts up
from ``start``, the second half down from ``end``), with its fused multiply-add, so
the values agree with PyTorch bit for bit.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from engine import dtypes, warn_site
from engine.backend import to_device
from engine.catalog import Param, public
from engine.creation import DTYPE, RG, _check_requires_grad, _finish, refuse_byte_order
from engine.integers import as_int, is_int
from engine.numerics import fma
from engine.range_values import integer_values, range_values
from engine.tensor import Tensor

STEPS = Param("steps", "int", 5)


def _spaced(start: Any, end: Any, steps: int, dt: dtypes.dtype) -> np.ndarray:
    """ATen's two-sided fill, in the output's precision (doubles for integer outputs)."""
    if not is_int(steps) or isinstance(steps, bool):
        raise TypeError(
            "linspace() received an invalid combination of arguments - got "
            f"({type(start).__name__}, {type(end).__name__}, {type(steps).__name__})"
        )
    steps = as_int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    work = dt.np if dt.is_floating_point else np.dtype(np.float64)
    s, e = work.type(start), work.type(end)
    if steps <= 1:
        return np.full(steps, s, dtype=work)
    step = (e - s) / work.type(steps - 1)
    idx = np.arange(steps)
    up = fma(np.full(steps, step, dtype=work), idx.astype(work), np.full(steps, s, dtype=work))
    down = fma(
        np.full(steps, -step, dtype=work),
        (steps - idx - 1).astype(work),
        np.full(steps, e, dtype=work),
    )
    return np.where(idx < steps // 2, up, down)


def _float_dtype(dtype: Any) -> dtypes.dtype:
    return dtypes.DEFAULT_FLOAT if dtype is None else dtypes.as_dtype(dtype)


@public(
    "linspace",
    (),
    (Param("start", "number", 0.0), Param("end", "number", 1.0), STEPS, DTYPE, RG),
    category="creation",
    doc="steps values evenly spaced from start to end (both included)",
    method=False,
)
def linspace(
    start: Any,
    end: Any,
    steps: int,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    dt = _float_dtype(dtype)
    _check_requires_grad(dt, requires_grad)
    arr = _spaced(start, end, steps, dt)
    return _finish(arr.astype(dt.np), to_device(device), requires_grad)


@public(
    "logspace",
    (),
    (
        Param("start", "number", 0.0),
        Param("end", "number", 2.0),
        STEPS,
        Param("base", "number"),
        DTYPE,
        RG,
    ),
    category="creation",
    doc="base ** linspace(start, end, steps)",
    method=False,
)
def logspace(
    start: Any,
    end: Any,
    steps: int,
    base: float = 10.0,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    dt = _float_dtype(dtype)
    _check_requires_grad(dt, requires_grad)
    exponents = _spaced(start, end, steps, dt)
    work = exponents.dtype
    arr = np.power(work.type(base), exponents) if steps else exponents
    return _finish(arr.astype(dt.np), to_device(device), requires_grad)


@public(
    "eye",
    (),
    (Param("n", "int", 3), Param("m", "int"), DTYPE, RG),
    category="creation",
    doc="ones on the diagonal, zeros elsewhere",
    method=False,
)
def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    dt = _float_dtype(dtype)
    _check_requires_grad(dt, requires_grad)
    arr = np.eye(n, n if m is None else m, dtype=dt.np)
    return _finish(arr, to_device(device), requires_grad)


_NUMPY_TYPES = (
    "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, "
    "uint32, uint16, uint8, and bool"
)


def from_numpy(ndarray: Any) -> Tensor:
    """A tensor sharing ``ndarray``'s memory (writes to either show in both)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    refuse_byte_order(ndarray)
    if ndarray.dtype not in dtypes.FROM_NP:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{ndarray.dtype.type.__name__}. "
            f"The only supported types are: {_NUMPY_TYPES}."
        )
    if not ndarray.flags.writeable:
        import warnings

        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. "
            "You may want to copy the array to protect its data or make it writable before "
            "converting it to a tensor. This type of warning will be suppressed for the rest "
            "of this program. (Triggered internally at "
            "/__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:213.)",
            UserWarning,
            stacklevel=2,
        )
    return Tensor._wrap(ndarray)


_RANGE_DEPRECATED = (
    "torch.range is deprecated and will be removed in a future release because its "
    "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, which "
    "produces values in [start, end)."
)


@public(
    "range",
    (),
    (
        Param("start", "number", 0.0),
        Param("end", "number", 1.0),
        Param("step", "number"),
        DTYPE,
        RG,
    ),
    category="creation",
    doc="deprecated: start to end with both ends included, by step (float by default)",
    method=False,
)
def range_(
    start: Any,
    end: Any,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``floor((end - start) / step) + 1`` values ``start + i * step`` (ATen's plain
    loop, no fused rounding), in the default float dtype unless ``dtype`` says."""
    warnings.warn(_RANGE_DEPRECATED, UserWarning, stacklevel=warn_site.stacklevel(2, __file__))
    dt = _float_dtype(dtype)
    _check_requires_grad(dt, requires_grad)
    if dt.is_floating_point:
        xs, xe, xst = float(start), float(end), float(step)
    else:
        xs, xe, xst = int(start), int(end), int(step)
    if xst == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(xs) and math.isfinite(xe)):
        raise RuntimeError(f"unsupported range: {xs} -> {xe}")
    if not ((xst > 0 and xe >= xs) or (xst < 0 and xe <= xs)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt.is_floating_point:
        arr = range_values(xs, xst, int((xe - xs) / xst + 1), dt.np)
    else:
        arr = integer_values(xs, xst, int((xe - xs) / xst + 1), dt.np)
    return _finish(arr, to_device(device), requires_grad)
