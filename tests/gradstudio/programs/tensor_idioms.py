"""Everyday tensor idioms: views, .T, reductions, max, where, norm, softmax."""

import torch
import torch.nn.functional as F

x = torch.tensor([[1.0, -2.0, 3.0], [0.5, 0.25, -1.0]], requires_grad=True)
a = x.T
b = x.view(3, 2)
c = x.reshape(-1)
d = x.sum(dim=1)
e = torch.stack([d, d * 2])
f = x.mean()
g = x.exp()
h = F.relu(x)
i = torch.where(x > 0, x, torch.zeros_like(x))
j = x.max()
k = x.norm()
l = x.unsqueeze(0).squeeze(0)
m = x.flatten()
n = x.t()
o = torch.cat([x, x], dim=0)
p1 = p2 = x[0]
q = torch.max(x, dim=1).values
r = x.abs().log1p().sqrt()
s = F.softmax(x, dim=1)
total = (
    a.sum()
    + b.sum()
    + c.sum()
    + e.sum()
    + f
    + g.sum()
    + h.sum()
    + i.sum()
    + j
    + k
    + l.sum()
    + m.sum()
    + n.sum()
    + o.sum()
    + p1.sum()
    + p2.sum()
    + q.sum()
    + r.sum()
    + s.sum()
)
total.backward()
