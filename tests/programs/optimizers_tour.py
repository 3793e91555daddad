"""One quadratic, many optimizers: SGD variants, Adam, AdamW, RMSprop, Adagrad."""

import torch

torch.manual_seed(1)
target = torch.tensor([1.0, -2.0, 3.0])


def run(make, steps=5):
    w = torch.zeros(3, requires_grad=True)
    opt = make([w])
    for _ in range(steps):
        opt.zero_grad()
        loss = ((w - target) ** 2).sum()
        loss.backward()
        opt.step()
    return w.detach(), loss.item()


cases = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.1),
    "momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
    "nesterov": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    "wd": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.5, weight_decay=0.01, dampening=0.1),
    "adam": lambda p: torch.optim.Adam(p, lr=0.1),
    "amsgrad": lambda p: torch.optim.Adam(p, lr=0.1, amsgrad=True, weight_decay=0.1),
    "adamw": lambda p: torch.optim.AdamW(p, lr=0.1, weight_decay=0.1),
    "rmsprop": lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9),
    "rms_mom": lambda p: torch.optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True),
    "adagrad": lambda p: torch.optim.Adagrad(p, lr=0.5),
}
for name, make in cases.items():
    w, loss = run(make)
    print(f"{name:9s} {loss:.5f}", w)

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(
    [{"params": [model.weight]}, {"params": [model.bias], "lr": 0.5}], lr=0.01, momentum=0.9
)
print(len(opt.param_groups), [g["lr"] for g in opt.param_groups])
print(sorted(k for k in opt.param_groups[0] if k != "params"))
model(torch.ones(4, 2)).sum().backward()
opt.step()
sd = opt.state_dict()
print(sorted(sd.keys()), list(sd["state"].keys()), sd["param_groups"][1]["params"])
print(sd["state"][0]["momentum_buffer"])
opt.zero_grad()
print(model.weight.grad)
opt.zero_grad(set_to_none=False)
adam = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.8, 0.99), eps=1e-6)
print(adam.defaults["betas"], adam.defaults["eps"])
print(adam)
