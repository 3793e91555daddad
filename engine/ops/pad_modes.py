"""``F.pad`` in its reflect and replicate modes: ``ReflectionPad1D/2D/3DBackward0`` and
``ReplicationPad1D/2D/3DBackward0``, each over its backward op (``...BackwardBackward0``,
whose edges are the gradient and the input, as in ATen; its own gradient is the pad of
the incoming one).

Each padded dimension is a gather along one index list (mirrored or clamped positions;
negative pads crop); the gradient scatters back, summing where positions repeat.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.ops.core import Sample, apply_op, declare
from engine.ops.pointwise import zeros_like


def _positions(n: int, lo: int, hi: int, reflect: bool) -> Any:
    j = np.arange(-lo, n + hi)
    if reflect:
        j = np.abs(j)
        return np.where(j > n - 1, 2 * (n - 1) - j, j)
    return np.clip(j, 0, n - 1)


def _fwd(xp: Any, a: Any, pad: tuple[int, ...], reflect: bool) -> Any:
    for i in range(len(pad) // 2):
        axis = a.ndim - 1 - i
        idx = _positions(a.shape[axis], pad[2 * i], pad[2 * i + 1], reflect)
        a = xp.take(a, xp.asarray(idx), axis=axis)
    return a


def _bwd(xp: Any, g: Any, a: Any, pad: tuple[int, ...], reflect: bool) -> Any:
    for i in range(len(pad) // 2):
        axis = g.ndim - 1 - i
        n = a.shape[axis]
        idx = _positions(n, pad[2 * i], pad[2 * i + 1], reflect)
        moved = xp.moveaxis(g, axis, -1)
        out = xp.zeros((*moved.shape[:-1], n), dtype=g.dtype)
        xp.add.at(out, (..., xp.asarray(idx)), moved)
        g = xp.moveaxis(out, -1, axis)
    return g


def _declare(kind: str, dims: int) -> Any:
    name = f"{kind.lower()}_pad{dims}d"
    grad_fn = f"{kind}Pad{dims}D"
    reflect = kind == "Reflection"
    shape = (1, 2, 3, 4, 3)[: dims + 2]
    pad = (2, 1, 1, 2, 0, 1)[: 2 * dims]
    params = {"pad": pad, "reflect": reflect}
    padded = tuple(
        n
        + (
            pad[2 * (len(shape) - 1 - d)] + pad[2 * (len(shape) - 1 - d) + 1]
            if len(shape) - 1 - d < dims
            else 0
        )
        for d, n in enumerate(shape)
    )
    declare(
        f"{name}_backward",
        f"{grad_fn}BackwardBackward0",
        ("grad_output", "self"),
        _bwd,
        lambda ctx, gg: (
            getattr(ctx.math, name)(gg, **ctx.params) if ctx.needs[0] else None,
            zeros_like(ctx, ctx.saved["self"]) if len(ctx.needs) > 1 and ctx.needs[1] else None,
        ),
        dtype="same",
        save={"self": None},
        samples=(Sample((padded, shape), params),),
    )
    return declare(
        name,
        f"{grad_fn}Backward0",
        ("self",),
        _fwd,
        lambda ctx, g: getattr(ctx.math, f"{name}_backward")(g, ctx.saved["self"], **ctx.params),
        dtype="same",
        save={"self": None},
        samples=(Sample((shape,), params),),
    )


_OPS = {(k, d): _declare(k, d) for k in ("Reflection", "Replication") for d in (1, 2, 3)}
_COMBINATIONS = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad_mode(input: Any, pad: tuple[int, ...], mode: str) -> Any:  # noqa: A002
    """``F.pad(input, pad, mode)`` for ``mode`` reflect or replicate (``pad`` of even
    length, checked by the caller)."""
    dims = len(pad) // 2
    if dims not in (1, 2, 3) or input.ndim not in (dims + 1, dims + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            + _COMBINATIONS
        )
    reflect = mode == "reflect"
    shape = list(input.shape)
    batch = input.ndim - dims
    if any(n == 0 for n in shape[batch:]) or (batch == 2 and shape[1] == 0):
        want = " or ".join(f"{d}D" for d in (dims + 1, dims + 2))
        raise RuntimeError(
            f"Expected {want} (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {shape}"
        )
    for i in range(dims):
        d = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if reflect and (lo >= shape[d] or hi >= shape[d]):
            raise RuntimeError(
                f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({lo}, {hi}) at dimension {d} of input {shape}"
            )
        if shape[d] + lo + hi < 1:
            raise RuntimeError(
                f"input (W: {shape[d]}) is too small. Calculated output W: {shape[d] + lo + hi}"
            )
    kind = "Reflection" if reflect else "Replication"
    return apply_op(_OPS[(kind, dims)], (input,), {"pad": tuple(pad), "reflect": reflect})
