"""The hooks tutorial's looking hooks: a tensor hook, a grad_fn hook and a forward hook."""

import torch
from torch import nn

torch.manual_seed(0)
seen = []
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x * x
y.register_hook(lambda grad: seen.append(grad.clone()))
z = y.sum() * 2
z.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(grad_outputs[0]))
layer = nn.Linear(3, 2)
outputs = []
layer.register_forward_hook(lambda module, args, output: outputs.append(output))
out = layer(x).sum()
total = z + out
total.backward()
