"""Hooks as tutorials write them: one that changes its gradient in place (returning
None), one that prints, one that collects gradients into a list of the program."""

import torch

seen = []
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
loss = y.sum()
loss.register_hook(lambda g: seen.append(g))
y.register_hook(lambda g: print("y grad", g))


def scale(g):
    g.mul_(100)


x.register_hook(scale)
loss.backward()
print(seen, x.grad)
