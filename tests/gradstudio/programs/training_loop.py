"""A two-layer net trained for 300 steps with SGD: the loop folds to its first and last steps."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = torch.randn(16, 3)
targets = torch.randn(16, 1)
for step in range(300):  # noqa: B007  (a learner names the counter)
    optimizer.zero_grad()
    prediction = model(inputs)
    loss = nn.functional.mse_loss(prediction, targets)
    loss.backward()
    optimizer.step()
first_weight = model[0].weight
last_bias = model[2].bias
