"""The ops of ``F.scaled_dot_product_attention`` (``engine/nn/sdpa.py`` composes them):
``_safe_softmax`` and the CPU flash kernel.

ATen picks one of two backends per call (``select_sdp_backend_cpp``): its CPU flash
kernel, one fused node ``ScaledDotProductFlashAttentionForCpuBackward0`` whose edges go
to query, key and value only, wherever its constraints hold (4-D inputs, no dropout, one
batch size, one head count or a grouped one, one head size, a 2-D or 4-D mask not
requiring grad, no empty sequence); otherwise the math composite
(``_scaled_dot_product_attention_math``): query and the transposed key each scaled by
``sqrt(scale)`` (``MulBackward1``), ``matmul``, the mask added in place, ``_safe_softmax``
(``SafeSoftmaxBackward0``: rows masked out entirely are zeros, not NaN), dropout, then
``matmul`` with value. Both are written here; which one runs decides every ``grad_fn``.
"""

from __future__ import annotations

import math
from typing import Any

from engine.backend import array_module
from engine.ops.core import ARRAY_MATH, Sample, apply_op, declare
from engine.ops.nn import _softmax_fwd


# -- _safe_softmax ----------------------------------------------------------------------
def _safe_softmax_fwd(xp: Any, a: Any, dim: int) -> Any:
    out = _softmax_fwd(xp, a, dim)
    masked = xp.all(a == a.dtype.type(-math.inf), axis=dim, keepdims=True)
    return xp.where(masked, xp.zeros((), out.dtype), out)


SAFE_SOFTMAX = declare(
    "safe_softmax",
    "SafeSoftmaxBackward0",
    ("self",),
    _safe_softmax_fwd,
    lambda ctx, g: ctx.math.softmax_backward_data(g, ctx.saved["result"], dim=ctx.params["dim"]),
    dtype="float",
    save={"result": None},
    samples=(Sample(((2, 3),), {"dim": 1}),),
    quiet=True,
)


# -- the CPU flash kernel -----------------------------------------------------------------
def _probabilities(xp: Any, q: Any, k: Any, mask: Any, is_causal: bool, scale: float) -> Any:
    """The attention weights the flash kernel forms block by block: ``softmax(q k^T *
    scale + mask)``, causal positions above the diagonal out, rows out entirely zero."""
    t = q.dtype.type
    att = (q @ xp.swapaxes(k, -1, -2)) * t(scale)
    if mask is not None:
        att = att + mask.astype(q.dtype, copy=False)
    if is_causal:
        rows, cols = att.shape[-2], att.shape[-1]
        keep = xp.tril(xp.ones((rows, cols), dtype=bool))
        att = xp.where(keep, att, t(-math.inf))
    top = att.max(axis=-1, keepdims=True)
    top = xp.where(xp.isfinite(top), top, t(0))
    e = xp.exp(att - top)
    total = e.sum(axis=-1, keepdims=True)
    return xp.where(total > 0, e / xp.where(total > 0, total, t(1)), t(0))


def _repeat_heads(xp: Any, x: Any, heads: int) -> Any:
    """Key/value heads repeated to the query's count (grouped-query attention)."""
    rep = heads // x.shape[-3]
    return x if rep == 1 else xp.repeat(x, rep, axis=-3)


def _fold_heads(g: Any, heads: int) -> Any:
    """The gradient of ``_repeat_heads``: each group of repeated heads summed."""
    if g.shape[-3] == heads:
        return g
    rep = g.shape[-3] // heads
    return g.reshape(*g.shape[:-3], heads, rep, *g.shape[-2:]).sum(axis=-3)


def _flash_fwd(
    xp: Any, q: Any, k: Any, v: Any, attn_mask: Any, dropout_p: float, is_causal: bool, scale: Any
) -> Any:
    heads = q.shape[-3]
    like, (q, k, v) = q, _accumulating(q, k, v)
    k, v = _repeat_heads(xp, k, heads), _repeat_heads(xp, v, heads)
    p = _probabilities(xp, q, k, attn_mask, is_causal, _scale(q.shape[-1], scale))
    # the kernel reads as many rows of value as key has (a longer value's rest is unread);
    # its output takes query's memory layout (``empty_like(query)``), which later views see
    out = xp.empty_like(like)
    out[...] = p @ v[..., : k.shape[-2], :]
    return out


def _accumulating(*arrays: Any) -> tuple[Any, ...]:
    """Half-precision inputs computed in float, as the kernel accumulates them."""
    if arrays[0].dtype.itemsize >= 4:
        return arrays
    return tuple(a.astype("float32") for a in arrays)


def _flash_grads(ctx: Any, g: Any) -> tuple[Any, Any, Any]:
    if ctx.math is not ARRAY_MATH:
        return _flash_backward_recorded(ctx, g)
    return _flash_backward(ctx.saved["query"], ctx.saved["key"], ctx.saved["value"], g, ctx.params)


def _flash_backward(q: Any, k0: Any, v0: Any, g: Any, p: dict[str, Any]) -> tuple[Any, Any, Any]:
    """``_scaled_dot_product_flash_attention_for_cpu_backward``: the softmax's gradient
    through the recomputed weights, summed back over repeated heads."""
    xp = array_module(q)
    dtype = q.dtype
    q, k0, v0, g = _accumulating(q, k0, v0, g)
    heads = q.shape[-3]
    k, v = _repeat_heads(xp, k0, heads), _repeat_heads(xp, v0[..., : k0.shape[-2], :], heads)
    scale = q.dtype.type(_scale(q.shape[-1], p["scale"]))
    w = _probabilities(xp, q, k, p["attn_mask"], p["is_causal"], float(scale))
    grad_v = xp.swapaxes(w, -1, -2) @ g
    dw = g @ xp.swapaxes(v, -1, -2)
    ds = w * (dw - (dw * w).sum(axis=-1, keepdims=True))
    grad_q = (ds @ k) * scale
    grad_k = (xp.swapaxes(ds, -1, -2) @ q) * scale
    grad_v = _fold_heads(grad_v, v0.shape[-3])
    if v0.shape[-2] != grad_v.shape[-2]:
        rest = xp.zeros((*grad_v.shape[:-2], v0.shape[-2] - grad_v.shape[-2], grad_v.shape[-1]))
        grad_v = xp.concatenate([grad_v, rest.astype(grad_v.dtype)], axis=-2)
    grads = (grad_q, _fold_heads(grad_k, k0.shape[-3]), grad_v)
    return tuple(x.astype(dtype, copy=False) for x in grads)


_ROLES = ("grad_out", "query", "key", "value", "output")


def _flash_backward_recorded(ctx: Any, g: Any) -> tuple[Any, Any, Any]:
    """Under ``create_graph`` the backward kernel is recorded as PyTorch records it: a
    ``NotImplemented`` node (no derivative in ``derivatives.yaml``) that refuses backward,
    its edges to those of grad_out, query, key, value and output that require grad."""
    tensors = (g, ctx.saved["query"], ctx.saved["key"], ctx.saved["value"], ctx.saved["result"])
    edged = tuple(t for t in tensors if t.requires_grad)
    roles = tuple(r for r, t in zip(_ROLES, tensors, strict=True) if t.requires_grad)
    fixed = {r: t._data for r, t in zip(_ROLES, tensors, strict=True) if not t.requires_grad}
    return apply_op(FLASH_BACKWARD, edged, {**ctx.params, "roles": roles, "fixed": fixed})


def _flash_backward_fwd(xp: Any, *arrays: Any, roles: Any, fixed: Any, **p: Any) -> Any:
    given = {**fixed, **dict(zip(roles, arrays, strict=True))}
    return _flash_backward(given["query"], given["key"], given["value"], given["grad_out"], p)


def _refuse_double_backward(ctx: Any, *grads: Any) -> Any:
    raise RuntimeError(
        "derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not "
        "implemented"
    )


FLASH = declare(
    "scaled_dot_product_flash_attention_for_cpu",
    "ScaledDotProductFlashAttentionForCpuBackward0",
    ("query", "key", "value"),
    _flash_fwd,
    _flash_grads,
    dtype="same",
    save={"query": None, "key": None, "value": None, "result": None},
    saved_params=("attn_mask",),
    samples=(
        Sample(
            ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)),
            _flash_params := {
                "attn_mask": None,
                "dropout_p": 0.0,
                "is_causal": False,
                "scale": None,
            },
        ),
        Sample(((2, 1, 3, 2), (2, 1, 3, 2), (2, 1, 3, 2)), {**_flash_params, "is_causal": True}),
    ),
    quiet=True,
)
FLASH_BACKWARD = declare(
    "scaled_dot_product_flash_attention_for_cpu_backward",
    "torch::autograd::NotImplemented",
    ("tensors",),
    _flash_backward_fwd,
    _refuse_double_backward,
    dtype="same",
    outputs=3,
    every_output=True,
)


def _scale(head_dim: int, scale: Any) -> float:
    """``sdp::calculate_scale``: the given scale, else ``1 / sqrt(head_dim)``."""
    return 1.0 / math.sqrt(head_dim) if scale is None else float(scale)
