"""dtype rules a script meets: int/float mixing, division, casts, comparisons, default dtype."""

import torch

i = torch.tensor([1, 2, 3])
f = torch.tensor([0.5, 1.5, 2.5])
d = torch.tensor([1.0], dtype=torch.float64)
print((i + f).dtype, (i * 2).dtype, (i * 2.0).dtype, (i / 2).dtype, (i // 2), (i % 2))
print(i / 2, torch.div(i, 2, rounding_mode="floor"), torch.div(-i, 2, rounding_mode="trunc"))
print((f + d).dtype, (i + d).dtype, (torch.tensor(1.0) + i).dtype, (d.sum() + f).dtype)
print(i.float().dtype, i.double().dtype, f.long(), f.int().dtype, f.to(torch.int64), f.bool())
print(f.type(torch.float64).dtype, i.to(dtype=torch.float32), f.half().dtype)
print((i > 1).dtype, (i > 1) & (i < 3), ~(i > 1), (i > 1) | (i == 1), (i > 1) ^ True)
print((i == 2).sum().item(), (i > 1).float(), (i > 1).long().sum())
print(
    torch.tensor([1, 2]) ** 2, torch.tensor([2.0]) ** torch.tensor([3]), 2 ** torch.tensor([1, 2])
)
print(torch.tensor(3) / torch.tensor(2), torch.tensor(7) // -2, torch.tensor(-7) % 3)
print(
    torch.arange(5).dtype, torch.arange(5.0).dtype, torch.arange(0, 1, 0.25), torch.zeros(2).dtype
)
print(
    torch.tensor([1, 2], dtype=torch.float32).dtype,
    torch.tensor(True).dtype,
    torch.tensor([1.5]).dtype,
)
print(
    torch.full((2,), 3).dtype, torch.full((2,), 3.0).dtype, torch.ones(2, dtype=torch.int64) + 0.5
)
print(
    torch.randint(0, 5, (3,)).dtype, torch.randn(2).dtype, torch.rand(2, dtype=torch.float64).dtype
)
print(torch.zeros_like(i, dtype=torch.float32), torch.ones_like(f).dtype, torch.empty_like(i).dtype)
print(i.sum().dtype, i.float().mean().dtype, i.prod().dtype, torch.tensor([True, True]).sum().dtype)
print(
    torch.result_type(i, 1.0),
    torch.promote_types(torch.int32, torch.float32),
    torch.can_cast(torch.float32, torch.int32),
)
try:
    i.requires_grad_()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.tensor([1, 2], dtype=torch.long, requires_grad=True)
except RuntimeError as e:
    print("RuntimeError:", e)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.double()
print(y.grad_fn, y.dtype, x.to(torch.float32) is x, x.float() is x)
y.sum().backward()
print(x.grad, x.grad.dtype)
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.0]).dtype, torch.zeros(1).dtype, torch.get_default_dtype())
torch.set_default_dtype(torch.float32)
a = torch.tensor([1.0, 2.0])
a += 1
b = torch.tensor([1, 2])
try:
    b += 0.5
except RuntimeError as e:
    print("RuntimeError:", e)
print(a, b, torch.tensor([0.1, 0.2]).sum() == 0.3, torch.float32.is_floating_point)
print(i.numpy().dtype, torch.from_numpy(f.numpy()).dtype, f.numpy().tolist())
