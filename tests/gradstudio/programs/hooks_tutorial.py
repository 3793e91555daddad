"""The hooks tutorial's hooks that change gradients, and one that only looks."""

import torch


def double(grad):
    return grad * 2


def clip(grad):
    return grad.clamp(-1.0, 1.0)


x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, 0.25, -1.0], requires_grad=True)
y = x * w
y.register_hook(double)
z = y.exp()
z.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 0.5,))
y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] + 1, grad_inputs[1]))
s = z.sum()
w.register_hook(clip)
seen = []
x.register_hook(lambda grad: seen.append(grad))
s.backward()
