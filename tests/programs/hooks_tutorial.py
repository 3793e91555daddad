"""Hooks tutorial: tensor hooks that print and change grads, module forward/backward hooks."""

import torch
import torch.nn as nn

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
d = torch.tensor(4.0, requires_grad=True)
e = c * d


def c_hook(grad):
    print(f"c grad in hook: {grad}")
    return grad + 2


c.register_hook(c_hook)
c.register_hook(lambda grad: print(grad))
c.retain_grad()
d.register_hook(lambda grad: grad * 100)
e.retain_grad()
e.register_hook(lambda grad: grad * 2)
e.backward()
print(f"a.grad={a.grad}, b.grad={b.grad}, c.grad={c.grad}, d.grad={d.grad}, e.grad={e.grad}")

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.Tanh()
        self.fc2 = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


net = Net()


def fwd_hook(module, inp, out):
    print(type(module).__name__, "in", tuple(inp[0].shape), "out", tuple(out.shape))


def bwd_hook(module, grad_input, grad_output):
    print(type(module).__name__, "grad_output", [g.shape for g in grad_output])


handles = [m.register_forward_hook(fwd_hook) for m in net.children()]
handles.append(net.fc1.register_full_backward_hook(bwd_hook))
out = net(torch.randn(2, 3)).sum()
out.backward()
print(net.fc1.weight.grad)
for h in handles:
    h.remove()
net(torch.randn(1, 3))
print("hooks removed")
