"""Knowledge distillation: a teacher's softened probabilities, KL divergence, a mixed loss."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
teacher = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
student = nn.Linear(4, 3)
x = torch.randn(8, 4)
y = torch.randint(0, 3, (8,))
T = 2.0
with torch.no_grad():
    soft_targets = F.softmax(teacher(x) / T, dim=1)
log_probs = F.log_softmax(student(x) / T, dim=1)
kd = F.kl_div(log_probs, soft_targets, reduction="batchmean") * T * T
print(kd, kd.grad_fn)
print(
    F.kl_div(log_probs, soft_targets, reduction="sum"),
    F.kl_div(log_probs, soft_targets, reduction="none").shape,
)
print(F.kl_div(log_probs, soft_targets.log(), reduction="batchmean", log_target=True))
crit = nn.KLDivLoss(reduction="batchmean")
print(crit, crit(log_probs, soft_targets))
print(nn.KLDivLoss(reduction="sum", log_target=True)(log_probs, soft_targets.log()))
loss = 0.7 * kd + 0.3 * F.cross_entropy(student(x), y)
loss.backward()
print(f"{loss.item():.5f}", student.weight.grad.norm())
print(teacher[0].weight.grad)
p = torch.tensor([[0.5, 0.5, 0.0]])
q = torch.tensor([[0.25, 0.25, 0.5]]).log()
print(F.kl_div(q, p, reduction="batchmean"), F.kl_div(q, p, reduction="none"))
opt = torch.optim.SGD(student.parameters(), lr=0.5)
for step in range(3):
    opt.zero_grad()
    lp = F.log_softmax(student(x) / T, dim=1)
    loss = F.kl_div(lp, soft_targets, reduction="batchmean")
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.6f}")
