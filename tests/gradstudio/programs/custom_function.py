"""A custom autograd.Function whose backward is differentiable, used for double backward."""

import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = Cube.apply(x)
total = y.sum()
(dx,) = torch.autograd.grad(total, [x], create_graph=True)
second = dx.sum()
second.backward()
