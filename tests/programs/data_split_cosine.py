"""random_split into train/validation, DataLoader, CosineAnnealingLR, early-stopping bookkeeping."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(123)
X = torch.randn(40, 3)
true_w = torch.tensor([2.0, -1.0, 0.5])
y = (X @ true_w + 0.1 * torch.randn(40)).unsqueeze(1)
full = TensorDataset(X, y)
train_set, val_set = random_split(full, [0.75, 0.25])
print(len(train_set), len(val_set), train_set.indices[:5])
train_loader = DataLoader(train_set, batch_size=10, shuffle=True)
val_loader = DataLoader(val_set, batch_size=5)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.2)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6, eta_min=0.01)
history = []
for epoch in range(6):
    model.train()
    for xb, yb in train_loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
    sched.step()
    model.eval()
    with torch.no_grad():
        val = sum(nn.functional.mse_loss(model(xb), yb, reduction="sum") for xb, yb in val_loader)
    history.append(val.item() / len(val_set))
    print(f"epoch {epoch}: val {history[-1]:.5f} lr {sched.get_last_lr()[0]:.5f}")
best = torch.tensor(history).argmin()
print("best epoch", best.item(), model.training)
print(model.weight.data.clip(-1.5, 1.5), model.bias.clamp_max(0.0))
print(torch.tensor(history).argmax(), torch.tensor(history).min())
