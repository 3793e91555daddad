"""is_leaf, retain_grad, detach, .data and clone: what keeps a gradient and what does not."""

import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 2
b.retain_grad()
c = b.detach()
d = a.data
e = a.clone()
print(a.is_leaf, b.is_leaf, c.is_leaf, d.is_leaf, e.is_leaf)
print(c.requires_grad, d.requires_grad, e.requires_grad, e.grad_fn)
loss = (b * b).sum() + e.sum()
loss.backward()
print("a.grad:", a.grad)
print("b.grad:", b.grad)
print(b.retains_grad, e.retains_grad)
c[0] = 100.0
print(b)
d.mul_(10)
print(a)
print(a.data_ptr() == d.data_ptr(), c.data_ptr() == b.data_ptr())
try:
    a.detach().add_(1).backward()
except RuntimeError as err:
    print("RuntimeError:", err)
f = torch.ones(2, requires_grad=True)
g = f + 1
print(g.grad)
try:
    g.requires_grad_(False)
except RuntimeError as err:
    print(err)
h = g.detach_() if False else g.detach()
print(h.requires_grad, h._version, g._version)
x = torch.tensor(4.0, requires_grad=True)
y = x**2
print(y.item(), y.tolist(), y.detach().numpy())
print(y.grad_fn.next_functions)
