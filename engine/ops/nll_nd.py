"""``nll_loss`` over spatial inputs, ``(N, C, d1, ...)``, as ATen's ``nll_loss_nd`` does it:
4-d inputs go to ``nll_loss2d`` (``NllLoss2DBackward0``); 3-d and 5-d or more are viewed as
``(N, C, 1, -1)`` first and, unreduced, viewed back to ``(N, d1, ...)``.  The values are the
2-d loss's with the class dimension moved last."""

from __future__ import annotations

from typing import Any

from engine.backend import array_module
from engine.ops import pointwise
from engine.ops.core import Sample, apply_op, declare
from engine.ops.nn import _nll_fwd, _nll_grad_fwd
from engine.tensor import Tensor


def _fwd(
    xp: Any,
    a: Any,
    target: Any,
    weight: Any = None,
    reduction: str = "mean",
    ignore_index: int = -100,
) -> Any:
    return _nll_fwd(xp, xp.moveaxis(a, 1, -1), target, weight, reduction, ignore_index)


def _grad_fwd(
    xp: Any, g: Any, a: Any, target: Any, weight: Any, reduction: str, ignore_index: int
) -> Any:
    moved = xp.moveaxis(a, 1, -1)
    out = _nll_grad_fwd(xp, g, moved, target, weight, reduction, ignore_index)
    return xp.moveaxis(out, -1, 1).copy()


def _params(ctx: Any) -> dict[str, Any]:
    return {
        "target": ctx.params["target"],
        "weight": ctx.params.get("weight"),
        "reduction": ctx.params.get("reduction", "mean"),
        "ignore_index": ctx.params.get("ignore_index", -100),
    }


def _double_backward(ctx: Any, gg: Any) -> tuple[Any, Any]:
    """Linear in its gradient, as the 2-d loss's: ``nll_loss2d(gg)``, zeros for ``self``."""

    data = gg if ctx.math is pointwise.ARRAY_MATH else gg._data
    zeros = array_module(data).zeros(tuple(ctx.shapes[1]), dtype=data.dtype)
    if ctx.math is not pointwise.ARRAY_MATH:
        zeros = Tensor._wrap(zeros)
    return (
        ctx.math.nll_loss2d(gg, **_params(ctx)) if ctx.needs[0] else None,
        zeros if ctx.needs[1] else None,
    )


declare(
    "nll_loss2d_backward",
    "NllLoss2DBackwardBackward0",
    ("grad", "self"),
    _grad_fwd,
    _double_backward,
    dtype="same",
)
NLL2D = declare(
    "nll_loss2d",
    "NllLoss2DBackward0",
    ("self",),
    _fwd,
    lambda ctx, g: ctx.math.nll_loss2d_backward(g, ctx.saved["self"], **_params(ctx)),
    save={"self": None},
    saved_params=("target", "weight"),
    dtype="same",
    samples=(Sample(((2, 3, 2, 2),), {"target": "spatial_classes"}),),
)


def check_nd(input: Any, target: Any) -> None:  # noqa: A002
    """The shape checks, before the targets' bounds, as the kernels make them."""
    if input.ndim == 4:
        if target.ndim != 3:
            raise RuntimeError(
                "only batches of spatial targets supported (3D tensors) but got targets of "
                f"dimension: {target.ndim}"
            )
        if tuple(target.shape) != (input.shape[0], *input.shape[2:]):
            raise RuntimeError(
                f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}"
            )
        return
    out_size = [input.shape[0], *input.shape[2:]]
    if list(target.shape[1:]) != out_size[1:]:
        raise RuntimeError(f"Expected target size {out_size}, got {list(target.shape)}")


def nll_loss_nd(input: Any, target: Any, params: dict[str, Any]) -> Any:  # noqa: A002
    """``nll_loss2d`` on a 4-d input, else on ``input.contiguous().view(n, c, 1, -1)``."""
    if input.ndim == 4:
        return apply_op(NLL2D, (input,), params)
    n, c = input.shape[0], input.shape[1]
    flat = input.contiguous().view(n, c, 1, -1)
    params = {**params, "target": params["target"].reshape(n, 1, -1)}
    out = apply_op(NLL2D, (flat,), params)
    if params["reduction"] == "none":
        return out.view([n, *input.shape[2:]])
    return out
