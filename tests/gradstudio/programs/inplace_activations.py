"""Activations applied in place, as real models write them: ``inplace=True`` by keyword,
by position (``nn.LeakyReLU`` passes its flag positionally, ``False`` included)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

w = torch.tensor([[0.5, -1.0, 0.25], [-0.75, 0.5, 1.0]], requires_grad=True)
x = torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]])
h = x @ w.t()
a = F.leaky_relu(h, 0.2, inplace=True)
b = nn.ELU(inplace=True)(a * 3)
c = F.hardtanh(b * 1, -1.0, 4.0, True)
d = F.relu(c + 0.5, inplace=True)
e = nn.LeakyReLU(0.1)(d - 0.2)
loss = (e * torch.tensor([1.0, 2.0])).sum()
loss.backward()
