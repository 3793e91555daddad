"""``F.group_norm`` (``NativeGroupNormBackward0``): each sample's channels split into
groups, each group normalised over its channels and positions, then a per-channel affine.

Under ``create_graph`` the gradients are built from elementary ops, as PyTorch's
``infinitely_differentiable_native_group_norm_backward`` builds them (no fused node).
"""

from __future__ import annotations

import math
from typing import Any

from engine.backend import array_module
from engine.catalog import Example, Param, Port, public
from engine.ops.core import TENSOR_MATH, Sample, apply_op, declare
from engine.ops.normalization import _normalised_grad

NS = "torch.nn.functional"


def _grouped(shape: tuple[int, ...], groups: int) -> tuple[int, int, int]:
    return shape[0], groups, math.prod(shape[1:]) // groups


def _channel_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (1, shape[1], *([1] * (len(shape) - 2)))


def _stats(xp: Any, a: Any, eps: float) -> tuple[Any, Any]:
    mean = xp.mean(a, axis=2, keepdims=True)
    var = xp.mean((a - mean) ** 2, axis=2, keepdims=True)
    return mean, 1 / xp.sqrt(var + a.dtype.type(eps))


def _fwd(xp: Any, a: Any, w: Any = None, b: Any = None, *, groups: int, eps: float) -> Any:
    r = a.reshape(_grouped(a.shape, groups))
    mean, rstd = _stats(xp, r, eps)
    y = ((r - mean) * rstd).reshape(a.shape)
    if w is not None:
        y = y * w.reshape(_channel_shape(a.shape))
    if b is not None:
        y = y + b.reshape(_channel_shape(a.shape))
    return y


def _composed(ctx: Any, g: Any, groups: int) -> tuple[Any, Any, Any]:
    """The gradients from elementary ops, so they can be differentiated again."""
    m, a, w = ctx.math, ctx.saved["input"], ctx.saved.get("weight")
    shape = tuple(a.shape)
    grouped = _grouped(shape, groups)
    ar = m.view(a, size=grouped)
    centred = ar - m.mean_dim(ar, dims=(2,), keepdim=True)
    var = m.mean_dim(centred * centred, dims=(2,), keepdim=True)
    rstd = m.rsqrt(m.add_scalar(var, other=ctx.params["eps"]))
    xhat = centred * rstd
    gi = gw = gb = None
    if ctx.needs[0]:
        dxhat = m.view(
            g * m.view(w, size=_channel_shape(shape)) if w is not None else g, size=grouped
        )
        gi = rstd * (
            dxhat
            - m.mean_dim(dxhat, dims=(2,), keepdim=True)
            - xhat * m.mean_dim(dxhat * xhat, dims=(2,), keepdim=True)
        )
        gi = m.view(gi, size=shape)
    axes = (0, *range(2, len(shape)))
    if len(ctx.needs) > 1 and ctx.needs[1]:
        gw = m.sum_dim(g * m.view(xhat, size=shape), dims=axes, keepdim=False)
    if len(ctx.needs) > 2 and ctx.needs[2]:
        gb = m.sum_dim(g, dims=axes, keepdim=False)
    return gi, gw, gb


def _grad(ctx: Any, g: Any) -> tuple[Any, Any, Any]:
    groups = ctx.params["groups"]
    if ctx.math is TENSOR_MATH:
        return _composed(ctx, g, groups)

    xp = array_module(g)
    a = getattr(ctx.saved["input"], "_data", ctx.saved["input"])
    w = ctx.saved.get("weight")
    w = getattr(w, "_data", w)
    shape = a.shape
    r = a.reshape(_grouped(shape, groups))
    mean, rstd = _stats(xp, r, ctx.params["eps"])
    xhat = (r - mean) * rstd
    dxhat = g * w.reshape(_channel_shape(shape)) if w is not None else g
    gi = gw = gb = None
    if ctx.needs[0]:
        gi = _normalised_grad(xp, dxhat.reshape(r.shape), xhat, rstd, 2).reshape(shape)
    axes = (0, *range(2, len(shape)))
    if len(ctx.needs) > 1 and ctx.needs[1]:
        gw = xp.sum(g * xhat.reshape(shape), axis=axes)
    if len(ctx.needs) > 2 and ctx.needs[2]:
        gb = xp.sum(g, axis=axes)
    return gi, gw, gb


GROUP_NORM = declare(
    "native_group_norm",
    "NativeGroupNormBackward0",
    ("input", "weight", "bias"),
    _fwd,
    _grad,
    save={"input": None, "weight": None},
    samples=(
        Sample(((2, 4, 3), (4,), (4,)), {"groups": 2, "eps": 1e-5}),
        Sample(((2, 6, 2, 2), (6,), (6,)), {"groups": 3, "eps": 1e-5}),
    ),
)


@public(
    "group_norm",
    ("input", Port("weight", optional=True), Port("bias", optional=True)),
    (Param("num_groups", "int"), Param("eps", "float")),
    namespace=NS,
    category="layer",
    doc="normalise groups of channels of each sample",
    method=False,
    example=Example(
        inputs={"input": (2, 4, 3), "weight": (4,), "bias": (4,)}, params={"num_groups": 2}
    ),
)
def group_norm(
    input: Any,  # noqa: A002
    num_groups: int,
    weight: Any = None,
    bias: Any = None,
    eps: float = 1e-5,
) -> Any:
    if input.ndim < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.ndim}"
        )
    shape = tuple(input.shape)
    size = [shape[0] * shape[1] // num_groups, num_groups, *shape[2:]]
    if math.prod(size) // size[1] == 1:
        raise ValueError(
            "Expected more than 1 value per channel when training, got input size "
            f"{_size_repr(size)}"
        )
    channels = shape[1]
    if channels % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {list(shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != channels):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {list(t.shape)} and input of shape "
                f"{list(shape)}"
            )
    return apply_op(GROUP_NORM, (input, weight, bias), {"groups": num_groups, "eps": eps})


def _size_repr(size: list[int]) -> str:
    return str(size)
