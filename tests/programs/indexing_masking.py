"""torch.where, boolean masks, fancy indexing, gather/scatter, masked_fill and their gradients."""

import torch

torch.manual_seed(5)
x = torch.randn(4, 3, requires_grad=True)
y = torch.where(x > 0, x, x * 0.1)
y.sum().backward()
print(y)
print(x.grad)
x.grad = None
mask = x > 0.5
print(mask, mask.dtype, mask.sum().item())
sel = x[mask]
print(sel, sel.grad_fn)
sel.pow(2).sum().backward()
print(x.grad)
x.grad = None
rows = x[[0, 2, 2]]
print(rows.grad_fn)
rows.sum().backward()
print(x.grad)
idx = torch.tensor([[0], [2], [1], [0]])
g = x.gather(1, idx)
print(g.squeeze(1), g.grad_fn)
filled = x.masked_fill(x < 0, 0.0)
print(filled.grad_fn, filled[0])
src = torch.zeros(5).scatter_add(0, torch.tensor([0, 1, 0, 4]), torch.ones(4))
print(src)
print(x[:, 1], x[1:3, ::2].shape, x[..., -1].grad_fn)
print(x.index_select(0, torch.tensor([3, 1])).shape)
print(torch.nonzero(x > 1.0), (x > 1.0).any(), (x > -5).all())
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
z = torch.where(w > 1.5, w**2, torch.zeros_like(w))
z.sum().backward()
print(w.grad, torch.clamp(w, min=1.5, max=2.5))
