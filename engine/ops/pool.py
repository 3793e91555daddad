"""Pooling: ``max_pool2d`` (with its indices) and ``avg_pool2d``, one node each as in
PyTorch, for batched ``(N, C, H, W)`` and unbatched ``(C, H, W)`` inputs; the 1-D
forms pool a unit-height image, as PyTorch's do (so their ``grad_fn`` is a squeeze).
"""

from __future__ import annotations

import math
from typing import Any

from engine.backend import array_module
from engine.catalog import Example, Param, public
from engine.ops.conv import _taps, _tuple, _window
from engine.ops.core import Sample, apply_op, declare
from engine.ops.pointwise import zeros_like

NS = "torch.nn.functional"


def _out_len(n: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    span = n + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p:
        out -= 1
    return out


def _geometry(shape: tuple[int, ...], p: dict[str, Any]) -> tuple[int, ...]:
    return tuple(
        _out_len(n, k, s, q, d, p["ceil_mode"])
        for n, k, s, q, d in zip(shape[-2:], p["kernel"], p["stride"], p["padding"], p["dilation"])
    )


def _padded(xp: Any, a: Any, p: dict[str, Any], out: tuple[int, ...], fill: float) -> Any:
    """Pad (and, for ceil_mode, extend) the last two dims so every window fits."""
    need = [
        (o - 1) * s + d * (k - 1) + 1
        for o, s, d, k in zip(out, p["stride"], p["dilation"], p["kernel"])
    ]
    widths = [(q, max(0, nd - n - q)) for q, nd, n in zip(p["padding"], need, a.shape[-2:])]
    lead = [(0, 0)] * (a.ndim - 2)
    return xp.pad(a, [*lead, *widths], constant_values=fill)


def _max_fwd(xp: Any, a: Any, **p: Any) -> tuple[Any, Any]:
    out = _geometry(tuple(a.shape), p)
    h, w = a.shape[-2:]
    padded = _padded(xp, a, p, out, -xp.inf)
    rows = xp.arange(padded.shape[-2]).reshape(-1, 1) - p["padding"][0]
    cols = xp.arange(padded.shape[-1]).reshape(1, -1) - p["padding"][1]
    flat = rows * w + cols
    best = None
    where = None
    for tap in _taps(p["kernel"]):
        win = _window(tap, p["dilation"], p["stride"], out)
        vals = padded[(..., *win)]
        idx = flat[win]
        if best is None:
            best, where = vals.copy(), xp.broadcast_to(idx, vals.shape).copy()
        else:
            better = (vals > best) | xp.isnan(vals)
            best = xp.where(better, vals, best)
            where = xp.where(better, idx, where)
    del h
    return best, where.astype("int64")


def _max_grad(ctx: Any, g: Any, _indices_grad: Any = None) -> Any:
    idx = ctx.saved["indices"]
    return ctx.math.max_pool2d_backward(
        g, ctx.saved["self"], indices=getattr(idx, "_data", idx), **ctx.params
    )


def _max_pool_backward(xp: Any, g: Any, a: Any, indices: Any, **p: Any) -> Any:
    """Each window's gradient lands on the element its maximum came from."""
    shape = tuple(a.shape)
    idx = indices
    lead = math.prod(shape[:-2])
    plane = shape[-2] * shape[-1]
    grad = xp.zeros((lead, plane), dtype=g.dtype)
    rows = xp.broadcast_to(xp.arange(lead).reshape(-1, 1), (lead, idx.size // max(lead, 1)))
    xp.add.at(grad, (rows, idx.reshape(lead, -1)), g.reshape(lead, -1))
    return grad.reshape(shape)


def _max_pool_double_backward(ctx: Any, gg: Any) -> tuple[Any, Any]:
    """``max_pool_double_backward``: ``gg`` read at each window's maximum; zero for self."""

    idx = ctx.params["indices"]
    shape = tuple(ctx.shapes[1])
    lead = math.prod(shape[:-2])
    first = None
    if ctx.needs[0]:
        flat = ctx.math.view(gg, size=(lead, shape[-2] * shape[-1]))
        xp = array_module(idx)
        rows = xp.arange(lead).reshape(-1, 1) + xp.zeros_like(idx.reshape(lead, -1))
        picked = ctx.math.index(flat, key=(rows, idx.reshape(lead, -1)))
        first = ctx.math.view(picked, size=tuple(idx.shape))
    return (first, zeros_like(ctx, ctx.saved["self"]) if ctx.needs[1] else None)


declare(
    "max_pool2d_backward",
    "MaxPool2DWithIndicesBackwardBackward0",
    ("grad_output", "self"),
    _max_pool_backward,
    _max_pool_double_backward,
    dtype="same",
    save={"self": ("self",)},
)


MAX_POOL = declare(
    "max_pool2d",
    "MaxPool2DWithIndicesBackward0",
    ("self",),
    _max_fwd,
    _max_grad,
    dtype="same",
    outputs=2,
    save={"self": None, "indices": None},
    samples=(
        Sample(
            ((1, 2, 4, 5),),
            {
                "kernel": (2, 2),
                "stride": (2, 2),
                "padding": (0, 0),
                "dilation": (1, 1),
                "ceil_mode": True,
            },
            distinct=True,
        ),
        Sample(
            ((2, 5, 5),),
            {
                "kernel": (3, 3),
                "stride": (2, 1),
                "padding": (1, 1),
                "dilation": (1, 1),
                "ceil_mode": False,
            },
            distinct=True,
        ),
    ),
)


def _avg_counts(xp: Any, shape: tuple[int, ...], p: dict[str, Any], out: tuple[int, ...]) -> Any:
    """Each window's divisor: its size inside the padded input, or its valid elements."""
    if p.get("divisor_override"):
        return p["divisor_override"]
    ones = xp.ones(shape[-2:])
    padded_ones = _padded(xp, ones, p, out, 0.0)
    marker = _padded(
        xp,
        xp.ones(tuple(n + 2 * q for n, q in zip(shape[-2:], p["padding"]))),
        {**p, "padding": (0, 0)},
        out,
        0.0,
    )
    source = marker if p["count_include_pad"] else padded_ones
    count = 0
    for tap in _taps(p["kernel"]):
        count = count + source[_window(tap, p["dilation"], p["stride"], out)]
    return count


def _avg_fwd(xp: Any, a: Any, **p: Any) -> Any:
    out = _geometry(tuple(a.shape), p)
    padded = _padded(xp, a, p, out, 0.0)
    total = 0
    for tap in _taps(p["kernel"]):
        total = total + padded[(..., *_window(tap, p["dilation"], p["stride"], out))]
    return (total / _avg_counts(xp, tuple(a.shape), p, out)).astype(a.dtype)


def _avg_grad(ctx: Any, g: Any) -> Any:
    return ctx.math.avg_pool2d_backward(g, ctx.saved["self"], **ctx.params)


def _avg_pool_double_backward(ctx: Any, gg: Any) -> tuple[Any, Any]:
    """``avg_pool2d_backward`` is linear in its gradient: ``avg_pool2d(gg)`` for it."""

    return (
        ctx.math.avg_pool2d(gg, **ctx.params) if ctx.needs[0] else None,
        zeros_like(ctx, ctx.saved["self"]) if ctx.needs[1] else None,
    )


def _avg_pool_backward(xp: Any, g: Any, a: Any, **p: Any) -> Any:
    """Each window's gradient shared among the elements it averaged."""
    shape = tuple(a.shape)
    out = tuple(g.shape[-2:])
    share = g / _avg_counts(xp, shape, p, out)
    padded = _padded(xp, xp.zeros(shape, dtype=g.dtype), p, out, 0.0)
    for tap in _taps(p["kernel"]):
        padded[(..., *_window(tap, p["dilation"], p["stride"], out))] += share
    crop = tuple(slice(q, q + n) for q, n in zip(p["padding"], shape[-2:]))
    return padded[(..., *crop)]


declare(
    "avg_pool2d_backward",
    "AvgPool2DBackwardBackward0",
    ("grad_output", "self"),
    _avg_pool_backward,
    _avg_pool_double_backward,
    dtype="same",
    save={"self": ("self",)},
)
AVG_POOL = declare(
    "avg_pool2d",
    "AvgPool2DBackward0",
    ("self",),
    _avg_fwd,
    _avg_grad,
    dtype="same",
    save={"self": None},
    samples=(
        Sample(
            ((1, 2, 4, 5),),
            {
                "kernel": (2, 2),
                "stride": (2, 2),
                "padding": (1, 1),
                "dilation": (1, 1),
                "ceil_mode": True,
                "count_include_pad": False,
            },
        ),
        Sample(
            ((2, 5, 5),),
            {
                "kernel": (3, 3),
                "stride": (2, 2),
                "padding": (1, 1),
                "dilation": (1, 1),
                "ceil_mode": False,
                "count_include_pad": True,
            },
        ),
    ),
)


def _pool_params(
    kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool
) -> dict[str, Any]:
    kernel = _tuple(kernel_size, 2, "kernel_size")
    stride_t = kernel if stride is None or stride == [] else _tuple(stride, 2, "stride")
    padding_t = _tuple(padding, 2, "padding")
    dilation_t = _tuple(dilation, 2, "dilation")
    # ATen's ``pooling_output_shape`` (height, then width), then ``pool2d_shape_check``
    for q, k, d in zip(padding_t, kernel, dilation_t):
        if q > ((k - 1) * d + 1) // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={q}, kernel_size={k} and dilation={d}"
            )
    (kh, kw), (ph, pw) = kernel, padding_t
    if kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}"
        )
    return {
        "kernel": kernel,
        "stride": stride_t,
        "padding": padding_t,
        "dilation": dilation_t,
        "ceil_mode": bool(ceil_mode),
    }


def _check_output(x: Any, p: dict[str, Any]) -> None:
    """``pool2d_shape_check``'s last word: every window count at least one."""
    out = _geometry(tuple(x.shape), p)
    if min(out) < 1:
        c, h, w = x.shape[-3:]
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: "
            f"({c}x{out[0]}x{out[1]}). Output size is too small"
        )


def _check_dims(name: str, x: Any) -> None:
    if x.ndim not in (3, 4):
        raise RuntimeError(
            f"{name}: Expected 3D or 4D (batch mode) tensor for input, but got: {list(x.shape)}"
        )


@public(
    "max_pool2d",
    ("input",),
    (Param("kernel_size", "ints", 2), Param("stride", "ints"), Param("padding", "ints")),
    namespace=NS,
    category="layer",
    doc="largest value of each window",
    method=False,
    example=Example(inputs={"input": (1, 1, 4, 4)}),
)
def max_pool2d(
    input: Any,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    _check_dims("max_pool2d", input)
    params = _pool_params(kernel_size, stride, padding, dilation, ceil_mode)
    _check_output(input, params)
    values, indices = apply_op(MAX_POOL, (input,), params)
    return (values, indices) if return_indices else values


@public(
    "avg_pool2d",
    ("input",),
    (Param("kernel_size", "ints", 2), Param("stride", "ints"), Param("padding", "ints")),
    namespace=NS,
    category="layer",
    doc="mean of each window",
    method=False,
    example=Example(inputs={"input": (1, 1, 4, 4)}),
)
def avg_pool2d(
    input: Any,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: Any = None,
) -> Any:
    _check_dims("avg_pool2d", input)
    params = _pool_params(kernel_size, stride, padding, 1, ceil_mode)
    _check_output(input, params)
    params["count_include_pad"] = count_include_pad
    if divisor_override:
        params["divisor_override"] = divisor_override
    return apply_op(AVG_POOL, (input,), params)


@public(
    "max_pool1d",
    ("input",),
    (Param("kernel_size", "ints", 2), Param("stride", "ints"), Param("padding", "ints")),
    namespace=NS,
    category="layer",
    doc="largest value of each window along the last dim",
    method=False,
    example=Example(inputs={"input": (1, 2, 4)}),
)
def max_pool1d(
    input: Any,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """Pools a unit-height image: ``unsqueeze(-2)``, ``max_pool2d``, ``squeeze(-2)``."""

    def one(v: Any, default: int) -> tuple[int, int]:
        return (default, _tuple(v, 1, "kernel_size")[0])

    stride = kernel_size if stride is None else stride
    if not return_indices:  # ATen's own ``max_pool1d`` checks; with indices, max_pool2d's
        k, st, q, d = (
            _tuple(v, 1, "kernel_size")[0] for v in (kernel_size, stride, padding, dilation)
        )
        if q > k // 2:
            raise RuntimeError(
                "max_pool1d() padding should be at most half of kernel size, but got "
                f"padding={q} and kernel_size={k}"
            )
        n = _out_len(input.shape[-1], k, st, q, d, bool(ceil_mode))
        if n < 1:
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {n}")
    out = max_pool2d(
        input.unsqueeze(-2),
        one(kernel_size, 1),
        one(stride, 1),
        one(padding, 0),
        one(dilation, 1),
        ceil_mode,
        return_indices,
    )
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


@public(
    "avg_pool1d",
    ("input",),
    (Param("kernel_size", "ints", 2), Param("stride", "ints"), Param("padding", "ints")),
    namespace=NS,
    category="layer",
    doc="mean of each window along the last dim",
    method=False,
    example=Example(inputs={"input": (1, 2, 4)}),
)
def avg_pool1d(
    input: Any,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Any:
    stride = kernel_size if stride is None else stride
    k = _tuple(kernel_size, 1, "kernel_size")[0]
    s = _tuple(stride, 1, "stride")[0]
    q = _tuple(padding, 1, "padding")[0]
    return avg_pool2d(
        input.unsqueeze(-2), (1, k), (1, s), (0, q), ceil_mode, count_include_pad
    ).squeeze(-2)
