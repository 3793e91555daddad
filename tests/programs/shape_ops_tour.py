"""Joining and splitting: cat, stack, split, chunk, unbind, repeat, expand, permute, view."""

import torch

a = torch.arange(6.0).reshape(2, 3)
b = torch.ones(2, 3)
print(torch.cat([a, b]), torch.cat((a, b), dim=1).shape, torch.cat([a, b], -1).shape)
print(torch.stack([a, b]).shape, torch.stack([a, b], dim=2).shape)
print(torch.split(torch.arange(7), 3), torch.arange(7).split([2, 5]))
print(torch.chunk(torch.arange(7), 3), a.chunk(2, dim=1))
print(a.unbind(1), torch.unbind(a))
print(a.repeat(2, 1), a.expand(2, 2, 3).shape, a[:, :1].expand(-1, 4))
print(a.permute(1, 0), a.T, a.t().is_contiguous(), a.transpose(0, 1).contiguous().is_contiguous())
print(a.view(3, 2), a.view(-1), a.reshape(1, -1).shape, a.flatten(), a.unsqueeze(0).shape)
print(a.squeeze(), torch.zeros(1, 3, 1).squeeze().shape, torch.zeros(1, 3, 1).squeeze(0).shape)
try:
    a.t().view(6)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.cat([a, torch.ones(3, 2)])
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    a.view(4, 2)
except RuntimeError as e:
    print("RuntimeError:", e)
x = torch.randn(2, 3, requires_grad=True)
parts = x.split(1, dim=1)
print(len(parts), parts[0].grad_fn, torch.cat(parts, 1).grad_fn, torch.stack(parts).grad_fn)
(torch.stack(parts) * 2).sum().backward()
print(x.grad)
print(a.flip(0), torch.tril(torch.ones(3, 3)), torch.triu(torch.ones(3, 3), diagonal=1))
print(a.narrow(1, 1, 2), a.movedim(0, 1).shape)
print(torch.zeros(2, 1, 3).expand(2, 4, 3).stride(), a.stride(), a.t().stride())
print(a.size(), a.size(-1), a.shape[0], len(a), a.nelement(), a.element_size())
print(torch.broadcast_tensors(torch.ones(3, 1), torch.ones(1, 2))[0].shape)
print(
    torch.einsum("ij,kj->ik", a, b),
    torch.einsum("ii", torch.eye(3)),
    torch.einsum("i,j->ij", a[0], a[1]),
)
print(torch.einsum("bij,bjk->bik", torch.ones(2, 2, 3), torch.ones(2, 3, 1)).squeeze(-1))
print(
    a @ b.T, torch.matmul(a, torch.ones(3)), torch.mm(a, b.t()), torch.bmm(a[None], b.T[None]).shape
)
print(torch.outer(torch.arange(3), torch.arange(2)), torch.dot(a[0], a[1]), a.sum(0, keepdim=True))
print(torch.vstack([a[0], b[0]]), torch.hstack([a, b]).shape, torch.atleast_2d(a[0, 0]).shape)
