"""A deterministic program with a helper function, a loop, a NumPy array and math."""

import math

import numpy as np
import torch

data = np.array([0.5, -1.0, 2.0], dtype=np.float32)


def square_error(pred, target):
    return ((pred - target) ** 2).mean()


x = torch.tensor(data.tolist(), requires_grad=True)
w = torch.tensor([1.5, -0.25, 0.75], requires_grad=True)
total = torch.zeros(())
for step in range(3):
    pred = torch.sin(x * w) * math.pi + step
    total = total + square_error(pred, torch.ones(3))
total.backward()
