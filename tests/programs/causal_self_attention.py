"""A minimal GPT-style causal self-attention block, as nanoGPT writes it: one qkv
projection, heads, F.scaled_dot_product_attention with is_causal, checked against the
explicit masked softmax, and nn.MultiheadAttention with a causal mask."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class CausalSelfAttention(nn.Module):
    def __init__(self, d=8, heads=2, dropout=0.0):
        super().__init__()
        self.h, self.dropout = heads, dropout
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)

    def forward(self, x, flash=True):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
        if flash:
            p = self.dropout if self.training else 0.0
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
            att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
            y = att @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


block = CausalSelfAttention()
x = torch.randn(2, 5, 8, requires_grad=True)
fast, slow = block(x), block(x, flash=False)
print(fast.grad_fn, torch.allclose(fast, slow, atol=1e-6))
y = F.scaled_dot_product_attention(*(torch.randn(2, 2, 5, 4) for _ in range(3)), is_causal=True)
print(y.shape, y.grad_fn)
fast.pow(2).mean().backward()
print(x.grad[0, 0], block.c_attn.weight.grad.norm())
# a later position never changes an earlier output
x2 = x.detach().clone()
x2[:, -1] += 10.0
print(torch.allclose(block(x2)[:, :-1], block(x.detach())[:, :-1], atol=1e-6))
drop = CausalSelfAttention(dropout=0.5)
out = drop(x)
print(out.grad_fn, out[0, 0])
drop.eval()
print(drop(x).grad_fn)
mha = nn.MultiheadAttention(8, 2, batch_first=True)
causal = nn.Transformer.generate_square_subsequent_mask(5)
print(causal)
out, w = mha(x, x, x, attn_mask=causal)
print(out.grad_fn, w.shape, w[0].triu(1).abs().sum())
out2, none = mha(x, x, x, attn_mask=causal, need_weights=False, is_causal=True)
print(torch.allclose(out, out2, atol=1e-6), none, out2.grad_fn)
loss = out2.sum()
loss.backward()
print(mha.in_proj_weight.grad.shape, mha.in_proj_bias.grad[:4])
