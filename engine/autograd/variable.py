"""``autograd.Variable``: the pre-0.4 wrapper, kept as PyTorch keeps it.

Calling it returns a plain ``Tensor`` that aliases the data (storage and version
counter) as a new leaf, like ``data.detach().requires_grad_(requires_grad)``; every
tensor is an instance of it, so old ``isinstance(x, Variable)`` checks still pass.
"""

from __future__ import annotations

import warnings
from typing import Any

from engine.creation import empty
from engine.tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, other: Any) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    def __new__(cls, data: Any = None, requires_grad: bool = False, volatile: bool = False) -> Any:
        if data is None:
            return empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            # python_legacy_variable.cpp warns at level 1 of the C call: the caller's line
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
