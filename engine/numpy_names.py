"""NumPy's keyword names that PyTorch's argument parser accepts as well: ``axis`` for
``dim`` and ``keepdims`` for ``keepdim`` (``P.sum(1, keepdims=True)``, as Karpathy's
makemore lecture writes it).  The reductions taking ``dim`` are wrapped once, the
function and the method alike; a call without keywords goes straight through."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: The reductions of the engine whose ``dim``/``keepdim`` have NumPy spellings.
REDUCTIONS = (
    "all",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "count_nonzero",
    "logsumexp",
    "max",
    "mean",
    "median",
    "min",
    "nansum",
    "norm",
    "prod",
    "std",
    "std_mean",
    "sum",
    "var",
    "var_mean",
)


def _renamed(fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            if "keepdims" in kwargs:
                kwargs["keepdim"] = kwargs.pop("keepdims")
            if "axis" in kwargs:
                kwargs["dim"] = kwargs.pop("axis")
        return fn(*args, **kwargs)

    call.__name__ = call.__qualname__ = getattr(fn, "__name__", "call")
    call.__doc__ = fn.__doc__
    return call


def accept_numpy_names(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` taking ``axis=``/``keepdims=`` too; its ``out=``-less form (what methods
    bind) as well."""
    out = _renamed(fn)
    inner = getattr(fn, "_without_out", None)
    out._without_out = _renamed(inner) if inner is not None else out  # type: ignore[attr-defined]
    return out
