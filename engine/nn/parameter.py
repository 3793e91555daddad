"""``nn.Parameter``: a leaf tensor that a ``Module`` registers as one of its parameters.

As in PyTorch, a parameter shares storage and version counter with the tensor it
wraps, is a leaf, requires grad by default, and everything computed from it is a
plain ``Tensor``: only the object itself carries the subclass.
"""

from __future__ import annotations

from typing import Any

from engine.creation import empty
from engine.tensor import Tensor


class Parameter(Tensor):
    """A tensor that is a module parameter (``requires_grad=True`` unless told)."""

    __module__ = "torch.nn.parameter"  # PyTorch's, for ``type(p)``; pickled by ``__reduce_ex__``

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter() expected a Tensor as data, got {type(data).__name__}")
        if requires_grad and not data.dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        p = object.__new__(cls)
        p._data = data._data
        p._vc = data._counter()
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        """Everything happens in ``__new__``; this only swallows the arguments."""

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (Parameter, (self.detach(), self.requires_grad), None)

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result


_UNINITIALIZED_SHAPE = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually "
    "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
    "initialized one. Call `forward` to initialize the parameters before accessing their "
    "attributes."
)


def _uninitialized_use(kind: str, method: str) -> ValueError:
    return ValueError(
        f"Attempted to use an uninitialized {kind} in <method '{method}' of "
        "'torch._C.TensorBase' objects>. This error happens when you are using a `LazyModule` "
        f"or explicitly manipulating `torch.nn.parameter.Uninitialized{kind.capitalize()}` "
        "objects. When using LazyModules Call `forward` with a dummy batch to initialize the "
        "parameters before calling torch functions"
    )


class _Uninitialized:
    """What a lazy module holds until its first call tells it the shapes: no data to show,
    and ``materialize`` turns the object itself into the ``cls_to_become`` (a parameter or a
    plain tensor), so every reference to it sees the materialized tensor."""

    cls_to_become: type
    _kind = "parameter"

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        data = empty(tuple(shape), device=device or self.device, dtype=dtype or self.dtype)
        self._data = data._data  # type: ignore[attr-defined]
        self._vc = data._counter()  # type: ignore[attr-defined]
        self.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        raise RuntimeError(_UNINITIALIZED_SHAPE)

    def size(self, dim: int | None = None) -> Any:
        raise _uninitialized_use(self._kind, "size")

    def numel(self) -> int:
        raise _uninitialized_use(self._kind, "numel")

    def dim(self) -> int:
        raise _uninitialized_use(self._kind, "dim")

    def detach(self) -> Any:
        """Still uninitialized (``state_dict`` before the first call shows it so)."""
        return type(self)(requires_grad=False, device=self.device, dtype=self.dtype)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__


class UninitializedParameter(_Uninitialized, Parameter):
    """``nn.UninitializedParameter``: a lazy module's parameter before its first call."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> Any:
        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        """Everything happens in ``__new__``."""


class UninitializedBuffer(_Uninitialized, Tensor):
    """``nn.UninitializedBuffer``: a lazy module's buffer (running statistics) before its
    first call."""

    cls_to_become = Tensor
    _kind = "buffer"

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None) -> Any:
        b = object.__new__(cls)
        b._data = empty(0, device=device, dtype=dtype)._data
        if requires_grad:
            b.requires_grad_(True)
        return b
