"""Broadcasting in the forward pass, summing back in the backward pass."""

import torch

torch.manual_seed(2)
a = torch.randn(3, 1, requires_grad=True)
b = torch.randn(1, 4, requires_grad=True)
c = a * b
print(c.shape)
c.sum().backward()
print(a.grad.shape, b.grad.shape)
print(a.grad.squeeze(), b.grad.squeeze())
bias = torch.zeros(4, requires_grad=True)
x = torch.randn(5, 4)
out = (x + bias).relu().mean()
out.backward()
print(bias.grad)
s = torch.tensor(2.0, requires_grad=True)
t = torch.ones(2, 3) * s
t.backward(torch.full((2, 3), 0.5))
print(s.grad, s.grad.shape)
try:
    torch.ones(2, 3) + torch.ones(3, 2)
except RuntimeError as err:
    print(err)
u = torch.arange(3.0).view(3, 1) - torch.arange(2.0)
print(u)
print(torch.broadcast_tensors(torch.ones(2, 1), torch.ones(3))[0].shape)
w = torch.ones(3, requires_grad=True)
(w.unsqueeze(0).expand(4, 3) * torch.arange(4.0).unsqueeze(1)).sum().backward()
print(w.grad)
p = torch.tensor([[1.0], [2.0]], requires_grad=True)
q = (p / torch.tensor([1.0, 2.0, 4.0])).sum()
q.backward()
print(p.grad, q)
print((torch.ones(2, 1, 3) @ torch.ones(4, 3, 2)).shape)
