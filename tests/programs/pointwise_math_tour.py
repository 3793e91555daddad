"""Elementwise math beyond the basics: lerp, erf, atan2, nan checks, rounding, products."""

import math

import torch

a = torch.tensor([0.5, -1.5, 2.0, 0.0])
b = torch.tensor([1.0, 2.0, -3.0, 4.0])
print(torch.lerp(a, b, 0.25), a.lerp(b, torch.tensor([0.0, 0.5, 1.0, 2.0])), a.lerp(b, 1.0))
ema = torch.zeros(3)
for step in range(3):
    ema.lerp_(torch.full((3,), float(step + 1)), 0.1)
print(ema)
print(torch.atan2(a, b), torch.erf(a), torch.erfc(a), a.erf().sum())
x = torch.linspace(-3, 3, 7)
print(0.5 * x * (1 + torch.erf(x / math.sqrt(2))), torch.erf(torch.tensor(0.5)))
print(torch.log1p(a.abs()), torch.expm1(a), torch.log10(b.abs()), torch.rsqrt(b.abs()))
print(
    torch.sigmoid(a),
    torch.asin(torch.tensor([0.5])),
    torch.acos(torch.tensor([0.5])),
    torch.atan(b),
)
print(torch.sinh(a), torch.cosh(a), torch.log2(b.abs()), torch.tan(a))
n = torch.tensor([1.0, float("nan"), 3.0, float("inf"), -float("inf")])
print(torch.isnan(n), torch.isinf(n), torch.isfinite(n), n.isnan().any(), n[~n.isnan()])
print(torch.maximum(n, torch.zeros(5)), torch.minimum(n, torch.zeros(5)), n.abs())
print(torch.clamp(n, -1, 1), torch.where(torch.isnan(n), torch.zeros_like(n), n))
print(torch.sign(n), torch.sgn(b), torch.abs(n), n.clamp(min=0), b.clamp(max=1.5))
print(
    torch.floor(a),
    torch.ceil(a),
    torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5])),
    torch.fix(a),
    a.trunc(),
)
print(
    torch.square(a), torch.pow(a, 0.5), torch.pow(2.0, b), b.pow(torch.tensor([1.0, 2.0, 3.0, 0.5]))
)
print(
    torch.reciprocal(b),
    torch.neg(a),
    torch.positive(a),
    torch.sub(a, b, alpha=2),
    torch.add(a, b, alpha=0.5),
)
print(
    torch.mul(a, 3),
    torch.true_divide(b, 2),
    torch.div(b, 2, rounding_mode="floor"),
    torch.frac(b / 3),
)
print(torch.diff(b), torch.diff(b, n=2), torch.diff(b, prepend=torch.tensor([0.0])))
print(
    torch.prod(b),
    torch.cumprod(b, 0),
    torch.logsumexp(b, 0),
    torch.cumsum(a, 0),
    a.cumsum(0).flip(0),
)
print(torch.dot(a, b), torch.outer(a[:2], b[:2]), torch.matmul(a, b))
print(
    torch.trace(torch.eye(3)),
    torch.mv(torch.eye(4), b),
    torch.norm(b),
    b.norm(p=1),
    torch.linalg.norm(b, ord=float("inf")),
)
y = torch.tensor([0.5, 2.0], requires_grad=True)
z = torch.atan2(y, torch.tensor([1.0, 1.0])) + torch.lerp(y, torch.zeros(2), 0.3) + torch.erf(y)
z.sum().backward()
print(z, y.grad)
w = torch.tensor([0.2, 0.9], requires_grad=True)
m = torch.lerp(torch.zeros(2), torch.ones(2) * 4, w)
m.sum().backward()
print(m, w.grad, m.grad_fn.name())
