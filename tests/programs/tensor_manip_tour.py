"""Rearranging tensors: flips, rolls, rotations, tiling, triangles, diagonals, index writes."""

import torch

x = torch.arange(12).reshape(3, 4)
print(
    torch.flip(x, [0]),
    x.fliplr(),
    x.flipud()[0],
    torch.roll(x, 1),
    torch.roll(x, shifts=(1, -1), dims=(0, 1)),
)
print(torch.rot90(x), torch.rot90(x, 2, [0, 1]), torch.rot90(x, -1).shape)
print(x.repeat(2, 1).shape, x.repeat(1, 1, 2).shape, torch.tile(torch.tensor([1, 2]), (2,)))
print(torch.tril(x), torch.triu(x, diagonal=1), torch.tril(x, -1).sum())
print(torch.diag(x), torch.diagonal(x, offset=1), torch.diag(torch.tensor([1, 2])))
print(torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4])))
gx, gy = torch.meshgrid(torch.arange(2), torch.arange(3), indexing="xy")
print(gx, gy.shape)
print(
    torch.stack([x, x], dim=2).shape,
    torch.hstack([x, x]).shape,
    torch.vstack([x, x]).shape,
    torch.dstack([x, x]).shape,
)
print(
    torch.column_stack([torch.tensor([1, 2]), torch.tensor([3, 4])]),
    torch.row_stack([torch.tensor([1, 2])]),
)
print(
    torch.chunk(torch.arange(7), 3),
    torch.tensor_split(torch.arange(7), 3),
    torch.split(torch.arange(5), [2, 3]),
)
print(
    torch.unbind(x, dim=1)[2],
    torch.movedim(torch.ones(2, 3, 4), 0, 2).shape,
    torch.swapaxes(x, 0, 1).shape,
)
print(x.flatten()[torch.tensor([0, 5, 11])], torch.gather(x, 1, torch.tensor([[0], [1], [2]])))
print(torch.index_select(x, 1, torch.tensor([3, 0])), x[x > 8], torch.narrow(x, 1, 1, 2))
w = torch.tensor([[0.5, -1.0], [2.0, 3.0]], requires_grad=True)
picked = w.masked_select(w > 0)
(picked * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(picked, w.grad, torch.masked_select(x, torch.tensor([True, False, False, True])))
y = torch.zeros(3, 4)
y.index_add_(0, torch.tensor([0, 2, 0]), torch.ones(3, 4))
print(y)
y[:, 1] = -1.0
y[1] = torch.full((4,), 7.0)
print(y, y.masked_fill(y < 0, 0.5))
z = torch.zeros(5)
z[torch.tensor([0, 4])] = torch.tensor([9.0, 8.0])
z.scatter_add_(0, torch.tensor([1, 1, 2]), torch.tensor([1.0, 2.0, 3.0]))
print(z, torch.zeros(2, 3).scatter_(1, torch.tensor([[2], [0]]), 5.0))
m = torch.arange(6.0).reshape(2, 3)
m[m > 2] = 0
m[:, 0] += 10
m[torch.tensor([1]), torch.tensor([2])] = -1
print(m, m.T.contiguous().view(-1), m.flatten().argsort(descending=True))
print(torch.where(m > 0), torch.where(m > 0, m, -m), torch.where(m > 5, 1.0, 0.0))
print(
    x.unsqueeze(0).expand(2, -1, -1).shape,
    x.expand_as(torch.empty(2, 3, 4)).shape,
    x.view_as(torch.empty(4, 3)),
)
print(torch.atleast_3d(torch.tensor(1.0)).shape, torch.squeeze(torch.ones(1, 2, 1), (0, 2)).shape)
print(
    torch.broadcast_tensors(torch.ones(2, 1), torch.ones(3))[0].shape,
    torch.broadcast_shapes((2, 1), (1, 3)),
)
print(torch.flatten(torch.ones(2, 3, 4), 0, 1).shape, torch.ravel(x)[:3], x.reshape(-1, 6).shape)
print(torch.vsplit(x, 3)[0], torch.hsplit(x, [1])[1].shape, torch.argwhere(x % 5 == 0))
print(x.short(), x.char().dtype, x.byte().dtype, x.ndimension(), torch.moveaxis(x, 0, 1).shape)
print(torch.take_along_dim(x, torch.tensor([[0], [1], [2]]), 1), torch.logical_xor(x > 3, x < 8)[0])
f = torch.tensor([1.0, -float("inf"), float("inf"), -0.0])
print(torch.isposinf(f), torch.isneginf(f), torch.signbit(f), torch.absolute(f))
