"""A post-accumulate-grad hook that halves the gradient in place (returning None)."""

import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)


def halve(p):
    p.grad.mul_(0.5)


w.register_post_accumulate_grad_hook(halve)
(w * w).sum().backward()
