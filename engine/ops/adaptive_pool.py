"""``F.adaptive_avg_pool2d`` and ``nn.AdaptiveAvgPool2d``: windows ``[floor(i*H/oh),
ceil((i+1)*H/oh))`` as ATen takes them.  An output of 1 by 1 is ``mean(-1, -2, keepdim)``
(``MeanBackward1``), as ATen's CPU path computes it; other sizes make
``AdaptiveAvgPool2DBackward0``."""

from __future__ import annotations

import math
from typing import Any

from engine.catalog import Example, Param, public
from engine.ops.core import Sample, apply_op, declare
from engine.ops.pointwise import zeros_like

NS = "torch.nn.functional"


def _windows(n_in: int, n_out: int) -> list[tuple[int, int]]:
    return [(i * n_in // n_out, math.ceil((i + 1) * n_in / n_out)) for i in range(n_out)]


def _fwd(xp: Any, a: Any, output_size: tuple[int, int]) -> Any:
    oh, ow = output_size
    out = xp.empty((*a.shape[:-2], oh, ow), dtype=a.dtype)
    for i, (h0, h1) in enumerate(_windows(a.shape[-2], oh)):
        for j, (w0, w1) in enumerate(_windows(a.shape[-1], ow)):
            total = xp.zeros(a.shape[:-2], dtype=a.dtype)
            for h in range(h0, h1):  # ATen's order: one running sum, row by row
                for w in range(w0, w1):
                    total += a[..., h, w]
            out[..., i, j] = total / a.dtype.type(h1 - h0) / a.dtype.type(w1 - w0)
    return out


def _backward_fwd(xp: Any, g: Any, a: Any) -> Any:
    """Each output's gradient shared among the elements of its window."""
    out = xp.zeros(a.shape, dtype=g.dtype)
    oh, ow = g.shape[-2:]
    for i, (h0, h1) in enumerate(_windows(a.shape[-2], oh)):
        for j, (w0, w1) in enumerate(_windows(a.shape[-1], ow)):
            share = g[..., i, j] / g.dtype.type(h1 - h0) / g.dtype.type(w1 - w0)
            out[..., h0:h1, w0:w1] += share[..., None, None]
    return out


def _double_backward(ctx: Any, gg: Any) -> tuple[Any, Any]:
    """Linear in its gradient: ``adaptive_avg_pool2d(gg)``; zeros for ``self``."""

    size = tuple(ctx.shapes[0][-2:])
    return (
        ctx.math.adaptive_avg_pool2d(gg, output_size=size) if ctx.needs[0] else None,
        zeros_like(ctx, ctx.saved["self"]) if ctx.needs[1] else None,
    )


declare(
    "adaptive_avg_pool2d_backward",
    "AdaptiveAvgPool2DBackwardBackward0",
    ("grad_output", "self"),
    _backward_fwd,
    _double_backward,
    dtype="same",
    save={"self": ("self",)},
)
ADAPTIVE_AVG = declare(
    "adaptive_avg_pool2d",
    "AdaptiveAvgPool2DBackward0",
    ("self",),
    _fwd,
    lambda ctx, g: ctx.math.adaptive_avg_pool2d_backward(g, ctx.saved["self"]),
    dtype="same",
    save={"self": None},
    samples=(Sample(((1, 2, 5, 7),), {"output_size": (2, 3)}),),
)


@public(
    "adaptive_avg_pool2d",
    ("input",),
    (Param("output_size", "sizes", 1),),
    namespace=NS,
    category="layer",
    doc="mean over windows that tile the input into output_size",
    method=False,
    example=Example(inputs={"input": (1, 2, 5, 7)}, params={"output_size": 2}),
)
def adaptive_avg_pool2d(input: Any, output_size: Any) -> Any:  # noqa: A002
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}"
        )
    size = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    size = tuple(input.shape[-2 + k] if s is None else s for k, s in enumerate(size))
    if size == (1, 1):
        return input.mean((-1, -2), keepdim=True)
    return apply_op(ADAPTIVE_AVG, (input,), {"output_size": size})


@public(
    "adaptive_avg_pool1d",
    ("input",),
    (Param("output_size", "sizes", 1),),
    namespace=NS,
    category="layer",
    doc="mean over windows that tile the last dim into output_size",
    method=False,
    example=Example(inputs={"input": (1, 2, 7)}, params={"output_size": 3}),
)
def adaptive_avg_pool1d(input: Any, output_size: Any) -> Any:  # noqa: A002
    """ATen's composite: the 2-D pool of ``input.unsqueeze(-2)`` to ``(1, size)``, squeezed
    back (``SqueezeBackward1`` over the 2-D pool's node over ``UnsqueezeBackward0``)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for adaptive_avg_pool1d)"
        )
    sizes = (output_size,) if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != 1:
        raise RuntimeError(
            f"adaptive_avg_pool1d() argument 'output_size' should contain one int (got "
            f"{len(sizes)})"
        )
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, sizes[0])).squeeze(-2)
