"""The dtypes each ATen CPU kernel is compiled for, and PyTorch's words for the others.

ATen instantiates a kernel only for the dtypes its ``AT_DISPATCH_*`` macro lists, so
``torch.tensor([True]).round()`` raises ``NotImplementedError: "round_vml_cpu" not
implemented for 'Bool'`` where NumPy would happily return a copy.  The engine's
kernels are NumPy ufuncs that accept more, so the public functions ask here first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SUBTRACT_BOOLS = (
    "Subtraction, the `-` operator, with two bool tensors is not supported. "
    "Use the `^` or `logical_xor()` operator instead."
)
SUBTRACT_BOOL = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. "
    "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
)


def is_bool(x: Any) -> bool:
    """A bool tensor or a Python ``bool`` (which PyTorch wraps as a bool scalar)."""
    if x is True or x is False:
        return True
    data = getattr(x, "_data", None)
    return data is not None and data.dtype.kind == "b"


def refuse_dtype(kernel: str, t: Any, *, integral: bool = False) -> None:
    """Raise PyTorch's error when ``kernel`` has no instance for ``t``'s dtype: bool
    only, or every non-floating dtype when ``integral`` (floating-only kernels)."""
    dtype = t.dtype
    if dtype.scalar_name == "Bool" or (integral and not dtype.is_floating_point):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtype.scalar_name}'")


def refuse_bool_subtraction(a: Any, b: Any) -> None:
    """``sub``/``rsub`` refuse bools before anything else (``sub_check`` in ATen)."""
    a_bool = is_bool(a)
    b_bool = is_bool(b)
    if a_bool or b_bool:
        raise RuntimeError(SUBTRACT_BOOLS if a_bool and b_bool else SUBTRACT_BOOL)


#: NumPy dtype -> {number: the number as a 0-d array of that dtype}.
NUMBER_OPERANDS: dict[Any, dict[float | int, Any]] = {}
#: Numbers kept per dtype: past it a new number stays a Python number (a scale per
#: branch would otherwise cycle the cache, building and dropping an array each time).
_OPERAND_LIMIT = 512
#: NumPy floating dtype -> its largest finite value, as a Python float.
_LARGEST: dict[Any, float] = {}


def number_operand(value: float | int, dtype: Any) -> Any:
    """A Python number as the operand of a NumPy ufunc on a CPU array of floating
    ``dtype``: a 0-d array of that dtype where that rounds exactly as the number would.

    NumPy 2 converts a Python number operand again on every call (about 0.3 µs, as much
    as a product on a small tensor); its weak-scalar rule casts it to the array's dtype
    first, so a 0-d array already cast gives the same bits for less.  The number itself
    comes back where the cast is not that simple: zero (the cache could not tell ``0.0``
    from ``-0.0``), NaN (never equal to its key), a number beyond the dtype's largest
    (NumPy warns or raises there, and must do so at the op as before), and any number
    once the cache is full."""
    known = NUMBER_OPERANDS.get(dtype)
    if known is None:
        known = NUMBER_OPERANDS[dtype] = {}
    operand = known.get(value)
    if operand is not None:
        return operand
    largest = _LARGEST.get(dtype)
    if largest is None:
        largest = _LARGEST[dtype] = float(np.finfo(dtype).max)
    if value == 0 or not -largest <= value <= largest or len(known) >= _OPERAND_LIMIT:
        return value  # NaN fails the range comparison too
    # left writeable: marking it read-only costs twice what building it does, and it
    # only ever reaches a ufunc as an input (never ``out=``, never a result's base)
    operand = known[value] = np.array(value, dtype)
    return operand
