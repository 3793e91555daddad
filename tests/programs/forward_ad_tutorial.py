# PyTorch's "Forward-mode Automatic Differentiation" tutorial, in small.
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn

torch.manual_seed(0)
primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)


def fn(x, y):
    return x**2 + y**2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    plain_tensor = torch.randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)
    jvp = fwAD.unpack_dual(dual_output).tangent
    print(torch.allclose(jvp, 2 * primal * tangent))
    print(fwAD.unpack_dual(dual_output).primal.shape, jvp.dtype)

model = nn.Linear(5, 5)
x = torch.randn(16, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(x)
    jvp = fwAD.unpack_dual(out).tangent
    print(jvp.shape, torch.allclose(jvp, x @ tangents["weight"].T + tangents["bias"], atol=1e-6))


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(x, y):
        return x * y

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_forward(*inputs)

    @staticmethod
    def jvp(ctx, tx, ty):
        x, y = ctx.saved_tensors
        return tx * y + x * ty


x = torch.randn(10, 10, dtype=torch.double)
t = torch.randn(10, 10, dtype=torch.double)
with fwAD.dual_level():
    dual_output = Fn.apply(fwAD.make_dual(x, t))
    print(torch.allclose(fwAD.unpack_dual(dual_output).tangent, t * x.exp()))
    m = Mul.apply(fwAD.make_dual(x, t), x)
    print(torch.allclose(fwAD.unpack_dual(m).tangent, t * x))
    small = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 0.5]))
    print(small)
    print(fwAD.unpack_dual(small.relu().sum()))
print(fwAD.unpack_dual(small).tangent)
try:
    fwAD.make_dual(x, t)
except RuntimeError as e:
    print("RuntimeError:", e)
print(torch.func.jvp(torch.sin, (torch.tensor(0.0),), (torch.tensor(2.0),)))
