"""Custom Functions: needs_input_grad, mark_non_differentiable, once_differentiable, None grads."""

import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable


class MulAdd(Function):
    @staticmethod
    def forward(ctx, x, w, k):
        ctx.save_for_backward(x, w)
        ctx.k = k
        return x * w + k

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        print("needs_input_grad:", ctx.needs_input_grad)
        gx = grad * w if ctx.needs_input_grad[0] else None
        gw = grad * x if ctx.needs_input_grad[1] else None
        return gx, gw, None


class SortWithIndex(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    @once_differentiable
    def backward(ctx, g, _g_idx):
        (idx,) = ctx.saved_tensors
        out = torch.zeros_like(g)
        out[idx] = g
        return out


x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, 0.5, 2.0])
y = MulAdd.apply(x, w, 1.0)
print(y, y.grad_fn.__class__.__name__)
y.sum().backward()
print(x.grad, w.grad)
v, i = SortWithIndex.apply(x)
print(v, i, i.requires_grad)
(v * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(x.grad)
z = torch.tensor([1.0, 2.0], requires_grad=True)
vals, _ = SortWithIndex.apply(z * z)
g = torch.autograd.grad(vals.sum(), z, create_graph=True)[0]
print(g, g.requires_grad)
try:
    g.sum().backward()
except RuntimeError as err:
    print("RuntimeError:", err)
