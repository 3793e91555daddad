"""An MLP on a toy two-moons-like dataset with TensorDataset, DataLoader and Adam for 50 steps."""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
n = 64
angle = torch.rand(n) * 3.14159
X = torch.stack([angle.cos(), angle.sin()], dim=1) + 0.1 * torch.randn(n, 2)
y = (torch.rand(n) > 0.5).long()
X[y == 1] += torch.tensor([1.0, -0.5])
dataset = TensorDataset(X, y)
loader = DataLoader(dataset, batch_size=16, shuffle=True)
print(len(dataset), len(loader))
model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
step = 0
while step < 50:
    for xb, yb in loader:
        logits = model(xb)
        loss = criterion(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        if step % 10 == 0:
            print(f"step {step:3d}  loss {loss.item():.4f}")
        if step == 50:
            break
with torch.no_grad():
    pred = model(X).argmax(1)
    acc = (pred == y).float().mean()
print(f"accuracy: {acc:.3f}")
print(xb.shape, yb.dtype, yb[:4])
print(optimizer.state_dict()["param_groups"][0]["betas"])
print(len(optimizer.state), optimizer.state[model[0].weight]["step"])
