"""Convolution (``conv1d``, ``conv2d``, ``conv3d``): one ``ConvolutionBackward0`` node
whose edges are input, weight and bias, as in PyTorch.

Written against any array module: the kernel is visited one offset at a time (a
strided slice of the padded input per offset), so no unfold helper is needed and
the same code runs on NumPy and CuPy.  Groups split channels; dilation spaces the
kernel taps; padding may be numbers, ``"valid"`` or ``"same"``.
"""

from __future__ import annotations

import itertools
from typing import Any

from engine.backend import array_module
from engine.catalog import Example, Param, Port, public
from engine.integers import is_int
from engine.ops.core import TENSOR_MATH, Sample, apply_op, declare
from engine.ops.pointwise import zeros_like

NS = "torch.nn.functional"
#: The params of ATen's ``convolution`` besides ``groups``, in its order.
_CONV_PARAMS = ("stride", "padding", "dilation", "transposed", "output_padding")
_SPATIAL = "xyz"  # einsum letters for up to three spatial dimensions


def _taps(kernel: tuple[int, ...]) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(k) for k in kernel)))


def _window(
    offset: tuple[int, ...],
    dilation: tuple[int, ...],
    stride: tuple[int, ...],
    out: tuple[int, ...],
) -> tuple[slice, ...]:
    """The slice of the padded input that kernel tap ``offset`` sees for every output."""
    return tuple(
        slice(o * d, o * d + s * (n - 1) + 1, s)
        for o, d, s, n in zip(offset, dilation, stride, out)
    )


def _sides(padding: tuple[Any, ...]) -> list[tuple[int, int]]:
    """Padding per spatial dim as (before, after); ``"same"`` may need one more after."""
    return [q if isinstance(q, tuple) else (q, q) for q in padding]


def _out_size(size: tuple[int, ...], kernel: tuple[int, ...], p: dict[str, Any]) -> tuple[int, ...]:
    return tuple(
        (n + lo + hi - d * (k - 1) - 1) // s + 1
        for n, k, (lo, hi), d, s in zip(
            size, kernel, _sides(p["padding"]), p["dilation"], p["stride"]
        )
    )


def _pad(xp: Any, a: Any, padding: tuple[Any, ...]) -> Any:
    sides = _sides(padding)
    if not any(lo or hi for lo, hi in sides):
        return a
    return xp.pad(a, [(0, 0), (0, 0), *sides])


def _direct(xp: Any, a: Any, w: Any, p: dict[str, Any], out: Any = None) -> Any:
    """A plain (not transposed) convolution without bias; ``out`` caps the output size
    where a transposed convolution's input gradient wants fewer outputs than fit."""
    groups = p["groups"]
    n = a.shape[0]
    o, cg = w.shape[:2]
    kernel = tuple(w.shape[2:])
    out = _out_size(tuple(a.shape[2:]), kernel, p) if out is None else tuple(out)
    sp = _SPATIAL[: len(out)]
    padded = _pad(xp, a, p["padding"])
    result = xp.zeros((n, o, *out), dtype=a.dtype)  # owns its memory: a gradient to steal
    grouped = result.reshape(n, groups, o // groups, *out)
    wg = w.reshape(groups, o // groups, cg, *kernel)
    for tap in _taps(kernel):
        window = padded[(slice(None), slice(None), *_window(tap, p["dilation"], p["stride"], out))]
        window = window.reshape(n, groups, cg, *out)
        grouped += xp.einsum(f"ngc{sp},goc->ngo{sp}", window, wg[(..., *tap)])
    return result


def _transposed_size(
    size: tuple[int, ...], kernel: tuple[int, ...], p: dict[str, Any]
) -> tuple[int, ...]:
    return tuple(
        (n - 1) * s - lo - hi + d * (k - 1) + op + 1
        for n, k, (lo, hi), d, s, op in zip(
            size, kernel, _sides(p["padding"]), p["dilation"], p["stride"], p["output_padding"]
        )
    )


def _conv_fwd(xp: Any, a: Any, w: Any, b: Any = None, **p: Any) -> Any:
    """ATen's ``convolution``: a transposed one is the input gradient of the plain
    convolution whose weight it shares (its output sized by ``output_padding``)."""
    if p.get("transposed"):
        kernel = tuple(w.shape[2:])
        in_shape = (a.shape[0], w.shape[1] * p["groups"], *_transposed_size(a.shape[2:], kernel, p))
        result = _direct_grads(xp, a, None, w, in_shape, tuple(w.shape), True, False, p)[0]
    else:
        result = _direct(xp, a, w, p)
    if b is not None:
        result += b.reshape(1, -1, *([1] * (result.ndim - 2)))
    return result


def _direct_grads(
    xp: Any,
    g: Any,
    a: Any,
    w: Any,
    in_shape: tuple[int, ...],
    w_shape: tuple[int, ...],
    need_in: bool,
    need_w: bool,
    p: dict[str, Any],
) -> tuple[Any, Any]:
    """The input's and the weight's gradients of a plain convolution, in one pass over the taps."""
    groups = p["groups"]
    n, ch = in_shape[:2]
    o, cg = w_shape[:2]
    kernel = w_shape[2:]
    out = tuple(g.shape[2:])
    sp = _SPATIAL[: len(out)]
    gg = g.reshape(n, groups, o // groups, *out)
    padded_shape = (
        n,
        ch,
        *(m + lo + hi for m, (lo, hi) in zip(in_shape[2:], _sides(p["padding"]))),
    )
    grad_in = xp.zeros(padded_shape, dtype=g.dtype) if need_in else None
    # each owns its memory (no view), so AccumulateGrad may steal it as PyTorch's
    grad_w = xp.zeros(w_shape, dtype=g.dtype) if need_w else None
    grouped_w = grad_w.reshape(groups, o // groups, cg, *kernel) if grad_w is not None else None
    wg = w.reshape(groups, o // groups, cg, *kernel) if grad_in is not None else None
    padded = _pad(xp, a, p["padding"]) if grad_w is not None else None
    for tap in _taps(kernel):
        sl = (slice(None), slice(None), *_window(tap, p["dilation"], p["stride"], out))
        if grad_in is not None:
            part = xp.einsum(f"ngo{sp},goc->ngc{sp}", gg, wg[(..., *tap)])
            grad_in[sl] += part.reshape(n, ch, *out)
        if grad_w is not None:
            window = padded[sl].reshape(n, groups, cg, *out)
            grouped_w[(..., *tap)] += xp.einsum(f"ngo{sp},ngc{sp}->goc", gg, window)
    if grad_in is not None and padded_shape != in_shape:
        crop = tuple(slice(lo, lo + m) for (lo, _), m in zip(_sides(p["padding"]), in_shape[2:]))
        grad_in = grad_in[(slice(None), slice(None), *crop)].copy()
    return grad_in, grad_w


def _conv_grads(
    xp: Any,
    g: Any,
    a: Any,
    w: Any,
    in_shape: tuple[int, ...],
    w_shape: tuple[int, ...],
    need_in: bool,
    need_w: bool,
    p: dict[str, Any],
) -> tuple[Any, Any]:
    """The input's and the weight's gradients of a convolution.  A transposed one's are
    the plain convolution of ``g`` (cut to the input's size) and the plain weight
    gradient with the roles of input and output gradient swapped."""
    if not p.get("transposed"):
        return _direct_grads(xp, g, a, w, in_shape, w_shape, need_in, need_w, p)
    grad_in = _direct(xp, g, w, p, out=in_shape[2:]) if need_in else None
    grad_w = None
    if need_w:
        grad_w = _direct_grads(xp, a, g, None, tuple(g.shape), w_shape, False, True, p)[1]
    return grad_in, grad_w


def _conv_grad(ctx: Any, g: Any) -> tuple[Any, Any, Any]:
    if ctx.math is TENSOR_MATH:
        return _conv_grad_graph(ctx, g)

    xp = array_module(g)
    a, w = (
        ctx.saved.get("input"),
        ctx.saved.get("weight"),
    )  # each is saved only if the other needs it
    a = getattr(a, "_data", a)
    w = getattr(w, "_data", w)
    grad_in, grad_w = _conv_grads(
        xp,
        g,
        a,
        w,
        tuple(ctx.shapes[0]),
        tuple(ctx.shapes[1]),
        ctx.needs[0],
        ctx.needs[1],
        ctx.params,
    )
    grad_b = None
    if len(ctx.needs) > 2 and ctx.needs[2]:
        grad_b = g.sum(axis=(0, *range(2, g.ndim)))
    return grad_in, grad_w, grad_b


def _conv_grad_graph(ctx: Any, g: Any) -> tuple[Any, Any, Any]:
    """Under ``create_graph``: each gradient is a ``ConvolutionBackwardBackward0`` node on
    (grad_output, input, weight), as in PyTorch, where one node holds all three."""
    p = {**ctx.params, "in_shape": tuple(ctx.shapes[0]), "w_shape": tuple(ctx.shapes[1])}
    a, w = ctx.saved.get("input"), ctx.saved.get("weight")
    return tuple(  # type: ignore[return-value]
        ctx.math.convolution_backward(g, a, w, which=which, **p) if need else None
        for which, need in zip(("input", "weight", "bias"), (*ctx.needs, False, False))
    )[:3]


def _conv_backward_fwd(
    xp: Any, g: Any, a: Any, w: Any, *, which: str, in_shape: Any, w_shape: Any, **p: Any
) -> Any:
    if which == "bias":
        return g.sum(axis=(0, *range(2, g.ndim)))
    grad_in, grad_w = _conv_grads(
        xp, g, a, w, in_shape, w_shape, which == "input", which == "weight", p
    )
    return grad_in if which == "input" else grad_w


def _conv_double_backward(ctx: Any, gg: Any) -> tuple[Any, Any, Any]:
    """A convolution's gradients are bilinear: each one's derivatives are the forward
    convolution or the other gradient, with ``gg`` in the place of an operand."""

    m, p = ctx.math, ctx.params
    conv = {k: p[k] for k in (*_CONV_PARAMS, "groups") if k in p}
    g, a, w = ctx.saved.get("grad_output"), ctx.saved.get("input"), ctx.saved.get("weight")
    which = p["which"]
    if which == "input":  # gi(g, w): d/dg = conv(gg, w); d/dw = weight gradient of (gg, g)
        dg = m.convolution(gg, w, None, **conv) if ctx.needs[0] else None
        dw = m.convolution_backward(g, gg, w, **{**p, "which": "weight"}) if ctx.needs[2] else None
        return dg, zeros_like(ctx, a) if ctx.needs[1] else None, dw
    if which == "weight":  # gw(g, x): d/dg = conv(x, gg); d/dx = input gradient of (g, gg)
        dg = m.convolution(a, gg, None, **conv) if ctx.needs[0] else None
        da = m.convolution_backward(g, a, gg, **{**p, "which": "input"}) if ctx.needs[1] else None
        return dg, da, zeros_like(ctx, w) if ctx.needs[2] else None
    shape = (1, -1, *([1] * (len(p["in_shape"]) - 2)))
    dg = m.expand(m.view(gg, size=shape), size=tuple(ctx.shapes[0])) if ctx.needs[0] else None
    return (
        dg,
        zeros_like(ctx, a) if ctx.needs[1] else None,
        zeros_like(ctx, w) if ctx.needs[2] else None,
    )


declare(
    "convolution_backward",
    "ConvolutionBackwardBackward0",
    ("grad_output", "input", "weight"),
    _conv_backward_fwd,
    _conv_double_backward,
    save={"grad_output": ("input", "weight"), "input": None, "weight": None},
)


CONV = declare(
    "convolution",
    "ConvolutionBackward0",
    ("input", "weight", "bias"),
    _conv_fwd,
    _conv_grad,
    save={"input": None, "weight": None},  # both, whichever needs a gradient (as ATen)
    samples=(
        Sample(
            ((1, 2, 5, 5), (3, 2, 3, 3), (3,)),
            {"stride": (1, 1), "padding": (1, 1), "dilation": (1, 1), "groups": 1},
        ),
        Sample(
            ((2, 4, 6), (4, 2, 2), (4,)),
            {"stride": (2,), "padding": (0,), "dilation": (2,), "groups": 2},
        ),
        Sample(
            ((1, 4, 3, 3), (4, 3, 3, 2), (6,)),
            {
                "stride": (2, 1),
                "padding": (1, 0),
                "dilation": (1, 2),
                "transposed": True,
                "output_padding": (1, 1),
                "groups": 2,
            },
        ),
        Sample(
            ((2, 2, 4), (2, 3, 3), (3,)),
            {
                "stride": (3,),
                "padding": (1,),
                "dilation": (1,),
                "transposed": True,
                "output_padding": (2,),
                "groups": 1,
            },
        ),
    ),
)


def _tuple(value: Any, n: int, name: str) -> tuple[int, ...]:
    if is_int(value):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {n} values to match "
            f"the convolution dimensions, but got {name}={list(value)}"
        )
    return value


#: Not empty once ``padding='same'``'s zero-padded-copy warning was given.
_WARNED_SAME: list[bool] = []


def convolution(
    input: Any,  # noqa: A002
    weight: Any,
    bias: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
    spatial: int,
) -> Any:
    name = f"conv{spatial}d"
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, "
            f"but got input of size: {list(input.shape)}"
        )
    batched = input.ndim == spatial + 2
    if not batched:
        input = input.unsqueeze(0)  # noqa: A001
    kernel = tuple(weight.shape[2:])
    stride_t = _tuple(stride, spatial, "stride")
    dilation_t = _tuple(dilation, spatial, "dilation")
    if padding == "valid":
        padding_t = (0,) * spatial
    elif padding == "same":
        if any(s != 1 for s in stride_t):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [d * (k - 1) for d, k in zip(dilation_t, kernel)]
        padding_t = tuple(t // 2 if t % 2 == 0 else (t // 2, t - t // 2) for t in total)
        if any(t % 2 for t in total) and not _WARNED_SAME:
            import warnings

            _WARNED_SAME.append(True)  # ``TORCH_WARN_ONCE``: once per process
            warnings.warn(
                "Using padding='same' with even kernel lengths and odd dilation may require a "
                "zero-padded copy of the input be created (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)",
                UserWarning,
                stacklevel=3,
            )
    else:
        padding_t = _tuple(padding, spatial, "padding")
    channels = input.shape[1]
    if channels != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
            f"input{list(input.shape)} to have {weight.shape[1] * groups} channels, but got "
            f"{channels} channels instead"
        )
    padded = [n + lo + hi for n, (lo, hi) in zip(input.shape[2:], _sides(padding_t))]
    dilated = [d * (k - 1) + 1 for d, k in zip(dilation_t, kernel)]
    if any(k > n for k, n in zip(dilated, padded)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, dilated))}). "
            "Kernel size can't be greater than actual input size"
        )
    params = {
        "stride": stride_t,
        "padding": padding_t,
        "dilation": dilation_t,
        "transposed": False,
        "output_padding": (0,) * spatial,
        "groups": groups,
    }
    out = apply_op(CONV, (input, weight, bias), params)
    return out if batched else out.squeeze(0)


def _conv_public(spatial: int) -> Any:
    name = f"conv{spatial}d"

    def conv(
        input: Any,  # noqa: A002
        weight: Any,
        bias: Any = None,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
    ) -> Any:
        return convolution(input, weight, bias, stride, padding, dilation, groups, spatial)

    conv.__name__ = conv.__qualname__ = name
    return public(
        name,
        ("input", "weight", Port("bias", optional=True)),
        (
            Param("stride", "ints"),
            Param("padding", "ints"),
            Param("dilation", "ints"),
            Param("groups", "int"),
        ),
        namespace=NS,
        category="layer",
        doc=f"{spatial}-D convolution (cross-correlation)",
        method=False,
        example=Example(
            inputs={
                "input": (1, 2, *(4,) * spatial),
                "weight": (3, 2, *(2,) * spatial),
                "bias": (3,),
            }
        ),
    )(conv)


conv1d = _conv_public(1)
conv2d = _conv_public(2)
conv3d = _conv_public(3)


def _check_output_padding(
    output_padding: tuple[int, ...], stride: tuple[int, ...], dilation: tuple[int, ...]
) -> None:
    """ATen's check of the slow transposed kernels, which name a 1-D convolution's one
    dim ``width`` after a height of 0, 1, 1 (it runs as a 2-D one)."""
    if all(o < s or o < d for o, s, d in zip(output_padding, stride, dilation)):
        return
    if len(output_padding) == 1:
        output_padding, stride, dilation = (0, *output_padding), (1, *stride), (1, *dilation)
    names = ("depth", "height", "width")[-len(output_padding) :]
    parts = [
        f"{kind}_{name}: {v}"
        for kind, vs in (
            ("output_padding", output_padding),
            ("stride", stride),
            ("dilation", dilation),
        )
        for name, v in zip(names, vs)
    ]
    raise RuntimeError(
        "output padding must be smaller than either stride or dilation, but got " + " ".join(parts)
    )


def conv_transpose(
    input: Any,  # noqa: A002
    weight: Any,
    bias: Any,
    stride: Any,
    padding: Any,
    output_padding: Any,
    groups: int,
    dilation: Any,
    spatial: int,
) -> Any:
    """ATen's ``convolution`` with ``transposed=True``: the weight is ``(in, out / groups,
    *kernel)`` and each input element spreads the kernel over the output."""
    name = f"conv_transpose{spatial}d"
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, "
            f"but got input of size: {list(input.shape)}"
        )
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    batched = input.ndim == spatial + 2
    if not batched:
        input = input.unsqueeze(0)  # noqa: A001
    dims = weight.ndim - 2
    stride_t = _tuple(stride, dims, "stride")
    padding_t = _tuple(padding, dims, "padding")
    output_padding_t = _tuple(output_padding, dims, "output_padding")
    dilation_t = _tuple(dilation, dims, "dilation")
    if any(s <= 0 for s in stride_t):
        raise RuntimeError("non-positive stride is not supported")
    if any(q < 0 for q in padding_t):
        raise RuntimeError("negative padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{list(weight.shape)}] instead"
        )
    given = f"Given transposed=1, weight of size {list(weight.shape)}, expected"
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(
            f"{given} input{list(input.shape)} to have {weight.shape[0]} channels, but got "
            f"{input.shape[1]} channels instead"
        )
    out_channels = weight.shape[1] * groups
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"{given} bias to be 1-dimensional with {out_channels} elements, but got bias of "
            f"size {list(bias.shape)} instead"
        )
    _check_output_padding(output_padding_t, stride_t, dilation_t)
    params = {
        "stride": stride_t,
        "padding": padding_t,
        "dilation": dilation_t,
        "transposed": True,
        "output_padding": output_padding_t,
        "groups": groups,
    }
    size = _transposed_size(tuple(input.shape[2:]), tuple(weight.shape[2:]), params)
    if any(n < 1 for n in size):
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, input.shape[2:]))}). "
            f"Calculated output size per channel: ({' x '.join(map(str, size))}). "
            "Output size is too small"
        )
    if input.dtype != weight.dtype:
        raise RuntimeError(
            f"expected scalar type {input.dtype.scalar_name} but found {weight.dtype.scalar_name}"
        )
    out = apply_op(CONV, (input, weight, bias), params)
    return out if batched else out.squeeze(0)


def _conv_transpose_public(spatial: int) -> Any:
    name = f"conv_transpose{spatial}d"

    def conv_t(
        input: Any,  # noqa: A002
        weight: Any,
        bias: Any = None,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        dilation: Any = 1,
    ) -> Any:
        return conv_transpose(
            input, weight, bias, stride, padding, output_padding, groups, dilation, spatial
        )

    conv_t.__name__ = conv_t.__qualname__ = name
    return public(
        name,
        ("input", "weight", Port("bias", optional=True)),
        (
            Param("stride", "ints"),
            Param("padding", "ints"),
            Param("output_padding", "ints"),
            Param("groups", "int"),
            Param("dilation", "ints"),
        ),
        namespace=NS,
        category="layer",
        doc=f"{spatial}-D transposed convolution (the gradient of a convolution)",
        method=False,
        example=Example(
            inputs={
                "input": (1, 2, *(3,) * spatial),
                "weight": (2, 3, *(2,) * spatial),
                "bias": (3,),
            },
            params={"stride": 2},
        ),
    )(conv_t)


conv_transpose1d = _conv_transpose_public(1)
conv_transpose2d = _conv_transpose_public(2)
conv_transpose3d = _conv_transpose_public(3)
