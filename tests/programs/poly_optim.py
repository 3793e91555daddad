"""Learning PyTorch with Examples: RMSprop on the cubic fit, then SGD with momentum."""

import math

import torch

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 200)
y = torch.sin(x)
xx = x.unsqueeze(-1).pow(torch.tensor([1, 2, 3]))
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(200):
    loss = loss_fn(model(xx), y)
    if t % 50 == 49:
        print(t, f"{loss.item():.4f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(optimizer)
sgd = torch.optim.SGD(model.parameters(), lr=1e-5, momentum=0.9, nesterov=True, weight_decay=1e-4)
for _ in range(100):
    sgd.zero_grad()
    loss = loss_fn(model(xx), y)
    loss.backward()
    sgd.step()
print(f"after sgd: {loss.item():.4f}")
print(sgd.param_groups[0]["lr"], sgd.param_groups[0]["momentum"])
print([p.grad is None for p in model.parameters()])
sgd.zero_grad(set_to_none=False)
print([p.grad.abs().sum().item() for p in model.parameters()])
