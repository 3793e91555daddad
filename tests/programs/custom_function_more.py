"""Custom autograd Functions: mark_dirty, non-differentiable outputs, materialize grads, ctx."""

import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable


class AddOneInplace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


class SortWithIdx(Function):
    @staticmethod
    def forward(ctx, x):
        v, i = x.sort()
        ctx.mark_non_differentiable(i)
        ctx.save_for_backward(i)
        return v, i

    @staticmethod
    def backward(ctx, gv, gi):
        (i,) = ctx.saved_tensors
        return torch.zeros_like(gv).index_put((i,), gv)


class TwoOut(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("grads seen:", g1, g2)
        return 2 * g1 if g2 is None else 2 * g1 + 3 * g2


class Cube(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        print("needs:", ctx.needs_input_grad)
        return x**3 * k

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x**2 * ctx.k, None


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.clone()
out = AddOneInplace.apply(b)
print(out is b, b, b.grad_fn.name(), b._version)
out.sum().backward()
print(a.grad)
v, i = SortWithIdx.apply(torch.tensor([3.0, 1.0, 2.0], requires_grad=True))
print(v, i, v.requires_grad, i.requires_grad, v.grad_fn.name())
t = torch.tensor([1.0], requires_grad=True)
p, q = TwoOut.apply(t)
p.sum().backward()
print(t.grad)
c = torch.tensor([1.0, 2.0], requires_grad=True)
y = Cube.apply(c, 2.0)
(gc,) = torch.autograd.grad(y.sum(), c, create_graph=True)
print(y, y.grad_fn.name(), gc, gc.requires_grad, gc.grad_fn)
try:
    gc.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
