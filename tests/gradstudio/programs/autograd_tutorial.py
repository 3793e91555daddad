"""PyTorch's autograd tutorial, with a plain-Python constant (math.pi)."""

import math

import torch

x = torch.ones(5)
y = torch.zeros(3)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
scale = math.pi
loss = torch.nn.functional.binary_cross_entropy_with_logits(z * scale, y)
loss.backward()
print(w.grad)
