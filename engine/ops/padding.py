"""``F.pad`` in its constant mode (``ConstantPadNdBackward0``): pads given last dimension
first, negative ones crop, and the gradient is the opposite pad of the gradient. The
reflect and replicate modes are ``engine.ops.pad_modes``."""

from __future__ import annotations

from typing import Any

from engine.catalog import Example, Param, public
from engine.ops.core import Sample, apply_op, declare
from engine.ops.pad_modes import pad_mode


def _regions(shape: tuple[int, ...], pad: tuple[int, ...]) -> tuple[list[int], Any, Any]:
    out = list(shape)
    src: list[slice] = [slice(None)] * len(shape)
    dst: list[slice] = [slice(None)] * len(shape)
    for i in range(len(pad) // 2):
        d = len(shape) - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        out[d] = shape[d] + lo + hi
        s0, s1 = max(0, -lo), shape[d] - max(0, -hi)
        src[d] = slice(s0, max(s0, s1))
        dst[d] = slice(max(0, lo), max(0, lo) + max(0, s1 - s0))
    return out, tuple(src), tuple(dst)


def _fwd(xp: Any, a: Any, pad: tuple[int, ...], value: Any = 0) -> Any:
    shape, src, dst = _regions(a.shape, pad)
    out = xp.full(tuple(shape), value, dtype=a.dtype)
    out[dst] = a[src]
    return out


PAD = declare(
    "constant_pad_nd",
    "ConstantPadNdBackward0",
    ("self",),
    _fwd,
    lambda ctx, g: ctx.math.constant_pad_nd(g, pad=tuple(-p for p in ctx.params["pad"]), value=0),
    dtype="same",
    samples=(Sample(((2, 3),), {"pad": (1, 2, -1, 1), "value": 0.5}),),
)


@public(
    "pad",
    ("input",),
    (Param("pad", "shape"), Param("value", "number")),
    namespace="torch.nn.functional",
    category="shape",
    doc="pad the last dimensions with a constant (negative pads crop)",
    method=False,
    example=Example(params={"pad": [1, 1]}),
)
def pad(input: Any, pad: Any, mode: str = "constant", value: Any = None) -> Any:  # noqa: A002
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if mode in ("reflect", "replicate"):
        return pad_mode(input, pad, mode)
    if mode == "circular":
        raise NotImplementedError(
            f"F.pad(mode='{mode}') is not supported by the engine; only modes 'constant', "
            "'reflect' and 'replicate' are"
        )
    if mode != "constant":
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.ndim}"
        )
    for i in range(len(pad) // 2):  # negative pads are ATen's narrows, checked as such
        size = input.shape[input.ndim - 1 - i]
        for crop in (pad[2 * i], pad[2 * i + 1]):
            if crop < 0:
                size += crop
                if size < 0:
                    raise RuntimeError("narrow(): length must be non-negative.")
    return apply_op(PAD, (input,), {"pad": pad, "value": 0 if value is None else value})
