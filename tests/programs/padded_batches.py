"""Variable-length sequences by hand: F.pad to a common length, masks, masked mean pooling."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
seqs = [torch.tensor([3, 1, 4]), torch.tensor([1, 5]), torch.tensor([9, 2, 6, 5])]
max_len = max(len(s) for s in seqs)
batch = torch.stack([F.pad(s, (0, max_len - len(s)), value=0) for s in seqs])
lengths = torch.tensor([len(s) for s in seqs])
mask = torch.arange(max_len)[None, :] < lengths[:, None]
print(batch, lengths, mask, sep="\n")
emb = nn.Embedding(10, 4, padding_idx=0)
vecs = emb(batch)
summed = (vecs * mask.unsqueeze(-1)).sum(1)
pooled = summed / lengths.unsqueeze(1)
print(pooled.shape, pooled.grad_fn)
scores = vecs @ torch.randn(4)
scores = scores.masked_fill(~mask, float("-inf"))
attn = torch.softmax(scores, dim=1)
print(attn)
context = (attn.unsqueeze(-1) * vecs).sum(1)
loss = context.pow(2).mean() + pooled.abs().mean()
loss.backward()
print(f"{loss.item():.5f}", emb.weight.grad[0], emb.weight.grad.abs().sum(1) > 0)
img = torch.arange(9.0).reshape(1, 1, 3, 3).requires_grad_()
padded = F.pad(img, (1, 1, 1, 1))
print(padded[0, 0], padded.grad_fn)
same = F.conv2d(padded, torch.ones(1, 1, 3, 3))
print(same.shape, same[0, 0])
same.sum().backward()
print(img.grad[0, 0])
print(F.pad(torch.ones(2, 3), (1, 0, 0, 2), value=-1.0))
print(F.pad(torch.arange(6).reshape(2, 3), (-1, 0)))
try:
    F.pad(torch.ones(2, 3), (1, 1, 1))
except RuntimeError as e:
    print("RuntimeError:", e)
