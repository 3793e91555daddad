"""Module forward and forward-pre hooks that change what the module computes."""

import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)
layer.register_forward_hook(lambda module, args, output: output * 2)
layer.register_forward_pre_hook(lambda module, args: (args[0] + 1,))
x = torch.tensor([[1.0, -2.0, 3.0]], requires_grad=True)
out = layer(x).sum()
out.backward()
