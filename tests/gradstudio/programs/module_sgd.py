"""An nn.Module trained with SGD: zero_grad, forward, loss, backward, step."""

import torch
from torch import nn

torch.manual_seed(0)


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = TwoLayer()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
targets = torch.tensor([[1.0], [-1.0]])
for _step in range(5):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
weight = model.fc1.weight
