"""``to``/``cuda``/``cpu``/dtype casts (``ToCopyBackward0``) and the in-place methods that
are not variants of a function (``zero_``, ``fill_``, ``copy_``; ``add_`` and the like are
generated from their function's declaration)."""

from __future__ import annotations

from typing import Any

from engine import dtypes
from engine.backend import device, refuse_cuda_dtype, to_device, transfer
from engine.catalog import Param, public
from engine.ops.core import Sample, apply_inplace, apply_op, declare
from engine.tensor import Tensor


def _to_copy_fwd(
    xp: Any, a: Any, dtype: Any, device: Any, src_dtype: Any = None, src_device: Any = None
) -> Any:
    refuse_cuda_dtype(dtype.np, device)
    arr = transfer(a, device)
    if dtype is dtypes.bfloat16:
        return dtypes.cast_array(arr, dtype.np)
    return arr.astype(dtype.np, copy=arr is a)


TO_COPY = declare(
    "_to_copy",
    "ToCopyBackward0",
    ("self",),
    _to_copy_fwd,
    lambda ctx, g: ctx.math._to_copy(
        g,
        dtype=ctx.params["src_dtype"],
        device=ctx.params["src_device"],
        src_dtype=ctx.params["dtype"],
        src_device=ctx.params["device"],
    ),
    dtype=lambda i, p: p["dtype"],
    samples=(
        Sample(
            ((2, 3),),
            {
                "dtype": dtypes.float64,
                "device": device("cpu"),
                "src_dtype": dtypes.float64,
                "src_device": device("cpu"),
            },
        ),
    ),
    formula={"self": "1"},
)


_TO_KEYWORDS = frozenset({"dtype", "device", "non_blocking", "copy", "memory_format"})
_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
)


def _arg_type(value: Any) -> str:
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, dtypes.dtype | device):
        return f"torch.{type(value).__name__}"
    return type(value).__name__


def _to_signature_error(args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
    """PyTorch's argument-parser text: keywords listed last to first, with a
    trailing comma when no positional argument was given."""
    given = [_arg_type(a) for a in args]
    named = [f"{k}={_arg_type(v)}" for k, v in reversed(kwargs.items())]
    got = ", ".join(given + named) if given else "".join(f"{n}, " for n in named)
    return TypeError(
        f"to() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{_TO_SIGNATURES}"
    )


def _parse_to(t: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, bool]:
    if not _TO_KEYWORDS.issuperset(kwargs):
        raise _to_signature_error(args, kwargs)
    dev, dt = None, None
    copy = bool(kwargs.pop("copy", False))
    kwargs.pop("non_blocking", None)
    for a in args:
        if isinstance(a, Tensor):
            dev, dt = a.device, a.dtype
        elif isinstance(a, dtypes.dtype):
            dt = a
        elif isinstance(a, str | device | int):
            dev = a
        elif a is not None:
            raise TypeError(
                f"to() received an invalid combination of arguments - got ({type(a).__name__})"
            )
    if "dtype" in kwargs:
        dt = kwargs.pop("dtype")
    if "device" in kwargs:
        dev = kwargs.pop("device")
    return (to_device(dev) if dev is not None else t.device), (dt or t.dtype), copy


def to(t: Any, *args: Any, **kwargs: Any) -> Any:
    """``tensor.to(device_or_dtype)``: the tensor itself if nothing changes."""
    dev, dt, copy = _parse_to(t, args, dict(kwargs))
    if dev == t.device and dt is t.dtype and not copy:
        return t
    return apply_op(
        TO_COPY, (t,), {"dtype": dt, "device": dev, "src_dtype": t.dtype, "src_device": t.device}
    )


# -- in-place methods -------------------------------------------------------------
ZERO = declare(
    "zero_",
    "ZeroBackward0",
    ("self",),
    lambda xp, a: xp.zeros_like(a),
    lambda ctx, g: g * 0,
    dtype="same",
    formula={"self": "0"},
)
FILL = declare(
    "fill_",
    "FillBackward2",
    ("self",),
    lambda xp, a, value: xp.full_like(a, value),
    lambda ctx, g: g * 0,
    dtype="same",
)
COPY = declare(
    "copy_",
    "torch::autograd::CopyBackwards",
    ("self", "src"),
    lambda xp, a, src: (
        xp.broadcast_to(src, a.shape).astype(a.dtype)
        if src.dtype != a.dtype or src.shape != a.shape
        else src.copy()
    ),
    lambda ctx, g: (g * 0 if ctx.needs[0] else None, g if ctx.needs[1] else None),
    dtype="same",
)


@public(
    "zero_",
    ("input",),
    namespace="torch.Tensor",
    category="in-place",
    doc="Fill with 0 in place.",
    mutates=True,
)
def zero_(input: Any) -> Any:  # noqa: A002
    return apply_inplace(ZERO, (input,))


@public(
    "fill_",
    ("input",),
    (Param("value", "number", 0.0),),
    namespace="torch.Tensor",
    category="in-place",
    doc="Fill with one value in place.",
    mutates=True,
)
def fill_(input: Any, value: Any) -> Any:  # noqa: A002

    if isinstance(value, Tensor):
        value = value.item()
    return apply_inplace(FILL, (input,), {"value": value})


@public(
    "copy_",
    ("input", "src"),
    namespace="torch.Tensor",
    category="in-place",
    doc="Copy src into self (in place).",
    mutates=True,
)
def copy_(input: Any, src: Any, non_blocking: bool = False) -> Any:  # noqa: A002

    if isinstance(src, Tensor) and src.device != input.device:
        src = to(src, input.device)
    return apply_inplace(COPY, (input, src))
