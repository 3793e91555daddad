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

from engine.catalog import Example, Param, Port, public
from engine.ops.core import TENSOR_MATH, Sample, apply_op, declare

NS = "torch.nn.functional"
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


def _conv_fwd(xp: Any, a: Any, w: Any, b: Any = None, **p: Any) -> Any:
    groups = p["groups"]
    n = a.shape[0]
    o, cg = w.shape[:2]
    kernel = tuple(w.shape[2:])
    out = _out_size(tuple(a.shape[2:]), kernel, p)
    sp = _SPATIAL[: len(out)]
    padded = _pad(xp, a, p["padding"])
    result = xp.zeros((n, groups, o // groups, *out), dtype=a.dtype)
    wg = w.reshape(groups, o // groups, cg, *kernel)
    for tap in _taps(kernel):
        window = padded[(slice(None), slice(None), *_window(tap, p["dilation"], p["stride"], out))]
        window = window.reshape(n, groups, cg, *out)
        result += xp.einsum(f"ngc{sp},goc->ngo{sp}", window, wg[(..., *tap)])
    result = result.reshape(n, o, *out)
    if b is not None:
        result += b.reshape(1, o, *([1] * len(out)))
    return result


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
    """The input's and the weight's gradients of a convolution, in one pass over the taps."""
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
    grad_w = xp.zeros((groups, o // groups, cg, *kernel), dtype=g.dtype) if need_w else None
    wg = w.reshape(groups, o // groups, cg, *kernel) if grad_in is not None else None
    padded = _pad(xp, a, p["padding"]) if grad_w is not None else None
    for tap in _taps(kernel):
        sl = (slice(None), slice(None), *_window(tap, p["dilation"], p["stride"], out))
        if grad_in is not None:
            part = xp.einsum(f"ngo{sp},goc->ngc{sp}", gg, wg[(..., *tap)])
            grad_in[sl] += part.reshape(n, ch, *out)
        if grad_w is not None:
            window = padded[sl].reshape(n, groups, cg, *out)
            grad_w[(..., *tap)] += xp.einsum(f"ngo{sp},ngc{sp}->goc", gg, window)
    if grad_in is not None and padded_shape != in_shape:
        crop = tuple(slice(lo, lo + m) for (lo, _), m in zip(_sides(p["padding"]), in_shape[2:]))
        grad_in = grad_in[(slice(None), slice(None), *crop)]
    return grad_in, grad_w.reshape(w_shape) if grad_w is not None else None


def _conv_grad(c: Any, g: Any) -> tuple[Any, Any, Any]:
    if c.m is TENSOR_MATH:
        return _conv_grad_graph(c, g)
    from engine.backend import array_module

    xp = array_module(g)
    a, w = c.s.get("input"), c.s.get("weight")  # each is saved only if the other needs it
    a = getattr(a, "_data", a)
    w = getattr(w, "_data", w)
    grad_in, grad_w = _conv_grads(
        xp, g, a, w, tuple(c.shapes[0]), tuple(c.shapes[1]), c.needs[0], c.needs[1], c.p
    )
    grad_b = None
    if len(c.needs) > 2 and c.needs[2]:
        grad_b = g.sum(axis=(0, *range(2, g.ndim)))
    return grad_in, grad_w, grad_b


def _conv_grad_graph(c: Any, g: Any) -> tuple[Any, Any, Any]:
    """Under ``create_graph``: each gradient is a ``ConvolutionBackwardBackward0`` node on
    (grad_output, input, weight), as in PyTorch, where one node holds all three."""
    p = {**c.p, "in_shape": tuple(c.shapes[0]), "w_shape": tuple(c.shapes[1])}
    a, w = c.s.get("input"), c.s.get("weight")
    return tuple(  # type: ignore[return-value]
        c.m.convolution_backward(g, a, w, which=which, **p) if need else None
        for which, need in zip(("input", "weight", "bias"), (*c.needs, False, False))
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


def _conv_double_backward(c: Any, gg: Any) -> tuple[Any, Any, Any]:
    """A convolution's gradients are bilinear: each one's derivatives are the forward
    convolution or the other gradient, with ``gg`` in the place of an operand."""
    from engine.ops.pointwise import zeros_like

    m, p = c.m, c.p
    conv = {k: p[k] for k in ("stride", "padding", "dilation", "groups")}
    g, a, w = c.s.get("grad_output"), c.s.get("input"), c.s.get("weight")
    which = p["which"]
    if which == "input":  # gi(g, w): d/dg = conv(gg, w); d/dw = weight gradient of (gg, g)
        dg = m.convolution(gg, w, None, **conv) if c.needs[0] else None
        dw = m.convolution_backward(g, gg, w, **{**p, "which": "weight"}) if c.needs[2] else None
        return dg, zeros_like(c, a) if c.needs[1] else None, dw
    if which == "weight":  # gw(g, x): d/dg = conv(x, gg); d/dx = input gradient of (g, gg)
        dg = m.convolution(a, gg, None, **conv) if c.needs[0] else None
        da = m.convolution_backward(g, a, gg, **{**p, "which": "input"}) if c.needs[1] else None
        return dg, da, zeros_like(c, w) if c.needs[2] else None
    shape = (1, -1, *([1] * (len(p["in_shape"]) - 2)))
    dg = m.expand(m.view(gg, size=shape), size=tuple(c.shapes[0])) if c.needs[0] else None
    return (
        dg,
        zeros_like(c, a) if c.needs[1] else None,
        zeros_like(c, w) if c.needs[2] else None,
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
    save={"input": ("weight",), "weight": ("input",)},
    samples=(
        Sample(
            ((1, 2, 5, 5), (3, 2, 3, 3), (3,)),
            {"stride": (1, 1), "padding": (1, 1), "dilation": (1, 1), "groups": 1},
        ),
        Sample(
            ((2, 4, 6), (4, 2, 2), (4,)),
            {"stride": (2,), "padding": (0,), "dilation": (2,), "groups": 2},
        ),
    ),
)


def _tuple(value: Any, n: int, name: str) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values")
    return value


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
        if any(t % 2 for t in total):
            import warnings

            warnings.warn(
                "Using padding='same' with even kernel lengths and odd dilation may require a "
                "zero-padded copy of the input be created (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)",
                UserWarning,
                stacklevel=4,
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
    if all(isinstance(q, int) for q in padding_t):
        padded = [n + 2 * q for n, q in zip(input.shape[2:], padding_t)]
        spans = [d * (k - 1) + 1 for d, k in zip(dilation_t, kernel)]
        if any(n < k for n, k in zip(padded, spans)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                f"Kernel size: ({' x '.join(map(str, spans))}). Kernel size can't be greater "
                "than actual input size"
            )
    params = {"stride": stride_t, "padding": padding_t, "dilation": dilation_t, "groups": groups}
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
