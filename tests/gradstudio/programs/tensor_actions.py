"""Tensor actions a learner meets: detach, .data, clone, retain_grad, .to, indexing."""

import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
frozen = y.detach()
c = y.clone()
c.retain_grad()
e = 1.0 / c
f = 2 - e
h = f[0] + f[1:].sum() + f[[0, 2]].sum()
k = torch.zeros(3)
k[0] = 5.0
k[1:] = frozen[:2]
k.requires_grad_()
m = h * k.sum() + (f > 1.5).sum()
raw = x.data
w = torch.ones(3, requires_grad=True)
w.data = w.data * 0.5
q = (m * w.sum()).to(torch.float64)
torch.autograd.backward([q])
