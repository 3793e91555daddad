"""clip_grad_norm_, clip_grad_value_ and learning-rate schedulers in a training loop."""

import torch
from torch import nn, optim
from torch.optim.lr_scheduler import ExponentialLR, StepLR

torch.manual_seed(0)
model = nn.Linear(5, 1)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = StepLR(opt, step_size=3, gamma=0.5)
X = torch.randn(20, 5)
Y = X @ torch.tensor([[1.0], [-2.0], [0.5], [0.0], [3.0]]) + 0.3
loss_fn = nn.MSELoss()
for epoch in range(7):
    opt.zero_grad()
    loss = loss_fn(model(X), Y)
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)
    opt.step()
    sched.step()
    print(f"epoch {epoch} loss {loss.item():.4f} norm {norm:.4f} lr {sched.get_last_lr()[0]:.4f}")
print(opt.param_groups[0]["lr"], sched.last_epoch)
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.01)
print(model.weight.grad.abs().max().item() <= 0.01)
adam = optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1)
exp = ExponentialLR(adam, gamma=0.9)
for _ in range(3):
    adam.zero_grad()
    loss_fn(model(X), Y).backward()
    adam.step()
    exp.step()
print([round(lr, 6) for lr in exp.get_last_lr()])
print(model.weight.data)
ag = optim.Adagrad(model.parameters(), lr=0.1)
ag.zero_grad()
loss_fn(model(X), Y).backward()
ag.step()
print(model.bias)
total = torch.nn.utils.parameters_to_vector(model.parameters())
print(total.shape, total.grad_fn)
