"""PyTorch's polynomial tutorial with tensors only: 2000 steps of hand-written gradients."""

import math

import torch

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
a, b, c, d = (torch.randn(()) for _ in range(4))
learning_rate = 1e-6
for _t in range(2000):
    y_pred = a + (b * x) + (c * x.pow(2)) + (d * x.pow(3))
    loss = (y_pred - y).pow(2).sum().item()
    grad_y_pred = -2.0 * (y - y_pred)
    grad_a = grad_y_pred.sum()
    grad_b = torch.matmul(input=grad_y_pred, other=x).sum()
    grad_c = torch.matmul(input=grad_y_pred, other=x.pow(2)).sum()
    grad_d = torch.matmul(input=grad_y_pred, other=x.pow(3)).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d
print(f"y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3")
