"""Optimizer internals people print: state_dict, param_groups, add_param_group, lr changes."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
print(opt)
print(opt.state_dict())
x = torch.randn(4, 3)
for _ in range(2):
    opt.zero_grad()
    model(x).pow(2).mean().backward()
    opt.step()
sd = opt.state_dict()
print(sd["param_groups"], list(sd["state"].keys()), sorted(sd["state"][0].keys()))
print(sd["state"][1]["momentum_buffer"])
for g in opt.param_groups:
    g["lr"] = 0.01
print(opt.param_groups[0]["lr"], len(opt.param_groups), opt.defaults["lr"])
extra = nn.Parameter(torch.zeros(2))
opt.add_param_group({"params": [extra], "lr": 0.5})
print(len(opt.param_groups), opt.param_groups[1]["lr"], opt.param_groups[1]["momentum"])
adam = torch.optim.Adam([{"params": model.weight}, {"params": model.bias, "lr": 1e-2}], lr=1e-3)
print(adam)
adam.zero_grad()
model(x).sum().backward()
adam.step()
st = adam.state[model.weight]
print(sorted(st.keys()), st["step"], st["exp_avg"], st["exp_avg_sq"])
adam2 = torch.optim.Adam([{"params": model.weight}, {"params": model.bias}], lr=1e-3)
adam2.load_state_dict(adam.state_dict())
print(adam2.param_groups[1]["lr"], adam2.state[model.bias]["step"])
print(adam.state_dict()["param_groups"][0])
opt3 = torch.optim.AdamW(model.parameters(), lr=0.01, betas=(0.8, 0.99), amsgrad=True)
print(
    opt3.param_groups[0]["betas"],
    opt3.param_groups[0]["weight_decay"],
    opt3.param_groups[0]["amsgrad"],
)
rms = torch.optim.RMSprop(model.parameters(), lr=0.01, alpha=0.9)
print(sorted(k for k in rms.defaults))
model.zero_grad()
print(model.weight.grad)
model(x).sum().backward()
opt.zero_grad(set_to_none=False)
print(model.weight.grad)
try:
    torch.optim.SGD([torch.ones(2, requires_grad=True)], lr=-1)
except ValueError as e:
    print("ValueError:", e)
try:
    torch.optim.SGD([], lr=0.1)
except ValueError as e:
    print("ValueError:", e)
try:
    torch.optim.SGD(torch.ones(2), lr=0.1)
except TypeError as e:
    print("TypeError:", e)
