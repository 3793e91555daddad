"""``nn.MultiheadAttention``: PyTorch's parameters (packed ``in_proj_weight`` or separate
``q/k/v_proj_weight`` where ``kdim``/``vdim`` differ), its initialisation (Xavier-uniform
weights, zero biases, Xavier-normal ``bias_k``/``bias_v``, in that order, so seeded values
equal PyTorch's) and its forward through ``F.multi_head_attention_forward``.

PyTorch's "fast path" (``_native_multi_head_attention``) is taken only where nothing can
record a graph (evaluation mode, no grad needed, batch-first self-attention...); there the
slow path is run here under ``no_grad``, which shows the same tensors without a
``grad_fn`` (with the weights formed explicitly, so rows masked out entirely are NaN as
the kernel's are)."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from engine import grad_mode
from engine.creation import empty
from engine.nn import init
from engine.nn.modules.linear import NonDynamicallyQuantizableLinear
from engine.nn.modules.module import Module
from engine.nn.multi_head_attention import (
    _canonical_mask,
    _none_or_dtype,
    multi_head_attention_forward,
)
from engine.nn.parameter import Parameter
from engine.tensor import Tensor


def _requires_grad(x: Any) -> bool:
    return x is not None and x.requires_grad


class MultiheadAttention(Module):
    __constants__ = ["batch_first"]

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **factory))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **factory))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **factory))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **factory))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **factory))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **factory)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **factory))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **factory))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def _fast_path(self, query: Tensor, key: Tensor, value: Tensor) -> bool:
        """Whether PyTorch would run ``_native_multi_head_attention`` (no graph)."""
        if query.dim() != 3 or query is not key or key is not value:
            return False
        if self.in_proj_weight is None or query.dtype != self.in_proj_weight.dtype:
            return False
        if self.in_proj_bias is not None and query.dtype != self.in_proj_bias.dtype:
            return False
        if self.training or self.num_heads % 2 or not self.batch_first:
            return False
        if self.bias_k is not None or self.bias_v is not None or self.add_zero_attn:
            return False
        args = (query, self.in_proj_weight, self.in_proj_bias, *self.out_proj.parameters())
        return not (grad_mode.is_grad_enabled() and any(_requires_grad(x) for x in args))

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        float_masks = any(
            m is not None and m.dtype.is_floating_point for m in (attn_mask, key_padding_mask)
        )
        key_padding_mask = _canonical_mask(
            key_padding_mask,
            "key_padding_mask",
            _none_or_dtype(attn_mask),
            "attn_mask",
            query.dtype,
        )
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        fast = not float_masks and self._fast_path(query, key, value)
        return self._attend(
            query,
            key,
            value,
            key_padding_mask,
            need_weights,
            attn_mask,
            average_attn_weights,
            is_causal,
            kernel=fast,
        )

    def _attend(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None,
        need_weights: bool,
        attn_mask: Tensor | None,
        average_attn_weights: bool,
        is_causal: bool,
        kernel: bool,
    ) -> tuple[Tensor, Tensor | None]:
        """The forward past the mask handling; ``kernel``: where PyTorch runs its fused
        kernel instead (no graph, and the weights always formed by a masked softmax, so a
        row masked out entirely is NaN, as in the explicit path)."""
        batched = query.dim() == 3
        fast = kernel
        if self.batch_first and batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        with grad_mode.no_grad() if fast else nullcontext():
            out, weights = multi_head_attention_forward(
                query,
                key,
                value,
                self.embed_dim,
                self.num_heads,
                self.in_proj_weight,
                self.in_proj_bias,
                self.bias_k,
                self.bias_v,
                self.add_zero_attn,
                self.dropout,
                self.out_proj.weight,
                self.out_proj.bias,
                training=self.training,
                key_padding_mask=key_padding_mask,
                need_weights=need_weights or fast,
                attn_mask=attn_mask,
                use_separate_proj_weight=separate,
                q_proj_weight=self.q_proj_weight if separate else None,
                k_proj_weight=self.k_proj_weight if separate else None,
                v_proj_weight=self.v_proj_weight if separate else None,
                average_attn_weights=average_attn_weights,
                is_causal=is_causal,
            )
        if fast and not need_weights:
            weights = None
        if self.batch_first and batched:
            out = out.transpose(1, 0)
            if fast:
                out = out.contiguous()
        return out, weights

    def merge_masks(
        self, attn_mask: Tensor | None, key_padding_mask: Tensor | None, query: Tensor
    ) -> tuple[Tensor | None, int | None]:
        """One mask for the fast path's kernel, and its type (1 padding, 2 attention)."""
        mask_type: int | None = None
        merged: Tensor | None = None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                merged = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                merged = attn_mask.view(1, 1, seq_len, seq_len).expand(
                    batch_size, self.num_heads, -1, -1
                )
            if key_padding_mask is not None:
                padding = key_padding_mask.view(batch_size, 1, 1, seq_len)
                merged = merged + padding.expand(-1, self.num_heads, -1, -1)
        return merged, mask_type
