"""Embeddings, normalisation and cosine similarity; a GELU MLP head; small tensor utilities."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(4)
vocab = ["cat", "dog", "car", "truck"]
emb = nn.Embedding(len(vocab), 5)
ids = torch.tensor([0, 1, 2, 3])
vectors = emb(ids)
unit = F.normalize(vectors, dim=1)
print(unit.norm(dim=1))
print(unit.grad_fn)
sims = F.cosine_similarity(vectors[0:1], vectors, dim=1)
print(sims, sims.grad_fn)
best = sims[1:].argmax().item() + 1
print(f"closest to {vocab[0]}: {vocab[best]}")
target = torch.tensor([1.0, 0.0, -1.0])
loss = (1 - F.cosine_similarity(vectors[:3], vectors[1:], dim=-1) - target).pow(2).mean()
loss.backward()
print(f"loss {loss.item():.5f}", emb.weight.grad.shape)
print(emb.weight.grad[3])
head = nn.Sequential(nn.Linear(5, 8), nn.GELU(), nn.Linear(8, 2), nn.GELU(approximate="tanh"))
print(head)
out = head(unit.detach())
print(out)
out.mean().backward()
print(head[0].bias.grad)
x = torch.tensor([1.0, 4.0, 9.0, 16.0], requires_grad=True)
d = torch.diff(x)
print(d, d.grad_fn, torch.diff(x, n=2))
d.pow(2).sum().backward()
print(x.grad)
print(torch.tile(torch.tensor([1, 2]), (2, 2)))
labels = torch.tensor([2, 0, 2, 1, 0, 2])
values, counts = torch.unique(labels, return_counts=True)
print(values, counts, labels.unique(return_inverse=True)[1])
print(F.gelu(torch.tensor([-1.0, 0.0, 1.0])), F.normalize(torch.tensor([3.0, 4.0]), dim=0))
