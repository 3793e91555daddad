"""``F.pixel_shuffle`` (``PixelShuffleBackward0``) and ``F.pixel_unshuffle``
(``PixelUnshuffleBackward0``): channels moved into blocks of positions and back. Each is
the other's gradient, so each one's backward is the other op, recorded."""

from __future__ import annotations

from typing import Any

from engine.catalog import Example, Param, public
from engine.ops.core import Sample, apply_op, declare

NS = "torch.nn.functional"


def _shuffle(xp: Any, a: Any, factor: int) -> Any:
    *batch, c, h, w = a.shape
    r = factor
    b = a.reshape(*batch, c // (r * r), r, r, h, w)
    k = len(batch)
    b = b.transpose(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return b.reshape(*batch, c // (r * r), h * r, w * r)


def _unshuffle(xp: Any, a: Any, factor: int) -> Any:
    *batch, c, h, w = a.shape
    r = factor
    b = a.reshape(*batch, c, h // r, r, w // r, r)
    k = len(batch)
    b = b.transpose(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return b.reshape(*batch, c * r * r, h // r, w // r)


PIXEL_SHUFFLE = declare(
    "pixel_shuffle",
    "PixelShuffleBackward0",
    ("self",),
    _shuffle,
    lambda ctx, g: ctx.math.pixel_unshuffle(g, factor=ctx.params["factor"]),
    dtype="same",
    samples=(Sample(((2, 8, 2, 3),), {"factor": 2}), Sample(((9, 1, 2),), {"factor": 3})),
)
PIXEL_UNSHUFFLE = declare(
    "pixel_unshuffle",
    "PixelUnshuffleBackward0",
    ("self",),
    _unshuffle,
    lambda ctx, g: ctx.math.pixel_shuffle(g, factor=ctx.params["factor"]),
    dtype="same",
    samples=(Sample(((2, 2, 4, 6),), {"factor": 2}), Sample(((1, 3, 3),), {"factor": 3})),
)


def _check(input: Any, name: str, what: str, factor: int) -> None:  # noqa: A002
    if input.ndim < 3:
        raise RuntimeError(
            f"{name} expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")


@public(
    "pixel_shuffle",
    ("input",),
    (Param("upscale_factor", "int"),),
    namespace=NS,
    category="shape",
    doc="move channels into r x r blocks of positions",
    method=False,
    example=Example(inputs={"input": (1, 4, 2, 2)}, params={"upscale_factor": 2}),
)
def pixel_shuffle(input: Any, upscale_factor: int) -> Any:  # noqa: A002
    _check(input, "pixel_shuffle", "upscale_factor", upscale_factor)
    c, square = input.shape[-3], upscale_factor * upscale_factor
    if c % square:
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {square}"
        )
    return apply_op(PIXEL_SHUFFLE, (input,), {"factor": int(upscale_factor)})


@public(
    "pixel_unshuffle",
    ("input",),
    (Param("downscale_factor", "int"),),
    namespace=NS,
    category="shape",
    doc="move r x r blocks of positions into channels",
    method=False,
    example=Example(inputs={"input": (1, 1, 4, 4)}, params={"downscale_factor": 2}),
)
def pixel_unshuffle(input: Any, downscale_factor: int) -> Any:  # noqa: A002
    _check(input, "pixel_unshuffle", "downscale_factor", downscale_factor)
    for where, d in (("height", -2), ("width", -1)):
        if input.shape[d] % downscale_factor:
            raise RuntimeError(
                f"pixel_unshuffle expects {where} to be divisible by downscale_factor, but "
                f"input.size({d})={input.shape[d]} is not divisible by {downscale_factor}"
            )
    return apply_op(PIXEL_UNSHUFFLE, (input,), {"factor": int(downscale_factor)})
