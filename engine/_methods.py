"""Tensor's methods that are ops, and the graph nodes' methods that run backward, bound
onto their classes in one module above the ops.

``engine/tensor.py`` is the tensor's data model and sits below the ops, which make
tensors; ``engine/autograd/graph.py`` is below it.  A method that *is* an op
(``x + y``, ``x[i]``, ``x.to``, ``repr(x)``, ``x.backward()``, ``x.new_zeros``) calls up
into the layer that owns the op, so it cannot live in the class body without an import
that reaches up.  PyTorch puts such methods in ``torch/_tensor.py``, a subclass above
the C++ ``torch._C.TensorBase``; the engine's ops make ``engine.tensor.Tensor`` itself,
so there is no subclass: this module defines the methods and sets them on the class
when ``import engine`` loads it, before any caller sees the class.  It binds, in order:

1. ``TensorOps``: the hand-written methods, each a call into the module of its op
   (``engine.ops.index`` for ``x[i]``, ``engine.creation`` for the factories...);
2. every catalogue function marked ``method`` (in-place variants included), so no list
   of those is kept by hand, then the few attached by name (``_EXTRA``, the random
   fills) and the operators that call their op directly;
3. ``NodeOps``, ``AccumulateGradOps``: calling a node (``grad_fn(g)``) and an
   ``AccumulateGrad``'s ``apply``, the backward engine's work (``engine_run``).

A method set here is the class's own (``Tensor.__dict__``), exactly as one written in
the class body: a catalogue function never replaces it.
"""

from __future__ import annotations

import functools
import warnings
from types import FunctionType
from typing import Any

import numpy as np

from engine import dtypes, functions, searching, warn_site
from engine.autograd import functional
from engine.autograd.engine_run import accumulate_grad, call_node
from engine.autograd.graph import AccumulateGrad, Node
from engine.catalog import FUNCTIONS
from engine.creation import legacy_new, new_filled, tensor
from engine.formatting import tensor_repr
from engine.integers import is_int
from engine.ops import convert, index, pointwise, pointwise_extra, stacking  # noqa: F401  (their declarations)
from engine.ops import random as random_fills
from engine.ops.core import ViewGradFn, apply_op
from engine.spaced import from_numpy
from engine.tensor import Tensor

_WARNED_0D: set[str] = set()  # the 0-D transposes PyTorch has warned of (once each)


class TensorOps:
    """``Tensor``'s methods that are ops: a namespace, never instantiated nor inherited;
    ``bind`` sets each of its methods and properties on ``Tensor``."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        """Legacy constructor: ``Tensor(2, 3)`` is uninitialised, ``Tensor([1, 2])`` copies."""
        return legacy_new(dtypes.float32, args, kwargs.get("device"))

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
    ) -> None:
        functional.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def __array_wrap__(self, array: Any, context: Any = None, return_scalar: bool = False) -> Any:
        """A NumPy ufunc of a tensor (``np.exp(t)``) gives a tensor, as PyTorch's does:
        sharing the result's memory, a boolean result as uint8 (PyTorch's own workaround)."""
        if array.dtype == bool:
            array = array.astype("uint8")
        return from_numpy(array)

    def __repr__(self) -> str:
        return tensor_repr(self)

    __str__ = __repr__

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickled as its values, dtype and ``requires_grad``, as PyTorch keeps them (a
        non-leaf comes back a leaf that requires grad, as there)."""
        rebuild = functools.partial(tensor, dtype=self.dtype, requires_grad=self.requires_grad)
        return (rebuild, (self.tolist(),), None)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        return convert.to(self, *args, **kwargs)

    def new_tensor(
        self, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
    ) -> Tensor:
        return tensor(
            data,
            dtype=dtype or self.dtype,
            device=self.device if device is None else device,
            requires_grad=requires_grad,
        )

    def new(self, *args: Any, device: Any = None) -> Tensor:
        """The legacy ``x.new(*sizes)`` (uninitialised) or ``x.new(data)``, of ``x``'s dtype
        (``torch.distributions.Multinomial.sample`` counts into ``samples.new(shape)``)."""
        return legacy_new(self.dtype, args, device if device is not None else self.device)

    def new_zeros(self, *size: Any, **kwargs: Any) -> Tensor:
        return new_filled(self, "new_zeros", size, kwargs)

    def new_ones(self, *size: Any, **kwargs: Any) -> Tensor:
        return new_filled(self, "new_ones", size, kwargs)

    def new_empty(self, *size: Any, **kwargs: Any) -> Tensor:
        return new_filled(self, "new_empty", size, kwargs)

    def new_full(self, size: Any, fill_value: Any, **kwargs: Any) -> Tensor:
        return new_filled(self, "new_full", (size,), kwargs, fill_value)

    def __rsub__(self, other: Any) -> Tensor:
        return functions.rsub(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return functions.reciprocal(self) * other

    def __matmul__(self, other: Any) -> Tensor:
        return functions.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return functions.matmul(other, self)

    def __pow__(self, other: Any) -> Tensor:
        return functions.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return functions.pow(other, self)

    def __neg__(self) -> Tensor:
        return functions.neg(self)

    def __abs__(self) -> Tensor:
        return functions.abs(self)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return functions.eq(self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return functions.ne(self, other)

    def __lt__(self, other: Any) -> Tensor:
        return functions.lt(self, other)

    def __le__(self, other: Any) -> Tensor:
        return functions.le(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return functions.gt(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return functions.ge(self, other)

    def __invert__(self) -> Tensor:
        if self.dtype.is_floating_point or self.dtype.is_complex:
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return functions.bitwise_not(self)

    def __and__(self, other: Any) -> Tensor:
        return functions.bitwise_and(self, other)

    def __or__(self, other: Any) -> Tensor:
        return functions.bitwise_or(self, other)

    def __xor__(self, other: Any) -> Tensor:
        return functions.bitwise_xor(self, other)

    def __rand__(self, other: Any) -> Tensor:
        return functions.bitwise_and(self, other)

    def __ror__(self, other: Any) -> Tensor:
        return functions.bitwise_or(self, other)

    def __rxor__(self, other: Any) -> Tensor:
        return functions.bitwise_xor(self, other)

    def __iand__(self, other: Any) -> Tensor:
        return functions.bitwise_and_(self, other)

    def __ior__(self, other: Any) -> Tensor:
        return functions.bitwise_or_(self, other)

    def __ixor__(self, other: Any) -> Tensor:
        return functions.bitwise_xor_(self, other)

    def __getitem__(self, key: Any) -> Tensor:
        return index.getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        index.setitem(self, key, value)

    @property
    def T(self) -> Tensor:  # noqa: N802
        if self.ndim != 2:
            warnings.warn(
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                "deprecated and it will throw an error in a future release. Consider `x.mT` to "
                "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
                "to reverse the dimensions of a tensor. (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)",
                UserWarning,
                stacklevel=warn_site.stacklevel(2, __file__),
            )
        return functions.permute(self, tuple(range(self.ndim - 1, -1, -1)))

    def _transpose_0d(self, attr: str, line: int, advice: str) -> Tensor:
        """A 0-D tensor's transpose: itself, with PyTorch's once-per-process warning."""
        if attr not in _WARNED_0D:
            _WARNED_0D.add(attr)
            warnings.warn(
                f"Tensor.{attr} is deprecated on 0-D tensors. {advice} (Triggered internally "
                f"at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:{line}.)",
                UserWarning,
                stacklevel=warn_site.stacklevel(3, __file__),
            )
        return self

    @property
    def mT(self) -> Tensor:  # noqa: N802
        if self.ndim == 0:
            return self._transpose_0d("mT", 4373, "This function is the identity in these cases.")
        if self.ndim < 2:
            raise RuntimeError(
                "tensor.mT is only supported on matrices or batches of matrices. "
                f"Got {self.ndim}-D tensor."
            )
        return functions.transpose(self, -2, -1)

    @property
    def mH(self) -> Tensor:  # noqa: N802
        """The conjugate transpose of each matrix; the engine's dtypes are real, so ``mT``."""
        if self.ndim == 0:
            return self._transpose_0d("mH", 4382, "Consider using x.conj().")
        if self.ndim < 2:
            raise RuntimeError(
                "tensor.mH is only supported on matrices or batches of matrices. "
                f"Got {self.ndim}-D tensor."
            )
        return functions.transpose(self, -2, -1)

    @property
    def H(self) -> Tensor:  # noqa: N802
        """The conjugate transpose of a matrix (real here, so its transpose)."""
        if self.ndim == 0:
            return self._transpose_0d("H", 4335, "Consider using x.conj().")
        if self.ndim != 2:
            hint = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
            raise RuntimeError(
                "tensor.H is only supported on matrices (2-D tensors). "
                f"Got {self.ndim}-D tensor.{hint}"
            )
        return functions.transpose(self, 0, 1)


def bind(cls: type, methods: type) -> None:
    """Set every method, property and static method defined in ``methods``'s body on
    ``cls``, named as ``cls``'s own (``Tensor.to``), as if written in ``cls``'s body."""
    for name, value in vars(methods).items():
        if not (callable(value) or isinstance(value, property | staticmethod)):
            continue  # the body's facts: __module__, __doc__, __dict__, __hash__ (None)...
        fn = value.__func__ if isinstance(value, staticmethod) else value
        if getattr(fn, "__name__", None) == name:
            fn.__qualname__ = f"{cls.__name__}.{name}"
        setattr(cls, name, value)


bind(Tensor, TensorOps)
#: A view's ``grad_fn``, made anew after an in-place change of its base (the descriptor
#: is the view machinery's, in ``engine.ops.core``).
Tensor.grad_fn = ViewGradFn()  # type: ignore[assignment]


class NodeOps:
    """``Node``'s method that runs it, ``grad_fn(g)``: the backward engine's work, which
    sits above the graph (``engine.autograd.engine_run``)."""

    def __call__(self, *grads: Any) -> Any:
        return call_node(self, grads)


class AccumulateGradOps:
    """``AccumulateGrad.apply``, for a direct call of a leaf's node."""

    def apply(self, grads: tuple[Any, ...], tensor_mode: bool) -> tuple[Any, ...]:
        return accumulate_grad(self, grads, tensor_mode)


bind(Node, NodeOps)
bind(AccumulateGrad, AccumulateGradOps)

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
