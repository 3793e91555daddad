"""``torch.softmax`` / ``torch.log_softmax`` (and the methods): ``dim`` is required and
``dtype`` is the third positional argument, unlike ``F.softmax``'s deprecated implicit dim."""

from __future__ import annotations

from typing import Any

from engine.ops import nn

_MISSING: Any = object()


def softmax(input: Any, dim: Any = _MISSING, dtype: Any = None) -> Any:  # noqa: A002
    if dim is _MISSING:
        raise TypeError('softmax() missing 1 required positional arguments: "dim"')
    return nn.softmax(input, dim, dtype=dtype)


def log_softmax(input: Any, dim: Any = _MISSING, dtype: Any = None) -> Any:  # noqa: A002
    if dim is _MISSING:
        raise TypeError('log_softmax() missing 1 required positional arguments: "dim"')
    return nn.log_softmax(input, dim, dtype=dtype)
