"""torch.autograd.grad and backward options: create_graph, allow_unused, grad_outputs, retain."""

import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor(0.5, requires_grad=True)
y = (w * x**3).sum()
(gx,) = torch.autograd.grad(y, x, create_graph=True)
print(gx, gx.grad_fn, gx.requires_grad)
(gxx,) = torch.autograd.grad(gx.sum(), x)
print(gxx)
gx2, gw = torch.autograd.grad((w * x**2).sum(), [x, w])
print(gx2, gw)
u = torch.ones(2, requires_grad=True)
v = torch.ones(2, requires_grad=True)
out = (u * 2).sum()
print(torch.autograd.grad(out, [u, v], allow_unused=True, retain_graph=True))
print(torch.autograd.grad(out, [u, v], allow_unused=True, materialize_grads=True)[1])
try:
    torch.autograd.grad((u * 3).sum(), [u, v])
except RuntimeError as e:
    print("RuntimeError:", e)
z = x * 2
print(torch.autograd.grad(z, x, grad_outputs=torch.tensor([1.0, 0.1, 0.01])))
try:
    torch.autograd.grad(z, x)
except RuntimeError as e:
    print("RuntimeError:", e)
loss = (x**2).sum()
loss.backward(retain_graph=True)
loss.backward()
print(x.grad)
try:
    loss.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:120])
x.grad.zero_()
(x * 3).backward(torch.ones(3))
print(x.grad)
a = torch.tensor(2.0, requires_grad=True)
f = a**3
(df,) = torch.autograd.grad(f, a, create_graph=True)
(d2f,) = torch.autograd.grad(df, a, create_graph=True)
(d3f,) = torch.autograd.grad(d2f, a)
print(df, d2f, d3f)
p = torch.randn(3, requires_grad=True)
q = p.detach().requires_grad_()
print(torch.autograd.grad((p * q).sum(), q)[0].equal(p.detach()))
xs = torch.linspace(-1, 1, 5, requires_grad=True)
ys = torch.tanh(xs)
(dy,) = torch.autograd.grad(ys, xs, torch.ones_like(ys))
print(dy, torch.allclose(dy, 1 - ys.detach() ** 2))
print(torch.autograd.functional.jacobian(lambda t: t**2, torch.tensor([1.0, 2.0])))
print(torch.autograd.functional.hessian(lambda t: (t**3).sum(), torch.tensor([1.0, 2.0])))
print(torch.autograd.functional.vjp(lambda t: t * 3, torch.ones(2), torch.tensor([1.0, 2.0])))
print(torch.autograd.functional.jvp(lambda t: t.exp(), torch.zeros(2), torch.ones(2)))
print(torch.autograd.functional.hvp(lambda t: (t**2).sum(), torch.ones(2), torch.ones(2)))
