"""Attach ``Tensor`` methods: every catalogue function marked ``method``, in-place
variants included, so no method list is kept by hand."""

from __future__ import annotations

from types import FunctionType
from typing import Any

import numpy as np

from engine import functions, searching
from engine.catalog import FUNCTIONS
from engine.integers import is_int
from engine.ops import pointwise, pointwise_extra, stacking  # noqa: F401  (their declarations)
from engine.ops import random as random_fills
from engine.ops.core import apply_op
from engine.tensor import Tensor

_EXTRA = (
    "allclose",
    "broadcast_to",
    "diff",
    "equal",
    "nonzero",
    "tile",
    "unflatten",
)  # engine methods attached by hand (``allclose`` and ``equal`` are not ops)


#: Functions that bind as methods when set on the class: Python's, and Cython's in a
#: compiled module (a wrapper around them would cost every method call a second call).
_BINDABLE = (FunctionType, type(pointwise.add_operator))


def _attach(name: str, fn: Any) -> None:
    if name in Tensor.__dict__:
        return
    if type(fn) in _BINDABLE and fn.__name__ == name:
        setattr(Tensor, name, fn)  # binds as a method itself: ``x.tanh()`` is ``tanh(x)``
        return

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = fn.__doc__
    setattr(Tensor, name, method)


for _sig in FUNCTIONS.values():
    if _sig.method:
        _fn = getattr(functions, _sig.name, _sig.fn)
        _attach(_sig.name, getattr(_fn, "_without_out", _fn))
        for _alias in _sig.aliases:
            setattr(Tensor, _alias, getattr(Tensor, _sig.name))
for _name in _EXTRA:
    _attach(_name, getattr(functions, _name))
for _name in (
    "uniform_",
    "normal_",
    "bernoulli_",
    "random_",
    "exponential_",
    "geometric_",
    "cauchy_",
    "log_normal_",
    "multinomial",
):
    _attach(_name, getattr(random_fills, _name))
Tensor.__lshift__ = searching.bitwise_left_shift  # type: ignore[method-assign]
Tensor.__rshift__ = searching.bitwise_right_shift  # type: ignore[method-assign]
Tensor.__rlshift__ = lambda self, other: searching.bitwise_left_shift(other, self)  # type: ignore[method-assign]
Tensor.__rrshift__ = lambda self, other: searching.bitwise_right_shift(other, self)  # type: ignore[method-assign]


def _clamp_min(self: Tensor, min: Any) -> Any:  # noqa: A002
    """``ClampMinBackward0``; a tensor bound goes through ``clamp`` as in PyTorch."""
    if isinstance(min, Tensor):
        return functions.clamp(self, min=min)
    return apply_op(pointwise.CLAMP_MIN, (self,), {"min": min})


def _clamp_max(self: Tensor, max: Any) -> Any:  # noqa: A002
    if isinstance(max, Tensor):
        return functions.clamp(self, max=max)
    return apply_op(pointwise.CLAMP_MAX, (self,), {"max": max})


def _size_views(self: Tensor, other: Tensor) -> Any:
    return functions.view(self, *other.shape)


def _expand_as(self: Tensor, other: Tensor) -> Any:
    return functions.expand(self, *other.shape)


def _reshape_as(self: Tensor, other: Tensor) -> Any:
    return functions.reshape(self, *other.shape)


def _where(self: Tensor, condition: Any, other: Any) -> Any:
    return functions.where(condition, self, other)


Tensor.where = _where  # type: ignore[attr-defined]
# The arithmetic operators call their op directly, not ``engine.functions`` (``out=``) and
# the public function's argument checks, which a tensor on the left never needs.
Tensor.__add__ = pointwise.add_operator  # type: ignore[method-assign]
Tensor.__sub__ = pointwise.sub_operator  # type: ignore[method-assign]
Tensor.__mul__ = pointwise.mul_operator  # type: ignore[method-assign]
Tensor.__truediv__ = pointwise.div_operator  # type: ignore[method-assign]
Tensor.__mod__ = lambda self, other: functions.remainder(self, other)  # type: ignore[attr-defined]
Tensor.__floordiv__ = lambda self, other: functions.floor_divide(self, other)  # type: ignore[attr-defined]


def _no_arrays(reflected: Any) -> Any:
    """A reflected operator that, as PyTorch's, will not take a NumPy array on its left
    (``np.ones(2) - t`` raises Python's ``TypeError``; a NumPy scalar is a number)."""

    def op(self: Tensor, other: Any) -> Any:
        if isinstance(other, np.ndarray):
            return NotImplemented
        return reflected(self, other)

    op.__name__ = op.__qualname__ = getattr(reflected, "__name__", "reflected")
    return op


Tensor.__radd__ = _no_arrays(pointwise.add_operator)  # type: ignore[method-assign]
Tensor.__rmul__ = _no_arrays(pointwise.mul_operator)  # type: ignore[method-assign]
Tensor.__rsub__ = _no_arrays(Tensor.__rsub__)  # type: ignore[method-assign]
Tensor.__rpow__ = _no_arrays(Tensor.__rpow__)  # type: ignore[method-assign]
Tensor.__rmatmul__ = _no_arrays(Tensor.__rmatmul__)  # type: ignore[method-assign]
Tensor.__rmod__ = _no_arrays(lambda self, other: functions.remainder(other, self))  # type: ignore[attr-defined]
Tensor.__rfloordiv__ = _no_arrays(lambda self, other: functions.floor_divide(other, self))  # type: ignore[attr-defined]
Tensor.__ifloordiv__ = lambda self, other: self.floor_divide_(other)  # type: ignore[attr-defined]
Tensor.clamp_min = _clamp_min  # type: ignore[attr-defined]
Tensor.clamp_max = _clamp_max  # type: ignore[attr-defined]
Tensor.view_as = _size_views  # type: ignore[attr-defined]
Tensor.expand_as = _expand_as  # type: ignore[attr-defined]
Tensor.reshape_as = _reshape_as  # type: ignore[attr-defined]


def _broadcast_to(self: Tensor, *size: Any, **kwargs: Any) -> Tensor:
    """``x.broadcast_to(2, -1)``: the method takes sizes spread, as ``expand`` does;
    ``torch.broadcast_to`` takes one size."""
    if len(size) == 1 and not is_int(size[0]):
        size = tuple(size[0])
    return (
        functions.broadcast_to(self, size, **kwargs)
        if size
        else functions.broadcast_to(self, **kwargs)
    )


Tensor.broadcast_to = _broadcast_to  # type: ignore[attr-defined]
