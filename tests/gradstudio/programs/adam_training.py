"""A small model trained with Adam, AdamW (weight decay) and Adam with amsgrad."""

import torch
from torch import nn

torch.manual_seed(0)
x = torch.linspace(-1, 1, 16).reshape(8, 2)
target = (x[:, :1] * 3 - x[:, 1:] * 0.5).sin()
model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
first = model[0].weight
head = model[2].bias
adam = torch.optim.Adam(model[0].parameters(), lr=0.05)
adamw = torch.optim.AdamW(model[2].parameters(), lr=0.02, weight_decay=0.1, amsgrad=True)
for _ in range(5):
    adam.zero_grad()
    adamw.zero_grad()
    loss = ((model(x) - target) ** 2).mean()
    loss.backward()
    adam.step()
    adamw.step()
print(loss.item(), first.sum().item(), head.item())
