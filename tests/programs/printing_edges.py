"""Printing corners: big ints, mixed magnitudes, float64, grads, 0-d, nested, options reset."""

import torch

print(torch.tensor([1, -22, 333, -4444]), torch.tensor([2**40, 3]), torch.tensor([-(2**63)]))
print(torch.tensor([1.0, 1e5]), torch.tensor([1.0, 1e9]), torch.tensor([1e-4, 1.0]))
print(torch.tensor([1e-5, 1.0]), torch.tensor([0.5, 100.25]), torch.tensor([1e10]))
print(torch.tensor([123456789.0]), torch.tensor(1e-10))
print(
    torch.tensor([1.0, 2.0, float("nan")]),
    torch.tensor([float("inf"), 1e-7]),
    torch.tensor([1.0, float("-inf")]),
)
print(
    torch.tensor([3.0, 4.0], dtype=torch.float64),
    torch.tensor([1 / 3], dtype=torch.float64),
    torch.tensor(2.5, dtype=torch.float64),
)
print(
    torch.tensor([100.0, 200.0]), torch.tensor([1.0, 10.0, 100.0, 1000.0]), torch.tensor([0.0, 0.0])
)
print(
    torch.tensor([[1e-3, 1e3], [5.0, -6.0]]), torch.tensor([[[1.5]]]), torch.tensor([[True, False]])
)
print(
    torch.zeros(2, 3, dtype=torch.int64),
    torch.ones(1, 1, 1, 2),
    torch.tensor([[]]),
    torch.zeros(3, 0, 2),
)
print(torch.arange(6.0).reshape(3, 2) / 7, -torch.arange(3.0))
x = torch.tensor([1.5, -0.25], requires_grad=True)
print(x, x * 1, x.sum(), x.mean(), x[0], x.detach(), x.data, x.abs().max())
y = x.double().sum()
print(y, torch.tensor(1.0, requires_grad=True) + 1)
print(
    torch.tensor([1, 2], dtype=torch.int16),
    torch.tensor([1, 2], dtype=torch.int8),
    torch.tensor([1.5, 2.5], dtype=torch.float16),
)
print(
    torch.tensor(-0.0), torch.tensor([-0.0]), torch.tensor([0.1, -0.1]), torch.tensor([5e-5, 5e5])
)
print(
    torch.tensor([1.0, 2.0]).sum().item(),
    torch.tensor(0.1).item(),
    torch.tensor(0.1, dtype=torch.float64).item(),
)
print(torch.tensor([1.1, 2.2]).tolist(), torch.tensor([[1, 2]]).tolist(), torch.tensor(True).item())
print(
    repr(torch.tensor([1.0])),
    str(torch.tensor([1.0])),
    f"{torch.tensor(2.5)}",
    f"{torch.tensor(2.5):.1f}",
)
print(
    "%.3f" % torch.tensor(1.23456),  # noqa: UP031
    "{:>8.2f}".format(torch.tensor(3.14159).item()),  # noqa: UP032
    float(torch.tensor(7)),
)
print(int(torch.tensor(3.9)), bool(torch.tensor(0.0)), torch.tensor([5]).item(), len(torch.ones(4)))
print([t for t in torch.arange(3)], list(torch.tensor([[1, 2], [3, 4]])), *torch.tensor([7, 8]))
torch.set_printoptions(precision=3, sci_mode=False)
print(torch.tensor([1e-6, 1.0, 12345.678]), torch.tensor([[0.12345, 1.5]]))
torch.set_printoptions(precision=4, sci_mode=None)
print(torch.tensor([1e-6, 1.0]), torch.tensor([1.0, 2.0]) * 1e6, torch.tensor([1.0, 2.0]) * 1e-6)
print(torch.full((3,), 1e-3), torch.full((2,), 99999.0), torch.full((2,), 100000.0))
print(torch.tensor([12.5, 7.0, 1234.0]), torch.tensor([0.001, 0.01]), torch.tensor([1e15, 1e16]))
print(torch.tensor([[1, 2, 3], [40, 50, 60]]).T, torch.linspace(-1, 1, 3) * 1e-3)
print(torch.randn(3, 4, generator=torch.Generator().manual_seed(0)) * 1000)
print(torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.zeros(1), requires_grad=False))
print(torch.tensor([1.0, 2.0]).to(torch.float64).requires_grad_(), torch.ones(2).long().bool())
print(torch.tensor([[1.0, 2.0], [3.0, 4.0]]).inverse(), torch.tensor([2.0]).reciprocal())
print(torch.tensor([65504.0], dtype=torch.float16) * 2, torch.tensor([1e-8], dtype=torch.float16))
print(torch.tensor([0.1, 0.2, 0.3]).sum() - 0.6, torch.tensor(1.0) / 3, torch.tensor(2.0).sqrt())
