"""Autograd mechanics: requires_grad flags, leaves, grad_fn walks, versions."""

import torch

torch.manual_seed(0)
x = torch.randn(5, 5)
y = torch.randn(5, 5)
z = torch.randn((5, 5), requires_grad=True)
a = x + y
print(a.requires_grad)
b = a + z
print(b.requires_grad)
print(b.grad_fn)
print(type(b.grad_fn).__name__)
print([type(f).__name__ if f is not None else None for f, _ in b.grad_fn.next_functions])
print(x.is_leaf, z.is_leaf, b.is_leaf)

w = torch.ones(3, requires_grad=True)
v = w * 2
print(v._version, w._version)
v.add_(1)
print(v._version)
print(v.grad_fn.name())
out = v.sum()
out.backward()
print(w.grad)


# walking the graph from the loss back to the leaves
def walk(fn, depth=0):
    if fn is None:
        return
    print("  " * depth + type(fn).__name__)
    for nxt, _ in fn.next_functions:
        walk(nxt, depth + 1)


q = torch.tensor([1.0, 2.0], requires_grad=True)
r = (q.exp() * q.sin()).mean()
walk(r.grad_fn)
r.backward()
print(q.grad)
print(f"loss = {r.item():.4f}")
