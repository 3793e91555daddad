"""Learning-rate schedules combined: SequentialLR warmup, ChainedScheduler, OneCycleLR, restarts."""

import torch
from torch import nn
from torch.optim import lr_scheduler as S


def make(lr=0.1):
    return torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=lr, momentum=0.9)


opt = make()
warm = S.LinearLR(opt, start_factor=0.1, total_iters=3)
cos = S.CosineAnnealingLR(opt, T_max=5)
seq = S.SequentialLR(opt, schedulers=[warm, cos], milestones=[3])
out = []
for _ in range(8):
    opt.step()
    seq.step()
    out.append(round(seq.get_last_lr()[0], 6))
print(out)
opt = make()
chain = S.ChainedScheduler(
    [S.ConstantLR(opt, factor=0.5, total_iters=2), S.ExponentialLR(opt, gamma=0.9)]
)
out = []
for _ in range(5):
    opt.step()
    chain.step()
    out.append(round(opt.param_groups[0]["lr"], 6))
print(out)
opt = make()
one = S.OneCycleLR(opt, max_lr=1.0, total_steps=10)
out = []
for _ in range(10):
    out.append((round(one.get_last_lr()[0], 5), round(opt.param_groups[0]["momentum"], 4)))
    opt.step()
    one.step()
print(out)
opt = make()
wr = S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.01)
out = []
for _ in range(10):
    opt.step()
    wr.step()
    out.append(round(wr.get_last_lr()[0], 5))
print(out)
opt = make()
lam = S.LambdaLR(opt, lr_lambda=lambda e: 0.5**e)
mult = S.MultiplicativeLR(make(), lr_lambda=lambda e: 0.95)
for _ in range(3):
    opt.step()
    lam.step()
print(lam.get_last_lr(), lam.last_epoch, lam.state_dict()["base_lrs"])
opt = make()
ms = S.MultiStepLR(opt, milestones=[2, 4], gamma=0.1)
out = []
for _ in range(6):
    opt.step()
    ms.step()
    out.append(round(ms.get_last_lr()[0], 6))
print(out, sorted(ms.state_dict().keys()))
opt = make()
cyc = S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2)
out = []
for _ in range(6):
    opt.step()
    cyc.step()
    out.append(round(cyc.get_last_lr()[0], 4))
print(out)
opt = make()
poly = S.PolynomialLR(opt, total_iters=4, power=2.0)
out = []
for _ in range(5):
    opt.step()
    poly.step()
    out.append(round(poly.get_last_lr()[0], 6))
print(out, type(mult).__name__, torch.tensor(out).sum() * 2)
