"""The autograd errors learners hit, and what their messages say."""

import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()
y.backward(retain_graph=True)
y.backward()
print(x.grad)
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0][:90])
z = x.exp()
try:
    z.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
z.backward(torch.tensor([1.0, 0.0, 0.5]))
print(x.grad)
w = torch.tensor([1.0, 2.0])
try:
    w.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
nl = x * 2
try:
    nl.requires_grad_(False)
except RuntimeError as e:
    print("RuntimeError:", str(e)[:120])
print(nl.is_leaf, x.is_leaf, nl.requires_grad, nl.grad_fn.name())
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * 3
try:
    torch.autograd.grad(c, [a, b])
except RuntimeError as e:
    print("RuntimeError:", str(e)[:100])
print(torch.autograd.grad(a * 3, [a, b], allow_unused=True))
print(torch.autograd.grad(a * 3, [a, b], allow_unused=True, materialize_grads=True))
(g,) = torch.autograd.grad(a**3, a, create_graph=True)
(gg,) = torch.autograd.grad(g, a)
print(g, gg, g.grad_fn.name(), g.requires_grad)
try:
    torch.autograd.grad(a * b, a)[0].backward()
except RuntimeError as e:
    print("RuntimeError:", e)
u = torch.ones(2, requires_grad=True)
v = u.sigmoid()
v.add_(1)
print(v.grad_fn.name(), v._version)
try:
    v.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:200])
p = torch.ones(3, requires_grad=True)
q = p.tanh()
r = q**2
q.zero_()
try:
    r.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:220])
print(torch.ones(2, requires_grad=True).detach().numpy())
try:
    torch.ones(2).requires_grad_().add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
k = torch.ones(3, requires_grad=True)
k2 = k * 1
k2.backward(torch.ones(3), inputs=[k])
print(k.grad, k2.grad)
try:
    torch.ones(2, 2, requires_grad=True).mm(torch.ones(2, 2)).backward()
except RuntimeError as e:
    print("RuntimeError:", e)
