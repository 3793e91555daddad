"""``F.multi_head_attention_forward``: PyTorch's Python composite, so every ``grad_fn``
of ``nn.MultiheadAttention`` (and of the transformer layers built on it) is PyTorch's.

The inputs are projected (one ``linear`` and an unflatten/transpose/``contiguous`` split
for packed self-attention weights, a split of the weights for encoder-decoder attention,
three ``linear`` calls for separate weights), folded to ``(batch * heads, seq, head_dim)``
and then either attended by hand (``need_weights=True``: ``bmm``/``baddbmm``, ``softmax``,
dropout, ``bmm``; the weights are returned, averaged over heads by default) or handed to
``scaled_dot_product_attention`` as 4-D tensors (``need_weights=False``, the transformer
layers' call), whose CPU backend choice then shows in the graph.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from engine import dtypes
from engine.creation import zeros, zeros_like
from engine.nn.dropout import dropout
from engine.nn.sdpa import scaled_dot_product_attention
from engine.ops.linalg import bmm
from engine.ops.nn import linear, softmax
from engine.ops.padding import pad
from engine.ops.products import baddbmm
from engine.ops.shape import cat


def _mha_shape_check(q: Any, k: Any, v: Any, kpm: Any, mask: Any, heads: int) -> bool:
    """``_mha_shape_check``: whether the call is batched; PyTorch's assertions otherwise."""
    if q.dim() == 3:
        if k.dim() != 3 or v.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{k.dim()}-D and {v.dim()}-D tensors respectively"
            )
        if kpm is not None and kpm.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D "
                f"but found {kpm.dim()}-D tensor instead"
            )
        if mask is not None and mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                f"but found {mask.dim()}-D tensor instead"
            )
        return True
    if q.dim() == 2:
        if k.dim() != 2 or v.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{k.dim()}-D and {v.dim()}-D tensors respectively"
            )
        if kpm is not None and kpm.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or "
                f"1-D but found {kpm.dim()}-D tensor instead"
            )
        if mask is not None:
            if mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or "
                    f"3-D but found {mask.dim()}-D tensor instead"
                )
            expected = (heads, q.shape[0], k.shape[0])
            if mask.dim() == 3 and tuple(mask.shape) != expected:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {expected} but got {mask.shape}"
                )
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received {q.dim()}-D query tensor"
    )


def _canonical_mask(
    mask: Any,
    mask_name: str,
    other_type: Any,
    other_name: str,
    target_type: Any,
    check_other: bool = True,
) -> Any:
    """A bool mask as an additive float one (``-inf`` where True); a float one as is."""
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype != dtypes.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same "
            "type for both instead.",
            stacklevel=2,
        )
    if not is_float:
        mask = zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(input: Any) -> Any:  # noqa: A002
    return None if input is None else input.dtype


def _in_projection_packed(q: Any, k: Any, v: Any, w: Any, b: Any = None) -> tuple[Any, Any, Any]:
    """One ``linear`` for self-attention, two for shared
    key/value, three otherwise."""
    e = q.size(-1)
    if k is v:
        if q is k:
            proj = linear(q, w, b).unflatten(-1, (3, e))
            proj = proj.unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, e))
        kv = kv.unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(
    q: Any,
    k: Any,
    v: Any,
    w_q: Any,
    w_k: Any,
    w_v: Any,
    b_q: Any = None,
    b_k: Any = None,
    b_v: Any = None,
) -> tuple[Any, Any, Any]:
    """Three ``linear`` calls, the weights' shapes checked first."""
    ws, bs = (w_q, w_k, w_v), (b_q, b_k, b_v)
    eq, ek, ev = q.size(-1), k.size(-1), v.size(-1)
    wants = (("query", ws[0], (eq, eq)), ("key", ws[1], (eq, ek)), ("value", ws[2], (eq, ev)))
    for what, w, want in wants:
        if tuple(w.shape) != want:
            raise AssertionError(f"expecting {what} weights shape of {want}, but got {w.shape}")
    for what, b in (("query", bs[0]), ("key", bs[1]), ("value", bs[2])):
        if b is not None and tuple(b.shape) != (eq,):
            raise AssertionError(f"expecting {what} bias shape of {(eq,)}, but got {b.shape}")
    return linear(q, ws[0], bs[0]), linear(k, ws[1], bs[1]), linear(v, ws[2], bs[2])


def multi_head_attention_forward(
    query: Any,
    key: Any,
    value: Any,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Any,
    in_proj_bias: Any,
    bias_k: Any,
    bias_v: Any,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Any,
    out_proj_bias: Any,
    training: bool = True,
    key_padding_mask: Any = None,
    need_weights: bool = True,
    attn_mask: Any = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Any = None,
    k_proj_weight: Any = None,
    v_proj_weight: Any = None,
    static_k: Any = None,
    static_v: Any = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Any, Any]:
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask", query.dtype
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint stands in for the mask: SDPA's own causal masking
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None"
                )
        biases = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(
            query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, *biases
        )

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                    f"{(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            want = (bsz * num_heads, tgt_len, src_len)
            if tuple(attn_mask.shape) != want:
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {want}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _fold(k, static_k, "static_k", bsz * num_heads, head_dim)
    v = _fold(v, static_v, "static_v", bsz * num_heads, head_dim)

    if add_zero_attn:
        shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(shape, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(
                f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                f"{key_padding_mask.shape[0]}"
            )
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                f"{key_padding_mask.shape[1]}"
            )
        key_padding_mask = (
            key_padding_mask.view(bsz, 1, 1, src_len)
            .expand(-1, num_heads, -1, -1)
            .reshape(bsz * num_heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        e = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(e))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not batched:
        out = out.squeeze(1)
    return out, None


def _fold(x: Any, static: Any, name: str, rows: int, head_dim: int) -> Any:
    """Key or value as ``(batch * heads, seq, head_dim)``, or the given static one."""
    if static is None:
        return x.view(x.shape[0], rows, head_dim).transpose(0, 1)
    if static.size(0) != rows:
        raise AssertionError(f"expecting {name}.size(0) of {rows}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static
