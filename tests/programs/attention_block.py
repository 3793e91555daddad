"""A tiny transformer-ish block: LayerNorm, GELU MLP, masked softmax attention, residuals."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.dk = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.register_buffer("mask", torch.tril(torch.ones(8, 8)).view(1, 1, 8, 8))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.h, self.dk).transpose(1, 2)
        k = k.view(B, T, self.h, self.dk).transpose(1, 2)
        v = v.view(B, T, self.h, self.dk).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.dk))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.proj(y), att


class Block(nn.Module):
    def __init__(self, d=8, heads=2):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = SelfAttention(d, heads)
        self.mlp = nn.Sequential(
            nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d), nn.Dropout(0.1)
        )

    def forward(self, x):
        a, att = self.attn(self.ln1(x))
        x = x + a
        return x + self.mlp(self.ln2(x)), att


emb = nn.Embedding(10, 8)
pos = nn.Parameter(torch.zeros(1, 8, 8))
block, head = Block(), nn.Linear(8, 10, bias=False)
head.weight = emb.weight
idx = torch.randint(0, 10, (2, 5))
block.eval()
h, att = block(emb(idx) + pos[:, :5])
logits = head(h)
print(logits.shape, logits.grad_fn, att[0, 0])
loss = F.cross_entropy(logits.view(-1, 10), idx.view(-1))
loss.backward()
print(f"loss {loss.item():.4f}", emb.weight.grad.shape, pos.grad.abs().sum() > 0)
print(block.ln1.weight.grad[:3], block.attn.mask.requires_grad)
print(sum(p.numel() for p in block.parameters()), len(list(block.buffers())))
print(F.gelu(torch.tensor([-1.0, 0.0, 1.0]), approximate="tanh"), nn.GELU(approximate="tanh"))
print(F.layer_norm(torch.arange(4.0), (4,)), nn.LayerNorm(4, elementwise_affine=False))
print(torch.softmax(torch.tensor([1.0, float("-inf")]), 0), att.grad_fn)
