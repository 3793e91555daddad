"""A Gentle Introduction to torch.autograd: Q = 3a^3 - b^2 and the DAG."""

import torch

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a**3 - b**2
external_grad = torch.tensor([1.0, 1.0])
Q.backward(gradient=external_grad)
print(9 * a**2 == a.grad)
print(-2 * b == b.grad)
print(a.grad, b.grad)
print(Q)

x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)
c = x + y
print(f"Does `c` require gradients? : {c.requires_grad}")
d = x + z
print(f"Does `d` require gradients?: {d.requires_grad}")

torch.manual_seed(1)
w = torch.randn(4, 3, requires_grad=True)
inp = torch.randn(2, 4)
out = inp @ w
print(out.grad_fn, out.shape)
for p in [w]:
    p.requires_grad_(False)
print(w.requires_grad, (inp @ w).requires_grad)
