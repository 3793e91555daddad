"""micrograd's test_engine.py, the PyTorch half: sanity check and more ops."""

import torch


def test_sanity_check():
    x = torch.Tensor([-4.0]).double()
    x.requires_grad = True
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    xpt, ypt = x, y
    print(ypt.data.item(), xpt.grad.item())
    print(ypt, xpt.grad)


def test_more_ops():
    a = torch.Tensor([-4.0]).double()
    b = torch.Tensor([2.0]).double()
    a.requires_grad = True
    b.requires_grad = True
    c = a + b
    d = a * b + b**3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + (b + a).relu()
    d = d + 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g = g + 10.0 / f
    g.backward()
    apt, bpt, gpt = a, b, g
    tol = 1e-6
    print(f"{gpt.data.item():.6f} {apt.grad.item():.6f} {bpt.grad.item():.6f}")
    print(abs(gpt.data.item() - 24.70408163265306) < tol)
    print(gpt.grad_fn, gpt.dtype, type(gpt.data.item()))


test_sanity_check()
test_more_ops()
v = torch.Tensor(2, 3)
print(v.shape, v.dtype, torch.Tensor([1, 2]).dtype)
print(torch.autograd.Variable(torch.ones(2), requires_grad=True))
