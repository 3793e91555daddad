"""Double backward: gradient of a gradient, Hessian-vector products, gradient penalty."""

import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x**3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g, g.grad_fn)
v = torch.tensor([1.0, 0.0, 1.0])
(hv,) = torch.autograd.grad(g, x, grad_outputs=v, retain_graph=True)
print("Hv =", hv)
(gg,) = torch.autograd.grad(g.sum(), x)
print(gg)

w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
inp = torch.tensor([[1.0, 2.0]], requires_grad=True)
out = torch.tanh(inp @ w).sum()
grad_inp = torch.autograd.grad(out, inp, create_graph=True)[0]
penalty = grad_inp.pow(2).sum()
penalty.backward()
print(f"penalty={penalty.item():.6f}")
print(w.grad)
print(inp.grad)

z = torch.tensor(2.0, requires_grad=True)
f = z.sin() * z
d1 = torch.autograd.grad(f, z, create_graph=True)[0]
d2 = torch.autograd.grad(d1, z, create_graph=True)[0]
d3 = torch.autograd.grad(d2, z)[0]
print(f"{d1.item():.5f} {d2.item():.5f} {d3.item():.5f}")
try:
    torch.autograd.grad(d3, z)
except RuntimeError as err:
    print(err)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
ga, gb = torch.autograd.grad((a * 2).sum(), [a, b], allow_unused=True)
print(ga, gb)
