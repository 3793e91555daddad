"""``F.local_response_norm``, composed as ``torch.nn.functional`` composes it: the squares
averaged over neighbouring channels (``avg_pool2d`` for 3-D inputs, ``avg_pool3d`` over a
``(size, 1, 1)`` window for more), scaled, shifted and raised to ``beta``, dividing the
input.

The engine has no general ``avg_pool3d``; the window this composition uses (stride 1, no
padding, one position wide in height and width) is declared here with PyTorch's node
names (``AvgPool3DBackward0`` over ``AvgPool3DBackwardBackward0``).
"""

from __future__ import annotations

from typing import Any

from engine.catalog import Example, Param, public
from engine.ops.core import Sample, apply_op, declare
from engine.ops.padding import pad
from engine.ops.pointwise import zeros_like
from engine.ops.pool import avg_pool2d


def _depth_mean(xp: Any, a: Any, size: int) -> Any:
    depth = a.shape[-3] - size + 1
    total = a[..., 0:depth, :, :].copy()
    for i in range(1, size):
        total += a[..., i : i + depth, :, :]
    return total / a.dtype.type(size)


def _depth_mean_backward(xp: Any, g: Any, a: Any, size: int) -> Any:
    share = g / g.dtype.type(size)
    out = xp.zeros(a.shape, dtype=g.dtype)
    depth = g.shape[-3]
    for i in range(size):
        out[..., i : i + depth, :, :] += share
    return out


declare(
    "depth_avg_pool3d_backward",
    "AvgPool3DBackwardBackward0",
    ("grad_output", "self"),
    _depth_mean_backward,
    lambda ctx, gg: (
        ctx.math.depth_avg_pool3d(gg, size=ctx.params["size"]) if ctx.needs[0] else None,
        zeros_like(ctx, ctx.saved["self"]) if ctx.needs[1] else None,
    ),
    dtype="same",
    save={"self": None},
    samples=(Sample(((2, 1, 3, 2, 3), (2, 1, 5, 2, 3)), {"size": 3}),),
)
DEPTH_AVG_POOL = declare(
    "depth_avg_pool3d",
    "AvgPool3DBackward0",
    ("self",),
    _depth_mean,
    lambda ctx, g: ctx.math.depth_avg_pool3d_backward(
        g, ctx.saved["self"], size=ctx.params["size"]
    ),
    dtype="same",
    save={"self": None},
    samples=(Sample(((2, 1, 5, 2, 3),), {"size": 3}),),
)


@public(
    "local_response_norm",
    ("input",),
    (
        Param("size", "int"),
        Param("alpha", "float"),
        Param("beta", "float"),
        Param("k", "float"),
    ),
    namespace="torch.nn.functional",
    category="layer",
    doc="divide by a power of the neighbouring channels' mean square",
    method=False,
    example=Example(inputs={"input": (1, 4, 3)}, params={"size": 2}),
)
def local_response_norm(
    input: Any,  # noqa: A002
    size: int,
    alpha: float = 1e-4,
    beta: float = 0.75,
    k: float = 1.0,
) -> Any:
    dim = input.ndim
    if dim < 3:
        raise ValueError(
            "Expected 3D or higher dimensionality                          input "
            f"(got {dim} dimensions)"
        )
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = apply_op(DEPTH_AVG_POOL, (div,), {"size": size}).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
