"""A small model trained with RMSprop (momentum, centered) and Adagrad (lr decay)."""

import torch
from torch import nn

torch.manual_seed(0)
x = torch.linspace(-1, 1, 16).reshape(8, 2)
target = (x[:, :1] * 3 - x[:, 1:] * 0.5).sin()
model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
first = model[0].weight
head = model[2].bias
rms = torch.optim.RMSprop(model[0].parameters(), lr=0.01, momentum=0.9, centered=True)
ada = torch.optim.Adagrad(model[2].parameters(), lr=0.1, lr_decay=0.01, weight_decay=0.01)
for _ in range(5):
    rms.zero_grad()
    ada.zero_grad()
    loss = ((model(x) - target) ** 2).mean()
    loss.backward()
    rms.step()
    ada.step()
print(loss.item(), first.sum().item(), head.item())
