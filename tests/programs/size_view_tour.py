"""torch.Size as a tuple, strides, views sharing storage, contiguity and in-place view ops."""

import torch

x = torch.arange(24).reshape(2, 3, 4)
s = x.shape
print(s, s[1:], s[-1], len(s), s + (5,), s.numel(), type(s[1:]).__name__)  # noqa: RUF005
print(s == torch.Size([2, 3, 4]), s == (2, 3, 4), list(s), s.index(3), s.count(2))
n, c, w = s
print(n, c, w, x.size(), x.size(-1), x.size(1), torch.Size(), torch.Size([0]).numel())
print(x.view(s[0], -1).shape, x.reshape(*s[:2], 2, 2).shape, x.new_zeros(s[1:]).shape)
print(x.stride(), x.stride(0), x.storage_offset(), x.is_contiguous())
t = x.transpose(0, 2)
print(t.shape, t.stride(), t.is_contiguous(), t.contiguous().stride())
v = x[:, 1]
print(v.shape, v.stride(), v.storage_offset(), v._base is x, v.is_contiguous())
v[0, 0] = 100
print(x[0, 1], x._version, v._version)
try:
    t.view(-1)
except RuntimeError as e:
    print("RuntimeError:", e)
print(t.reshape(-1)[:5], x.flatten(1).shape, x.unflatten(2, (2, 2)).shape)
y = torch.zeros(3, 4)
y.t_()
print(y.shape, y.stride())
y.unsqueeze_(0)
print(y.shape)
y.squeeze_()
y.transpose_(0, 1)
print(y.shape, y.is_contiguous())
z = torch.ones(2, 3)
d = z.detach()
d[0, 0] = 5
print(z, z._version, d._version)
e = z.expand(4, 2, 3)
print(e.shape, e.stride(), e.is_contiguous())
print(z.unsqueeze(1).expand(-1, 2, -1).shape, z[None].shape, z[..., None].shape)
print(x.permute(2, 0, 1).shape, x.movedim(0, -1).shape, x.mT.shape, x[0].T.shape)
print(
    torch.empty(0, 3).shape,
    torch.zeros(2, 0, 3).numel(),
    torch.ones(()).shape,
    torch.ones(()).dim(),
)
a = torch.arange(6.0)
b = a.view(2, 3)
b.mul_(10)
print(a, a._version, b._version)
c = a[::2]
print(c, c.stride(), c.is_contiguous(), a.narrow(0, 1, 3), a.view(3, 2).storage_offset())
print(x.select(1, 0).shape, x.chunk(2, dim=2)[1].shape, x.split([1, 3], dim=2)[1].shape)
print(x.size() == x.shape, hash(x.shape) == hash((2, 3, 4)), str(torch.Size([1])))
