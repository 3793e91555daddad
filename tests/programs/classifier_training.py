"""An end-to-end classifier: synthetic blobs, train/val split, a loop with eval and accuracy."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(42)
centers = torch.tensor([[2.0, 2.0], [-2.0, -2.0], [2.0, -2.0]])
labels = torch.arange(3).repeat_interleave(40)
X = centers[labels] + 0.8 * torch.randn(120, 2)
dataset = TensorDataset(X, labels)
train_set, val_set = random_split(dataset, [90, 30], generator=torch.Generator().manual_seed(0))
train_loader = DataLoader(train_set, batch_size=16, shuffle=True)
val_loader = DataLoader(val_set, batch_size=30)
model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)


def evaluate():
    model.eval()
    correct = total = 0
    loss_sum = 0.0
    with torch.no_grad():
        for xb, yb in val_loader:
            out = model(xb)
            loss_sum += criterion(out, yb).item() * len(yb)
            correct += (out.argmax(1) == yb).sum().item()
            total += yb.size(0)
    return loss_sum / total, correct / total


for epoch in range(4):
    model.train()
    running = 0.0
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item() * xb.size(0)
    scheduler.step()
    val_loss, acc = evaluate()
    lr = scheduler.get_last_lr()[0]
    print(f"epoch {epoch} train {running / 90:.4f} val {val_loss:.4f} acc {acc:.3f} lr {lr}")
probs = torch.softmax(model(centers), dim=1)
print(probs.argmax(1), probs.max(1).values > 0.5)
preds = model(X).argmax(1)
confusion = torch.zeros(3, 3, dtype=torch.long)
for t, p in zip(labels, preds):
    confusion[t, p] += 1
print(confusion)
print(f"accuracy {(preds == labels).float().mean().item():.4f}")
