"""Learning-rate schedules step by step, as a training loop reads them."""

import io
import math

import torch
from torch.optim import lr_scheduler


def fresh(lr=0.1):
    w = torch.nn.Parameter(torch.ones(2))
    return torch.optim.SGD([w], lr=lr, momentum=0.9)


def trace(opt, sched, n=6):
    out = []
    for _ in range(n):
        opt.step()
        sched.step()
        out.append(round(sched.get_last_lr()[0], 6))
    return out


opt = fresh()
print("step", trace(opt, lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)))
opt = fresh()
print("multi", trace(opt, lr_scheduler.MultiStepLR(opt, milestones=[1, 4], gamma=0.1)))
opt = fresh()
print("exp", trace(opt, lr_scheduler.ExponentialLR(opt, gamma=0.9)))
opt = fresh()
print("cos", trace(opt, lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.01), 8))
opt = fresh()
print("linear", trace(opt, lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=4)))
opt = fresh()
print("lambda", trace(opt, lr_scheduler.LambdaLR(opt, lambda e: 1 / (1 + e))))
opt = fresh()
warm = lr_scheduler.LambdaLR(opt, lr_lambda=lambda e: min(1.0, (e + 1) / 3))
print("warmup", trace(opt, warm, 4), opt.param_groups[0]["lr"])
state = warm.state_dict()
print(warm.last_epoch, state["last_epoch"], state["lr_lambdas"], state["base_lrs"])
warm.load_state_dict(state)
buf = io.BytesIO()
torch.save({"sched": state}, buf)
print(buf.tell() > 0)

opt = fresh(1.0)
plateau = lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1)
for epoch, val in enumerate([1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7]):
    plateau.step(val)
    print(epoch, opt.param_groups[0]["lr"], plateau.num_bad_epochs, plateau.best)
opt = fresh()
s = lr_scheduler.StepLR(opt, 3)
print(s.get_last_lr(), s.base_lrs, s.last_epoch)
print(math.isclose(opt.param_groups[0]["initial_lr"], 0.1))
