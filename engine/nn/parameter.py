"""``nn.Parameter``: a leaf tensor that a ``Module`` registers as one of its parameters.

As in PyTorch, a parameter shares storage and version counter with the tensor it
wraps, is a leaf, requires grad by default, and everything computed from it is a
plain ``Tensor``: only the object itself carries the subclass.
"""

from __future__ import annotations

from typing import Any

from engine.tensor import Tensor


class Parameter(Tensor):
    """A tensor that is a module parameter (``requires_grad=True`` unless told)."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            from engine.creation import empty

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
