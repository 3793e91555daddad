"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp."""

import torch
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vjp


def f(x):
    return torch.stack([x[0] * x[1], x[0].sin(), x[1] ** 2])


def scalar(x):
    return (x**3).sum() + x[0] * x[1]


x = torch.tensor([1.0, 2.0])
J = jacobian(f, x)
print(J)
print(J.shape, J.requires_grad)
H = hessian(scalar, x)
print(H)
out, vj = vjp(f, x, torch.tensor([1.0, 1.0, 1.0]))
print(out, vj)
out, jv = jvp(f, x, torch.tensor([1.0, 0.0]))
print(jv)
val, hv = hvp(scalar, x, torch.tensor([0.0, 1.0]))
print(val, hv)


def two(a, b):
    return a * b + b


ja, jb = jacobian(two, (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])))
print(ja)
print(jb)
Jc = jacobian(f, x, create_graph=True)
print(Jc.requires_grad)
print(torch.autograd.functional.jacobian(lambda t: t.exp(), torch.zeros(2)))
