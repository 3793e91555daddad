"""Calls that return several tensors, taken apart by unpacking and indexing; ``2 ** x``."""

import torch

x = torch.tensor([0.5, -1.0, 2.0, 1.5, 0.25, -0.75], requires_grad=True)
first, second = x.chunk(2)
a, b, c = torch.split(x * 2, [1, 2, 3])
rows = torch.stack([x, x]).unbind(0)
row = rows[1]
top = x.topk(2)
v, i = torch.sort(x, descending=True)
m = torch.max(x.view(2, 3), dim=1)
p = 2**x
total = (first * second).sum() + a.sum() + c.sum() * b.sum() + row.sum()
total = total + top.values.sum() + v[0] + m.values.sum() + p.sum()
total.backward()
