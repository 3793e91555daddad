"""``F.scaled_dot_product_attention`` as PyTorch 2.13 runs it on the CPU.

ATen picks one of two backends per call (``select_sdp_backend_cpp``): its CPU flash
kernel, one fused node ``ScaledDotProductFlashAttentionForCpuBackward0`` whose edges go
to query, key and value only, wherever its constraints hold (4-D float inputs, no
dropout, one batch size, one head count or a grouped one, one head size, a 2-D or 4-D
mask not requiring grad, no empty sequence); otherwise the math composite
(``_scaled_dot_product_attention_math``): query and the transposed key each scaled by
``sqrt(scale)`` (``MulBackward1``), ``matmul``, the mask added in place, ``_safe_softmax``
(``SafeSoftmaxBackward0``: rows masked out entirely are zeros, not NaN), dropout, then
``matmul`` with value. Which one runs decides every ``grad_fn`` a learner sees.
"""

from __future__ import annotations

import math
from typing import Any

from engine import dtypes
from engine.catalog import Example, Param, Port, public
from engine.creation import full, ones
from engine.nn.dropout import dropout
from engine.ops import pointwise
from engine.ops.attention import FLASH, SAFE_SOFTMAX, _scale
from engine.ops.composites import repeat_interleave
from engine.ops.core import _broadcast_error, apply_op
from engine.ops.linalg import matmul

#: The CPU flash kernel's dtypes (of the engine's: it has no bfloat16).
_FLASH_DTYPES = (dtypes.float32, dtypes.float64, dtypes.float16)


# -- backend choice -----------------------------------------------------------------------
def _dims_fit(mask_dim: int, target: int) -> bool:
    return mask_dim == target or mask_dim == 1


def _flash_fits(q: Any, k: Any, v: Any, mask: Any, dropout_p: float, enable_gqa: bool) -> bool:
    """``use_flash_attention_cpp``'s constraints, in its order."""
    if dropout_p > 0.0 or not (q.ndim == k.ndim == v.ndim == 4):
        return False
    if not (q.shape[0] == k.shape[0] == v.shape[0]):
        return False
    qh, kh, vh = q.shape[-3], k.shape[-3], v.shape[-3]
    if enable_gqa:
        if kh != vh or qh % kh:
            return False
    elif not (qh == kh == vh):
        return False
    if mask is not None:
        if mask.requires_grad:
            return False
        if not (_dims_fit(mask.shape[-2], q.shape[2]) and _dims_fit(mask.shape[-1], k.shape[2])):
            return False
        if mask.ndim == 4:
            if not (_dims_fit(mask.shape[0], q.shape[0]) and _dims_fit(mask.shape[1], qh)):
                return False
        elif mask.ndim != 2:
            return False
    if not (q.shape[-1] == k.shape[-1] == v.shape[-1]):
        return False
    if q.shape[-2] == 0 or k.shape[-2] == 0:
        return False
    if any(t.stride(-1) != 1 for t in (q, k, v)):
        return False
    return q.dtype == k.dtype == v.dtype and q.dtype in _FLASH_DTYPES


def _validate(q: Any, k: Any, v: Any, mask: Any) -> None:
    """``validate_sdpa_input``'s checks and messages."""
    if not (q.dtype == k.dtype and q.dtype == v.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{q.dtype.cpp_name} key.dtype: {k.dtype.cpp_name} and "
            f"value.dtype: {v.dtype.cpp_name} instead."
        )
    if not (q.device == k.device and q.device == v.device):
        raise RuntimeError(
            "Expected query, key, and value to have the same device type, but got "
            f"query.device: {q.device} key.device: {k.device} and value.device: {v.device} "
            "instead."
        )
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {q.ndim} key.dim: {k.ndim} and value.dim: {v.ndim} instead."
        )
    if mask is not None and mask.dtype not in (dtypes.bool_, dtypes.float32, q.dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {mask.dtype.cpp_name} and  query.dtype: "
            f"{q.dtype.cpp_name} instead."
        )


def _additive(mask: Any, dtype: Any) -> Any:
    """``convert_boolean_attn_mask``: a bool mask becomes 0 where True, -inf where False."""
    if mask is None or mask.dtype != dtypes.bool_:
        return mask
    return pointwise.where(mask, 0.0, full((), -math.inf, dtype=dtype, device=mask.device))


# -- the math composite -------------------------------------------------------------------
def _math(
    q: Any, k: Any, v: Any, mask: Any, dropout_p: float, is_causal: bool, scale: Any, gqa: bool
) -> Any:
    origin = q.dtype
    if origin == dtypes.float16:  # kept in float for accuracy, as ATen's math path does
        q, k, v = q.to(dtypes.float32), k.to(dtypes.float32), v.to(dtypes.float32)
    negative = scale is not None and scale < 0.0
    factor = math.sqrt(_scale(q.shape[-1], abs(scale) if negative else scale))
    query = apply_op(pointwise.MUL_SCALAR, (q,), {"other": -factor if negative else factor})
    if is_causal:
        if mask is not None:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                "is_causal=True"
            )
        causal = ones(q.shape[-2], k.shape[-2], dtype=dtypes.bool_, device=q.device).tril()
        mask = _additive(causal, query.dtype)
    if gqa and not (q.shape[-3] == k.shape[-3] == v.shape[-3]):
        if q.shape[-3] % k.shape[-3] or q.shape[-3] % v.shape[-3]:
            raise RuntimeError(
                "Number of heads in key and value must divide the number of heads in "
            )
        k = repeat_interleave(k, q.shape[-3] // k.shape[-3], -3)
        v = repeat_interleave(v, q.shape[-3] // v.shape[-3], -3)
    key_t = apply_op(pointwise.MUL_SCALAR, (k.transpose(-2, -1),), {"other": factor})
    attn = matmul(query, key_t)
    if mask is not None:
        clash = _broadcast_error([attn, mask])
        if clash is not None:
            raise clash
        attn.add_(mask)
    attn = apply_op(SAFE_SOFTMAX, (attn,), {"dim": attn.ndim - 1})
    if dropout_p > 0.0:
        if dropout_p > 1.0:
            raise RuntimeError(
                f"dropout probability has to be between 0 and 1, but got {dropout_p}"
            )
        attn = dropout(attn, dropout_p, True)
    return matmul(attn, v).to(origin)


@public(
    "scaled_dot_product_attention",
    ("query", "key", "value", Port("attn_mask", optional=True)),
    (
        Param("dropout_p", "float"),
        Param("is_causal", "bool"),
        Param("scale", "optional_number"),
        Param("enable_gqa", "bool"),
    ),
    namespace="torch.nn.functional",
    category="layer",
    doc="softmax(query @ keyᵀ · scale + mask) @ value, by the backend ATen picks",
    method=False,
    example=Example(
        inputs={
            "query": (1, 2, 3, 4),
            "key": (1, 2, 5, 4),
            "value": (1, 2, 5, 4),
            "attn_mask": (3, 5),
        }
    ),
)
def scaled_dot_product_attention(
    query: Any,
    key: Any,
    value: Any,
    attn_mask: Any = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Any:
    """``softmax(query @ key^T * scale + mask) @ value``, by the backend ATen would pick
    for these inputs (``scale`` and ``enable_gqa`` keyword-only, as in PyTorch)."""
    _validate(query, key, value, attn_mask)
    if _flash_fits(query, key, value, attn_mask, dropout_p, enable_gqa):
        mask = _additive(attn_mask, query.dtype)
        params = {
            "attn_mask": None if mask is None else mask._data,
            "dropout_p": float(dropout_p),
            "is_causal": bool(is_causal),
            "scale": scale,
        }
        return apply_op(FLASH, (query, key, value), params)
    mask = _additive(attn_mask, query.dtype)
    return _math(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa)
