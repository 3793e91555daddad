"""Gradient plumbing: accumulation over backward calls, tensor hooks that edit gradients,
retain_grad, zero_grad variants, detach vs no_grad, and gradient clipping."""

import torch
from torch import nn

x = torch.tensor([1.0, 2.0], requires_grad=True)
for i in range(3):
    (x * (i + 1)).sum().backward()
    print(i, x.grad, x.grad.data_ptr() == x.grad.data_ptr())
x.grad.zero_()
print(x.grad)
x.grad = None
h = x.register_hook(lambda g: g * 10)
(x**2).sum().backward()
print(x.grad)
h.remove()
x.grad = None
(x**2).sum().backward()
print(x.grad)
y = x * 3
y.retain_grad()
z = y.exp().sum()
seen = []
y.register_hook(lambda g: seen.append(g.clone()))
z.backward()
print(y.grad, seen, y.is_leaf, y.retains_grad, x.retains_grad)
a = torch.ones(2, requires_grad=True)
b = a * 2
b.register_hook(lambda g: print("hook on b:", g))
c = b.detach() * 5 + b
c.sum().backward()
print(a.grad, c.grad_fn, c.requires_grad, b.detach().requires_grad)
with torch.no_grad():
    d = a * 2
print(d.requires_grad, d.grad_fn, (a * 2).requires_grad)
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
torch.manual_seed(0)
for p in model.parameters():
    nn.init.constant_(p, 0.5)
inp = torch.tensor([[1.0, -1.0], [2.0, 0.5]])
model(inp).sum().backward()
model(inp).sum().backward()
print(model[0].weight.grad, model[2].bias.grad)
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(total, model[0].weight.grad, sum(p.grad.norm() ** 2 for p in model.parameters()).sqrt())
nn.utils.clip_grad_value_(model.parameters(), 0.1)
print(model[2].weight.grad)
model.zero_grad()
print([p.grad for p in model.parameters()][:2])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(inp).mean().backward()
opt.zero_grad(set_to_none=False)
print(model[0].bias.grad)
w = torch.tensor([3.0], requires_grad=True)
w.register_post_accumulate_grad_hook(lambda p: print("accumulated", p.grad))
(w * w).backward()
(w * 2).backward()
print(w.grad)
m = torch.ones(3, requires_grad=True)
out = (m * torch.tensor([1.0, 2.0, 3.0])).sum()
g1 = torch.autograd.grad(out, m, retain_graph=True)
print(g1, m.grad)
out.backward(inputs=[m])
print(m.grad)
v = torch.ones(2, 2, requires_grad=True)
(v.sum(0) * torch.tensor([1.0, -1.0])).backward(torch.tensor([2.0, 3.0]))
print(v.grad)
