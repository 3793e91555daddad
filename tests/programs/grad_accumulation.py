"""Gradients accumulate across backward calls until zero_grad; retain_graph for a second pass."""

import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.tensor([1.0, 2.0, 3.0])
for step in range(3):
    loss = (w * x).sum()
    loss.backward()
    print(f"step {step}: grad={w.grad.tolist()}")
w.grad.zero_()
print(w.grad)
y = (w**2).sum()
y.backward(retain_graph=True)
y.backward()
print(w.grad)
try:
    y.backward()
except RuntimeError as err:
    print(str(err).split(".")[0])
w.grad = None
model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
accum = 4
for i in range(8):
    xb = torch.randn(5, 3)
    loss = model(xb).pow(2).mean() / accum
    loss.backward()
    if (i + 1) % accum == 0:
        print(i, round(model.weight.grad.norm().item(), 5))
        opt.step()
        opt.zero_grad()
print(model.weight.grad)
print(model.bias)
