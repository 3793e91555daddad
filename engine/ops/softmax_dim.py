"""``torch.softmax`` / ``torch.log_softmax`` (and the methods): ``dim`` is required and
``dtype`` is the third positional argument, unlike ``F.softmax``'s deprecated implicit dim."""

from __future__ import annotations

from typing import Any

from engine.catalog import Param, public
from engine.ops import nn

_MISSING: Any = object()


@public(
    "softmax",
    ("input",),
    (Param("dim", "dim", -1, always=True), Param("dtype", "dtype")),
    category="activation",
    doc="exp(input) / its sum along dim",
    method=False,  # ``x.softmax(dim)`` is F.softmax's node
)
def softmax(input: Any, dim: Any = _MISSING, dtype: Any = None) -> Any:  # noqa: A002
    if dim is _MISSING:
        raise TypeError('softmax() missing 1 required positional arguments: "dim"')
    return nn.softmax(input, dim, dtype=dtype)


@public(
    "log_softmax",
    ("input",),
    (Param("dim", "dim", -1, always=True), Param("dtype", "dtype")),
    category="activation",
    doc="log(softmax(input)) along dim, computed stably",
    method=False,  # ``x.log_softmax(dim)`` is F.log_softmax's node
)
def log_softmax(input: Any, dim: Any = _MISSING, dtype: Any = None) -> Any:  # noqa: A002
    if dim is _MISSING:
        raise TypeError('log_softmax() missing 1 required positional arguments: "dim"')
    return nn.log_softmax(input, dim, dtype=dtype)
