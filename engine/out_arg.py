"""``out=``: PyTorch's functions write their result into a given tensor, outside autograd."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

from engine import grad_mode, warn_site
from engine.tensor import Tensor

_RESIZED = (
    "An output with one or more elements was resized since it had shape {old}, which does not "
    "match the required output shape {new}. This behavior is deprecated, and in a future "
    "PyTorch release outputs will not be resized unless they have zero elements. You can "
    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0)."
)


def with_out(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` that also takes ``out=``: refused when autograd would need the result, else the
    result is copied (resized if need be, with PyTorch's warning) into ``out``, one version up.

    A function of one argument named ``input`` (``tanh``, ``exp``) gets a wrapper of that
    exact signature: the general one packs and unpacks its arguments on every call."""
    code = getattr(fn, "__code__", None)
    if (
        code is not None
        and code.co_argcount == 1
        and code.co_varnames[:1] == ("input",)
        and not code.co_kwonlyargcount
        and not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
        and not getattr(fn, "__defaults__", None)
    ):

        def call(input: Any, *, out: Any = None) -> Any:  # noqa: A002
            if out is None:
                return fn(input)
            return _write_out(name, fn, (input,), {}, out)

    else:

        def call(*args: Any, out: Any = None, **kwargs: Any) -> Any:  # type: ignore[misc]
            if out is None:
                return fn(*args, **kwargs)
            return _write_out(name, fn, args, kwargs, out)

    call.__name__ = call.__qualname__ = getattr(fn, "__name__", name)
    call.__doc__ = fn.__doc__
    call._without_out = fn  # type: ignore[attr-defined]
    return call


def _write_out(
    name: str, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
) -> Any:
    """``fn(*args, **kwargs)`` written into ``out``."""

    tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
    if grad_mode.STATE.enabled and any(t.requires_grad for t in (*tensors, out)):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    result = fn(*args, **kwargs)
    if result.dtype.is_floating_point and not out.dtype.is_floating_point:
        raise RuntimeError(
            f"result type {result.dtype.scalar_name} can't be cast to the desired output "
            f"type {out.dtype.scalar_name}"
        )
    data = result._data.astype(out._data.dtype, copy=False)
    if tuple(out.shape) != tuple(result.shape):
        if out.numel():
            old, new = list(out.shape), list(result.shape)
            warnings.warn(
                _RESIZED.format(old=old, new=new),
                UserWarning,
                stacklevel=warn_site.stacklevel(3, __file__),
            )
        out._data = data.copy()
    else:
        out._data[...] = data
    out._counter()[0] += 1
    return out
