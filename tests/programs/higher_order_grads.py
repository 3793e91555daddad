"""Higher-order derivatives: nth derivatives of tanh, sigmoid, exp, sin; grads of grads."""

import torch

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)


def nth(f, n):
    out = [f(x)]
    for _ in range(n):
        (g,) = torch.autograd.grad(out[-1].sum(), x, create_graph=True)
        out.append(g)
    return out


for name, f in [
    ("tanh", torch.tanh),
    ("sigmoid", torch.sigmoid),
    ("exp", torch.exp),
    ("sin", torch.sin),
    ("log", lambda t: torch.log(t.abs() + 1)),
    ("softplus", torch.nn.functional.softplus),
    ("pow3", lambda t: t**3),
    ("sqrt", lambda t: (t * t + 1).sqrt()),
    ("relu", torch.relu),
]:
    ds = nth(f, 3)
    print(
        name,
        [d.detach().numpy().round(4).tolist() for d in ds],
        [d.grad_fn.name() if d.grad_fn else None for d in ds],
    )
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w**2).prod()
(g,) = torch.autograd.grad(loss, w, create_graph=True)
h = torch.stack([torch.autograd.grad(g[i], w, retain_graph=True)[0] for i in range(2)])
print(g, h)
z = torch.tensor(1.0, requires_grad=True)
y = z.exp() * z.sin()
y.backward(create_graph=True)
print(z.grad, z.grad.requires_grad, z.grad.grad_fn.name())
gz = z.grad
z.grad = None
gz.backward()
print(z.grad)
a = torch.tensor([1.0, 2.0], requires_grad=True)
out = torch.nn.functional.gelu(a).sum()
(ga,) = torch.autograd.grad(out, a, create_graph=True)
(gga,) = torch.autograd.grad(ga.sum(), a)
print(ga, gga)
b = torch.tensor([[0.5, 1.5], [2.0, -0.5]], requires_grad=True)
s = torch.softmax(b, dim=1)
(gs,) = torch.autograd.grad(s[:, 0].sum(), b, create_graph=True)
print(gs, torch.autograd.grad(gs.pow(2).sum(), b)[0])
