"""Custom autograd Functions: needs_input_grad, non-tensor args, non-differentiable outputs."""

import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable


class ScaledClamp(Function):
    @staticmethod
    def forward(ctx, x, lo, hi, scale):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi, ctx.scale = lo, hi, scale
        return x.clamp(lo, hi) * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        print("needs", ctx.needs_input_grad)
        mask = (x >= ctx.lo) & (x <= ctx.hi)
        return grad * mask * ctx.scale, None, None, None


x = torch.linspace(-2, 2, 5, requires_grad=True)
y = ScaledClamp.apply(x, -1.0, 1.0, 3.0)
print(y, y.grad_fn.__class__.__name__)
y.sum().backward()
print(x.grad)


class SortWithIndex(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    @once_differentiable
    def backward(ctx, g_values, g_idx):
        (idx,) = ctx.saved_tensors
        out = torch.zeros_like(g_values)
        out[idx] = g_values
        return out


z = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
v, i = SortWithIndex.apply(z)
print(v, i, i.requires_grad)
(v * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(z.grad)


class Bad(Function):
    @staticmethod
    def forward(ctx, x):
        return x + 1

    @staticmethod
    def backward(ctx, g):
        return g, g


try:
    Bad.apply(torch.ones(1, requires_grad=True)).backward()
except RuntimeError as e:
    print("RuntimeError:", e)
