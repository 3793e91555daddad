"""PyTorch's polynomial tutorial (tensors and autograd), fitting sin with a cubic."""

import math

import torch

x = torch.linspace(-math.pi, math.pi, 200)
y = torch.sin(x)
a = torch.zeros((), requires_grad=True)
b = torch.zeros((), requires_grad=True)
c = torch.zeros((), requires_grad=True)
d = torch.zeros((), requires_grad=True)
learning_rate = 1e-6
for t in range(20):
    y_pred = a + b * x + c * x**2 + d * x**3
    loss = (y_pred - y).pow(2).sum()
    if t % 10 == 9:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
