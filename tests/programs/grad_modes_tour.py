"""no_grad, enable_grad, set_grad_enabled, inference_mode and requires_grad_ as scripts use them."""

import torch

torch.manual_seed(0)

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
    with torch.enable_grad():
        z = x * 3
print(y.requires_grad, y.grad_fn, z.requires_grad, z.grad_fn)


@torch.no_grad()
def evaluate(t):
    return t.pow(2).sum()


print(evaluate(x), torch.is_grad_enabled())
torch.set_grad_enabled(False)
print((x + 1).requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    print((x + 1).requires_grad)
print(torch.is_grad_enabled())
with torch.inference_mode():
    w = x * 5
print(w.requires_grad, w.is_inference(), x.is_inference())
try:
    (w * x).sum().backward()
except RuntimeError as e:
    print("error:", e)
with torch.inference_mode(mode=False):
    print((x * 2).requires_grad)
a = torch.ones(2)
print(a.requires_grad, a.is_leaf)
a.requires_grad_()
b = (a * 4).sum()
b.backward()
print(a.grad, a.is_leaf, b.is_leaf)
c = a.detach()
c[0] = 10.0
print(a, c.requires_grad)
d = a.clone()
print(d.grad_fn, d.is_leaf, d.requires_grad)
e = a.detach().clone().requires_grad_(True)
print(e.is_leaf, e.grad)
try:
    (a * 2).requires_grad_(False)
except RuntimeError as err:
    print("error:", err)
p = torch.nn.Parameter(torch.randn(2))
print(type(p).__name__, p.requires_grad, isinstance(p, torch.Tensor))
print(repr(torch.nn.Parameter(torch.zeros(2), requires_grad=False)))
with torch.no_grad():
    p.mul_(0)
print(p, p.grad_fn)
print(x.data, x.data.requires_grad, type(x.data).__name__)
