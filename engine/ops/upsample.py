"""``F.interpolate``'s nearest and (bi)linear modes: ``UpsampleNearest1DBackward0``,
``UpsampleNearest2DBackward0``, ``UpsampleLinear1DBackward0`` and
``UpsampleBilinear2DBackward0``, each over its backward op (whose own gradient is the
forward op again: both are linear).

Every spatial dimension is resampled on its own (last first, so the sums run in ATen's
order): each output position reads one or two input positions with weights that ATen
computes in the input's computation type (float for float32), its rounding included.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.catalog import Example, Param, public
from engine.ops.adaptive_pool import adaptive_avg_pool2d
from engine.ops.core import Sample, apply_op, declare

NS = "torch.nn.functional"


def _scale(n_in: int, n_out: int, scale: float | None, t: Any) -> Any:
    """ATen's ``compute_scales_value``: the inverse of a given factor, else in/out."""
    return t(1.0 / scale) if scale is not None and scale > 0 else t(n_in) / t(n_out)


def _taps(
    n_in: int, n_out: int, scale: float | None, linear: bool, corners: bool, t: Any
) -> tuple[Any, Any, Any, Any]:
    """(first index, second index, their weights) of each output position; nearest
    has one tap (the second weight None)."""
    dst = np.arange(n_out)
    if not linear:
        if n_out == n_in:
            return dst, None, None, None
        if n_out == 2 * n_in:
            return dst >> 1, None, None, None
        s = _scale(n_in, n_out, scale, np.float32)
        src = np.floor(dst.astype(np.float32) * s).astype(np.int64)
        return np.minimum(src, n_in - 1), None, None, None
    if corners:
        s = t(n_in - 1) / t(n_out - 1) if n_out > 1 else t(0)
        real = s * dst.astype(t)
    else:
        s = _scale(n_in, n_out, scale, t)
        real = np.maximum(s * (dst.astype(t) + t(0.5)) - t(0.5), t(0))
    i0 = np.minimum(np.floor(real).astype(np.int64), n_in - 1)
    lam1 = np.clip(real - i0.astype(t), t(0), t(1)).astype(t)
    lam0 = (t(1) - lam1).astype(t)
    i1 = i0 + (i0 < n_in - 1)
    return i0, i1, lam0, lam1


def _shape_along(ndim: int, axis: int, n: int) -> tuple[int, ...]:
    return tuple(n if d == axis else 1 for d in range(ndim))


def _opmath(dtype: Any) -> Any:
    return np.float64 if dtype == np.float64 else np.float32


def _resample(
    xp: Any,
    a: Any,
    output_size: tuple[int, ...],
    scales: tuple[Any, ...],
    linear: bool,
    align_corners: bool = False,
) -> Any:
    t = _opmath(a.dtype)
    k = len(output_size)
    for j in reversed(range(k)):
        axis = a.ndim - k + j
        i0, i1, l0, l1 = _taps(a.shape[axis], output_size[j], scales[j], linear, align_corners, t)
        first = xp.take(a, xp.asarray(i0), axis=axis)
        if i1 is None:
            a = first
            continue
        shape = _shape_along(a.ndim, axis, len(i0))
        w0 = xp.asarray(l0.astype(a.dtype).reshape(shape))
        w1 = xp.asarray(l1.astype(a.dtype).reshape(shape))
        a = first * w0 + xp.take(a, xp.asarray(i1), axis=axis) * w1
    return a


def _resample_backward(
    xp: Any,
    g: Any,
    input_size: tuple[int, ...],
    output_size: tuple[int, ...],
    scales: tuple[Any, ...],
    linear: bool,
    align_corners: bool = False,
) -> Any:
    t = _opmath(g.dtype)
    k = len(output_size)
    for j in range(k):
        axis = g.ndim - k + j
        n_in = input_size[len(input_size) - k + j]
        i0, i1, l0, l1 = _taps(n_in, output_size[j], scales[j], linear, align_corners, t)
        moved = xp.moveaxis(g, axis, -1)
        out = xp.zeros((*moved.shape[:-1], n_in), dtype=g.dtype)
        if i1 is None:
            xp.add.at(out, (..., xp.asarray(i0)), moved)
        else:
            xp.add.at(out, (..., xp.asarray(i0)), moved * xp.asarray(l0.astype(g.dtype)))
            xp.add.at(out, (..., xp.asarray(i1)), moved * xp.asarray(l1.astype(g.dtype)))
        g = xp.moveaxis(out, -1, axis)
    return g


def _declare(name: str, grad_fn: str, linear: bool, sample_size: tuple[int, ...]) -> Any:
    spatial = len(sample_size) - 2
    out = tuple(2 * n + 1 for n in sample_size[2:])
    params: dict[str, Any] = {"output_size": out, "scales": (None,) * spatial}
    if linear:
        params["align_corners"] = False

    def fwd(xp: Any, a: Any, **p: Any) -> Any:
        return _resample(xp, a, linear=linear, **p)

    def bwd(xp: Any, g: Any, input_size: tuple[int, ...], **p: Any) -> Any:
        return _resample_backward(xp, g, input_size, linear=linear, **p)

    declare(
        f"{name}_backward",
        f"{grad_fn}BackwardBackward0",
        ("grad_output",),
        bwd,
        lambda ctx, gg: getattr(ctx.math, name)(
            gg, **{k: v for k, v in ctx.params.items() if k != "input_size"}
        ),
        dtype="same",
        samples=(Sample(((*sample_size[:2], *out),), {**params, "input_size": sample_size}),),
    )
    return declare(
        name,
        f"{grad_fn}Backward0",
        ("self",),
        fwd,
        lambda ctx, g: getattr(ctx.math, f"{name}_backward")(
            g, input_size=tuple(ctx.shapes[0]), **ctx.params
        ),
        dtype="same",
        samples=(
            Sample((sample_size,), params),
            Sample(
                (sample_size,), {**params, "output_size": tuple(n - 1 for n in sample_size[2:])}
            ),
        ),
    )


_OPS = {
    ("nearest", 3): _declare("upsample_nearest1d", "UpsampleNearest1D", False, (2, 2, 3)),
    ("nearest", 4): _declare("upsample_nearest2d", "UpsampleNearest2D", False, (1, 2, 3, 2)),
    ("linear", 3): _declare("upsample_linear1d", "UpsampleLinear1D", True, (2, 2, 3)),
    ("bilinear", 4): _declare("upsample_bilinear2d", "UpsampleBilinear2D", True, (1, 2, 3, 2)),
}
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _is_integer(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


@public(
    "interpolate",
    ("input",),
    (
        Param("size", "sizes"),
        Param("scale_factor", "float"),
        Param("mode", "str", choices=("nearest", "linear", "bilinear", "area")),
    ),
    namespace=NS,
    category="layer",
    doc="resample the spatial dimensions (nearest or linear taps)",
    method=False,
    example=Example(inputs={"input": (1, 2, 3, 3)}, params={"scale_factor": 2.0}),
)
def interpolate(
    input: Any,  # noqa: A002
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Any:
    """``torch.nn.functional.interpolate``'s argument handling, line for line."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the "
                "interpolating modes: linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    scale_factors: Any
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and output "
                    f"size of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                    "format and output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(x) for x in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(x) for x in size]}"
                )
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    if mode == "area" and input.ndim == 4:
        return adaptive_avg_pool2d(input, output_size)
    if mode == "bilinear" and input.ndim == 3:
        raise NotImplementedError("Got 3D input, but bilinear mode needs 4D input")
    if mode == "linear" and input.ndim == 4:
        raise NotImplementedError("Got 4D input, but linear mode needs 3D input")
    op = _OPS.get((mode, input.ndim))
    if op is None or antialias:
        if input.ndim in (3, 4, 5) and mode in _MODES.split(" | "):
            raise NotImplementedError(
                f"F.interpolate(mode='{mode}') on a {input.ndim}D input is not supported by "
                "the engine"
            )
        raise NotImplementedError(
            "Input Error: Only 3D, 4D and 5D input Tensors supported"
            f" (got {input.ndim}D) for the modes: {_MODES} (got {mode})"
        )
    return _upsample(op, input, output_size, scale_factors, mode != "nearest", align_corners)


def _upsample(
    op: Any,
    input: Any,
    size: Any,
    factors: Any,
    linear: bool,
    corners: Any,  # noqa: A002
) -> Any:
    """ATen's ``upsample_*``: the output size from the factors (truncated), which the
    kernel then reads as given (their inverses, not in/out)."""
    spatial = tuple(input.shape[2:])
    if size is None:
        size = [math.floor(n * f) for n, f in zip(spatial, factors, strict=True)]
        scales = tuple(float(f) for f in factors)
    else:
        scales = (None,) * len(spatial)
    size = tuple(int(s) for s in size)
    if any(n <= 0 for n in spatial) or any(s <= 0 for s in size):
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input "
            f"({_dims(spatial)}) and output ({_dims(size)})"
        )
    params: dict[str, Any] = {"output_size": size, "scales": scales}
    if linear:
        params["align_corners"] = bool(corners)
    return apply_op(op, (input,), params)


def _dims(sizes: tuple[int, ...]) -> str:
    names = ("D", "H", "W")[-len(sizes) :] if len(sizes) > 1 else ("W",)
    return ", ".join(f"{n}: {s}" for n, s in zip(names, sizes, strict=True))
