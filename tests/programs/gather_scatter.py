"""Indexing idioms: gather, scatter, index_select, masked ops, nonzero, where, index_add."""

import torch

torch.manual_seed(0)
logits = torch.randn(4, 5, requires_grad=True)
labels = torch.tensor([1, 0, 4, 2])
picked = logits.gather(1, labels.unsqueeze(1)).squeeze(1)
print(picked.grad_fn, picked.shape)
picked.sum().backward()
print(logits.grad)
onehot = torch.zeros(4, 5).scatter_(1, labels.unsqueeze(1), 1.0)
print(onehot)
print(
    torch.zeros(3, 5).scatter_add_(
        0, torch.tensor([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]]), torch.ones(2, 5)
    )
)
src = torch.arange(1, 11).reshape(2, 5)
print(torch.zeros(3, 5, dtype=src.dtype).scatter_(0, torch.tensor([[0, 1, 2, 0]]), src))
x = torch.arange(12.0).reshape(3, 4)
print(torch.index_select(x, 0, torch.tensor([0, 2])), x.index_select(1, torch.tensor([3, 0])))
mask = x > 5
print(mask, x[mask], x.masked_fill(mask, -1.0))
print(torch.nonzero(mask), mask.nonzero(as_tuple=True))
print(torch.where(mask, x, torch.zeros_like(x)), torch.where(x > 9))
print(x.index_add(0, torch.tensor([0, 0]), torch.ones(2, 4)))
print(x[[0, 2], [1, 3]], x[:, [True, False, True, False]], x[..., -1], x[None, 1].shape)
print(x[1:, ::2], x[-1], x[torch.tensor([2, 0])])
y = x.clone().requires_grad_()
z = y[y > 4].sum() + y[0, :2].pow(2).sum()
z.backward()
print(y.grad)
v = torch.zeros(5)
v[torch.tensor([0, 2, 2])] += 1
print(v)
v.index_put_((torch.tensor([1, 1]),), torch.tensor([3.0, 4.0]), accumulate=True)
print(v)
print(torch.tensor([3, 1, 2]).argsort(), torch.tensor([[1, 5], [7, 2]]).argmax(), x.argmax(dim=1))
w = torch.randn(3, requires_grad=True)
out = w.masked_fill(w < 0, 0.0)
print(out.grad_fn, torch.clamp(w, min=0).grad_fn)
print(x.flatten()[torch.randperm(12)[:3]], x.flatten()[torch.tensor([0, 5, 11])])
