"""``F.unfold`` (``Im2ColBackward0``) and ``F.fold`` (``Col2ImBackward0``): sliding
blocks of a 2-D image gathered into columns, and columns summed back into an image.
They are each other's adjoint, so each one's gradient is the other op, recorded."""

from __future__ import annotations

from typing import Any

from engine.catalog import Example, Param, public
from engine.ops.core import Sample, apply_op, declare

NS = "torch.nn.functional"
Pair = tuple[int, int]


def _blocks(size: Pair, kernel: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Pair:
    return tuple(  # type: ignore[return-value]
        (size[i] + 2 * padding[i] - (dilation[i] * (kernel[i] - 1) + 1)) // stride[i] + 1
        for i in range(2)
    )


def _windows(kernel: Pair, dilation: Pair, stride: Pair, blocks: Pair) -> Any:
    """The (row, column) slices of the padded image that each kernel offset reads."""
    for i in range(kernel[0]):
        r0 = i * dilation[0]
        rows = slice(r0, r0 + stride[0] * (blocks[0] - 1) + 1, stride[0])
        for j in range(kernel[1]):
            c0 = j * dilation[1]
            yield i, j, rows, slice(c0, c0 + stride[1] * (blocks[1] - 1) + 1, stride[1])


def _im2col(xp: Any, a: Any, kernel_size: Pair, dilation: Pair, padding: Pair, stride: Pair) -> Any:
    batched = a.ndim == 4
    x = a if batched else a[None]
    n, c, h, w = x.shape
    ph, pw = padding
    padded = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=a.dtype)
    padded[:, :, ph : ph + h, pw : pw + w] = x
    blocks = _blocks((h, w), kernel_size, dilation, padding, stride)
    out = xp.empty((n, c, kernel_size[0], kernel_size[1], *blocks), dtype=a.dtype)
    for i, j, rows, cols in _windows(kernel_size, dilation, stride, blocks):
        out[:, :, i, j] = padded[:, :, rows, cols]
    out = out.reshape(n, c * kernel_size[0] * kernel_size[1], blocks[0] * blocks[1])
    return out if batched else out[0]


def _col2im(
    xp: Any,
    a: Any,
    output_size: Pair,
    kernel_size: Pair,
    dilation: Pair,
    padding: Pair,
    stride: Pair,
) -> Any:
    batched = a.ndim == 3
    x = a if batched else a[None]
    n = x.shape[0]
    kh, kw = kernel_size
    c = x.shape[1] // (kh * kw)
    blocks = _blocks(output_size, kernel_size, dilation, padding, stride)
    cols = x.reshape(n, c, kh, kw, *blocks)
    (h, w), (ph, pw) = output_size, padding
    padded = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), dtype=a.dtype)
    for i, j, rows, cs in _windows(kernel_size, dilation, stride, blocks):
        padded[:, :, rows, cs] += cols[:, :, i, j]
    out = padded[:, :, ph : ph + h, pw : pw + w]
    return (out if batched else out[0]).copy()


def _geometry(p: dict[str, Any]) -> dict[str, Any]:
    return {k: p[k] for k in ("kernel_size", "dilation", "padding", "stride")}


_GEOMETRY = {"kernel_size": (2, 2), "dilation": (1, 1), "padding": (1, 0), "stride": (1, 2)}
IM2COL = declare(
    "im2col",
    "Im2ColBackward0",
    ("self",),
    _im2col,
    lambda ctx, g: ctx.math.col2im(
        g, output_size=tuple(ctx.shapes[0][-2:]), **_geometry(ctx.params)
    ),
    dtype="same",
    samples=(
        Sample(((2, 2, 3, 4),), _GEOMETRY),
        Sample(((2, 4, 3),), {**_GEOMETRY, "dilation": (2, 1), "padding": (0, 1)}),
    ),
)
COL2IM = declare(
    "col2im",
    "Col2ImBackward0",
    ("self",),
    _col2im,
    lambda ctx, g: ctx.math.im2col(g, **_geometry(ctx.params)),
    dtype="same",
    samples=(
        Sample(((2, 8, 8),), {**_GEOMETRY, "output_size": (3, 4)}),
        Sample(((8, 8),), {**_GEOMETRY, "output_size": (3, 4)}),
    ),
)


def _pair(v: Any) -> Pair:
    if isinstance(v, (list, tuple)):
        return tuple(int(x) for x in v)  # type: ignore[return-value]
    return (int(v), int(v))


def _check_geometry(kernel: Pair, dilation: Pair, padding: Pair, stride: Pair) -> None:
    """ATen's shape checks shared by ``im2col`` and ``col2im``, in its order."""
    if min(kernel) <= 0:
        raise RuntimeError(
            "kernel size should be greater than zero, but got kernel_height: "
            f"{kernel[0]} kernel_width: {kernel[1]}"
        )
    if min(dilation) <= 0:
        raise RuntimeError(
            "dilation should be greater than zero, but got dilation_height: "
            f"{dilation[0]} dilation_width: {dilation[1]}"
        )
    if min(padding) < 0:
        raise RuntimeError(
            f"padding should be non-negative, but got pad_height: {padding[0]} "
            f"pad_width: {padding[1]}"
        )
    if min(stride) <= 0:
        raise RuntimeError(
            "stride should be greater than zero, but got stride_height: "
            f"{stride[0]} stride_width: {stride[1]}"
        )


def _out_of_range(ndim: int, dim: int) -> IndexError:
    return IndexError(
        f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})"
    )


@public(
    "unfold",
    ("input",),
    (
        Param("kernel_size", "ints"),
        Param("dilation", "ints"),
        Param("padding", "ints"),
        Param("stride", "ints"),
    ),
    namespace=NS,
    category="shape",
    doc="sliding blocks of an image as columns (im2col)",
    method=False,
    example=Example(inputs={"input": (1, 2, 3, 3)}, params={"kernel_size": 2}),
)
def unfold(
    input: Any,  # noqa: A002
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Any:
    geometry = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    _check_geometry(*geometry)
    if input.ndim < 3:
        raise _out_of_range(input.ndim, input.ndim)
    shape = tuple(input.shape)
    if input.ndim > 4 or 0 in shape[-3:]:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
            f"non-zero dimensions for input, but got: {list(shape)}"
        )
    kernel, dil, pad, st = geometry
    blocks = _blocks(shape[-2:], kernel, dil, pad, st)  # type: ignore[arg-type]
    if min(blocks) < 1:
        raise RuntimeError(
            f"Given input with spatial size ({shape[-2]}, {shape[-1]}), "
            f"kernel_size=({kernel[0]}, {kernel[1]}), dilation=({dil[0]}, {dil[1]}), "
            f"padding=({pad[0]}, {pad[1]}), calculated shape of the array of sliding blocks "
            f"as ({blocks[0]}, {blocks[1]}), but its components must be at least one."
        )
    params = {"kernel_size": kernel, "dilation": dil, "padding": pad, "stride": st}
    return apply_op(IM2COL, (input,), params)


@public(
    "fold",
    ("input",),
    (
        Param("output_size", "ints"),
        Param("kernel_size", "ints"),
        Param("dilation", "ints"),
        Param("padding", "ints"),
        Param("stride", "ints"),
    ),
    namespace=NS,
    category="shape",
    doc="sum columns of sliding blocks back into an image (col2im)",
    method=False,
    example=Example(inputs={"input": (1, 8, 4)}, params={"output_size": 3, "kernel_size": 2}),
)
def fold(
    input: Any,  # noqa: A002
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Any:
    out = _pair(output_size)
    geometry = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    _check_geometry(*geometry)
    shape = tuple(input.shape)
    if input.ndim not in (2, 3) or 0 in shape[-2:]:
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(shape)}"
        )
    kernel, dil, pad, st = geometry
    channels, n_blocks = shape[-2], shape[-1]
    if channels % (kernel[0] * kernel[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={channels} and "
            f"kernel_size=({kernel[0]}, {kernel[1]})."
        )
    blocks = _blocks(out, kernel, dil, pad, st)
    if blocks[0] * blocks[1] != n_blocks:
        raise RuntimeError(
            f"Given output_size=({out[0]}, {out[1]}), kernel_size=({kernel[0]}, {kernel[1]}), "
            f"dilation=({dil[0]}, {dil[1]}), padding=({pad[0]}, {pad[1]}), "
            f"stride=({st[0]}, {st[1]}), expected size of input's dimension 2 to match the "
            f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
            f"{blocks[0] * blocks[1]}, but got input.size(2)={n_blocks}."
        )
    params = {"output_size": out, "kernel_size": kernel, "dilation": dil, "padding": pad}
    return apply_op(COL2IM, (input,), {**params, "stride": st})
