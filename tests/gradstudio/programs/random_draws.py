"""Random draws: randn, randint, randperm, dropout and nn.init, seeded as tutorials do."""

import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(4, 3)
nn.init.xavier_uniform_(layer.weight)
x = torch.randn(2, 4)
noise = torch.rand_like(x)
labels = torch.randint(0, 3, (2,))
order = torch.randperm(2)
hidden = nn.functional.dropout(layer(x + noise), p=0.5, training=True)
logits = hidden[order]
loss = nn.functional.cross_entropy(logits, labels[order])
loss.backward()
weight = layer.weight
