"""gradcheck and gradgradcheck on double precision inputs, and a failing custom backward."""

import torch
from torch.autograd import gradcheck, gradgradcheck


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * g


class WrongCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x**2 * g


torch.manual_seed(0)
inp = torch.randn(4, dtype=torch.double, requires_grad=True)
print(gradcheck(Cube.apply, (inp,), eps=1e-6, atol=1e-4))
print(gradgradcheck(Cube.apply, (inp,)))
print(gradcheck(WrongCube.apply, (inp,), raise_exception=False))
try:
    gradcheck(WrongCube.apply, (inp,))
except RuntimeError as err:
    print(type(err).__name__, str(err).splitlines()[0])
lin = torch.nn.Linear(3, 2).double()
xs = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
print(gradcheck(lambda t: torch.tanh(lin(t)), (xs,)))
print(gradcheck(torch.nn.functional.softmax, (xs, 1)))
print(inp.dtype, lin.weight.dtype)
