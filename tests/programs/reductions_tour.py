"""Reductions and ordering: max with indices, topk, sort, cumsum, std/var, unique, any/all."""

import torch

torch.manual_seed(5)
x = torch.randn(3, 4)
print(x.max(), x.max(dim=1), x.min(0).indices, x.argmax(1), x.argmin())
values, indices = x.topk(2, dim=1)
print(values, indices)
print(x.topk(2, largest=False, sorted=True).values)
print(torch.sort(x, dim=0, descending=True))
print(x.sum(), x.sum(dim=(0, 1)), x.mean(1), x.prod(0))
print(x.std(), x.std(0, unbiased=False), x.var(1, keepdim=True), x.var(correction=0))
print(x.cumsum(1), x.cumprod(0)[-1])
print(x.abs().sqrt().log().exp().sum(1))
print(x.amax(1), x.amin(0), x.norm(), x.norm(dim=1), x.norm(p=1))
print(torch.logsumexp(x, 1), x.softmax(0).sum(0))
t = torch.tensor([3, 1, 2, 3, 1, 3])
print(
    torch.unique(t), t.unique(return_counts=True), torch.unique(t, sorted=True, return_inverse=True)
)
print((x > 0).any(), (x > 0).all(1), (x > 0).sum(), (x > 0).float().mean())
print(torch.max(x, torch.zeros_like(x)), torch.maximum(x, torch.zeros(4)).sum())
print(torch.clamp(x, -0.5, 0.5)[0], x.clamp(max=0)[1])
print(x.round(decimals=2)[0], x.floor()[0], x.ceil()[0], x.sign()[0], x.trunc()[0])
m = x.max(dim=1, keepdim=True)
print(m.values.shape, m[1].shape, type(m).__name__)
y = torch.randn(3, 4, requires_grad=True)
for op in [
    lambda t: t.max(),
    lambda t: t.max(1)[0].sum(),
    lambda t: t.topk(2)[0].sum(),
    lambda t: t.sort(1)[0][:, 0].sum(),
    lambda t: t.std(),
    lambda t: t.norm(),
    lambda t: t.cumsum(0).sum(),
]:
    y.grad = None
    out = op(y)
    out.backward()
    print(out.grad_fn.name(), y.grad[0])
print(
    torch.tensor([1, 2, 3]).sum().dtype,
    torch.tensor([True, False]).sum(),
    torch.tensor([1, 2]).float().mean(),
)
try:
    torch.tensor([1, 2]).mean()
except RuntimeError as e:
    print("RuntimeError:", e)
print(torch.argmax(torch.tensor([[1, 3, 3], [2, 2, 0]]), dim=1), torch.tensor([2.0, 2.0]).argmax())
print(torch.allclose(x, x + 1e-9), torch.isclose(x, x * 1.1).sum(), torch.equal(x, x.clone()))
