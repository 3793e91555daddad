"""The same small regression trained by each optimizer a tutorial compares, losses printed."""

import torch
from torch import nn

torch.manual_seed(0)
X = torch.randn(32, 3)
true_w = torch.tensor([[1.5], [-2.0], [0.5]])
Y = X @ true_w + 0.1 * torch.randn(32, 1)


def make_model():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))


recipes = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.05),
    "momentum": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, dampening=0.1),
    "nesterov": lambda p: torch.optim.SGD(
        p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3
    ),
    "adam": lambda p: torch.optim.Adam(p, lr=0.01),
    "adam_wd": lambda p: torch.optim.Adam(p, lr=0.01, weight_decay=0.01, amsgrad=True),
    "adamw": lambda p: torch.optim.AdamW(p, lr=0.01, betas=(0.8, 0.95)),
    "rmsprop": lambda p: torch.optim.RMSprop(p, lr=0.005, momentum=0.5, centered=True),
    "adagrad": lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.01),
    "maximize": lambda p: torch.optim.SGD(p, lr=0.01, maximize=False, foreach=False),
}
for name, make_opt in recipes.items():
    model = make_model()
    opt = make_opt(model.parameters())
    losses = []
    for epoch in range(25):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X), Y)
        loss.backward()
        opt.step()
        if epoch % 8 == 0:
            losses.append(f"{loss.item():.4f}")
    print(f"{name:9s}", losses, f"{nn.functional.mse_loss(model(X), Y).item():.4f}")
model = make_model()
opt = torch.optim.Adam(model.parameters(), lr=0.05)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(X, Y), batch_size=8, shuffle=True
)
torch.manual_seed(2)
for epoch in range(3):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.l1_loss(model(xb), yb)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        sched.step()
        total += loss.item() * len(xb)
    print(epoch, round(total / len(X), 4), sched.get_last_lr())
with torch.no_grad():
    print(model(X[:3]).squeeze(1).round(decimals=2), round(model[0].weight.norm().item(), 4))
