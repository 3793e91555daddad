# Jacobians, Hessians, hvp and jvp with torch.func (PyTorch's "Jacobians, Hessians, hvp,
# vhp, and more" tutorial), plus the forward-mode AD API.
import torch
import torch.autograd.forward_ad as fwAD
from torch.func import grad, hessian, jacfwd, jacrev, jvp, vjp, vmap

torch.manual_seed(0)
D = 4
weight = torch.randn(D, D, dtype=torch.float64)
bias = torch.randn(D, dtype=torch.float64)
x = torch.randn(D, dtype=torch.float64)


def predict(weight, bias, x):
    return torch.nn.functional.linear(x, weight, bias).tanh()


jac = jacrev(predict, argnums=2)(weight, bias, x)
print(jac.shape, jac.dtype, jac.requires_grad)
fwd = jacfwd(predict, argnums=2)(weight, bias, x)
print("jacrev == jacfwd:", torch.allclose(jac, fwd))
unit_vectors = torch.eye(D, dtype=torch.float64)
_, vjp_fn = vjp(lambda x: predict(weight, bias, x), x)
(rows,) = vmap(vjp_fn)(unit_vectors)
print("vmap(vjp) == jacrev:", torch.allclose(rows, jac))
jw, jb = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print(jw.shape, jb.shape)
batch = torch.randn(3, D, dtype=torch.float64)
per_row = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, batch)
print(per_row.shape)

h = hessian(lambda x: predict(weight, bias, x).sum())(x)
print(h.shape, torch.allclose(h, h.T))
print(h.round(decimals=4))


def f(x):
    return x.sin().sum()


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


v = torch.randn(D, dtype=torch.float64)
print("hvp:", torch.allclose(hvp(f, (x,), (v,)), -x.sin() * v))
out, tangent = jvp(lambda x: x.exp() * 2, (x,), (torch.ones(D, dtype=torch.float64),))
print(torch.allclose(tangent, out), tangent.requires_grad)

with fwAD.dual_level():
    dual = fwAD.make_dual(x, v)
    y = torch.nn.functional.linear(dual, weight, bias).tanh().pow(2).mean()
    p, t = fwAD.unpack_dual(y)
    print(type(fwAD.unpack_dual(y)).__name__, fwAD.unpack_dual(y)._fields)
    print(round(p.item(), 6), round(t.item(), 6))
    g = grad(lambda x: torch.nn.functional.linear(x, weight, bias).tanh().pow(2).mean())(x)
    print("tangent == grad . v:", torch.allclose(t, (g * v).sum()))
    try:
        fwAD.make_dual(x, torch.ones(3))
    except RuntimeError as e:
        print("RuntimeError:", e)
print(fwAD.unpack_dual(dual).tangent)
jac_fm = torch.autograd.functional.jacobian(
    lambda x: predict(weight, bias, x), x, strategy="forward-mode", vectorize=True
)
print("forward-mode jacobian:", torch.allclose(jac_fm, jac))
