"""Containers: Sequential from an OrderedDict, ModuleList, ModuleDict, buffers, state_dict."""

from collections import OrderedDict

import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(
    OrderedDict([("fc1", nn.Linear(4, 8)), ("act", nn.ReLU()), ("fc2", nn.Linear(8, 2))])
)
print(net)
print(net.fc1, net[0] is net.fc1, len(net))
print([name for name, _ in net.named_children()])
print(net[:2])


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
        self.heads = nn.ModuleDict({"cls": nn.Linear(3, 4), "reg": nn.Linear(3, 1)})
        self.register_buffer("scale", torch.tensor(2.0))
        self.register_buffer("steps", torch.zeros(1, dtype=torch.long), persistent=False)

    def forward(self, x):
        for b in self.blocks:
            x = torch.relu(b(x)) * self.scale
        self.steps += 1
        return {k: h(x) for k, h in self.heads.items()}


m = Heads()
out = m(torch.randn(5, 3))
print({k: v.shape for k, v in out.items()})
print(list(m.state_dict().keys()))
print([n for n, _ in m.named_buffers()], m.steps)
print([n for n, p in m.named_parameters()][:4])
print(sum(p.numel() for p in m.parameters()))
m.blocks.append(nn.Linear(3, 3))
print(len(m.blocks), "cls" in m.heads, list(m.heads.keys()))
sd = m.state_dict()
m2 = Heads()
m2.blocks.append(nn.Linear(3, 3))
print(m2.load_state_dict(sd))
print(torch.equal(m2.blocks[2].weight, m.blocks[2].weight))
try:
    Heads().load_state_dict(sd)
except RuntimeError as e:
    print(str(e).splitlines()[0])
print(Heads().load_state_dict(sd, strict=False))
print([type(mod).__name__ for mod in m.modules()])
print(m.heads["reg"].weight.requires_grad, m.scale.requires_grad)
