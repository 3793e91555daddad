"""nn.Module bookkeeping: add_module, ParameterList/Dict, hooks, state_dict round trips, to()."""

import io

import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.zeros(2))])
        self.extra = nn.ParameterDict({"bias": nn.Parameter(torch.full((2,), 0.5))})
        self.add_module("proj", nn.Linear(2, 2, bias=False))
        self.register_parameter("temp", nn.Parameter(torch.tensor(2.0)))
        self.register_buffer("steps", torch.tensor(0))

    def forward(self, x):
        self.steps += 1
        return self.proj(x * self.scales[0] + self.scales[1]) / self.temp + self.extra["bias"]


torch.manual_seed(0)
g = Gate()
print(g)
print([n for n, _ in g.named_parameters()], [n for n, _ in g.named_buffers()])
print(len(list(g.parameters(recurse=False))), len(list(g.children())), len(list(g.modules())))
calls = []
pre = g.register_forward_pre_hook(lambda m, inp: calls.append(("pre", tuple(inp[0].shape))))
post = g.proj.register_forward_hook(lambda m, inp, out: calls.append(("post", out.sum().item())))
out = g(torch.ones(3, 2))
print(out, calls, g.steps)
pre.remove(), post.remove()
print(g(torch.ones(1, 2)).shape, len(calls), g.steps.item())
buf = io.BytesIO()
torch.save(g.state_dict(), buf)
buf.seek(0)
loaded = torch.load(buf)
print(list(loaded.keys()), loaded["steps"], loaded["scales.0"])
g2 = Gate()
with torch.no_grad():
    g2.proj.weight.fill_(9.0)
print(g2.load_state_dict(loaded), torch.equal(g2.proj.weight, g.proj.weight))
bad = dict(loaded)
bad.pop("temp")
bad["oops"] = torch.zeros(1)
try:
    g2.load_state_dict(bad)
except RuntimeError as e:
    print(str(e).splitlines()[0], "|", str(e).splitlines()[1].strip())
print(g2.load_state_dict(bad, strict=False))
bad2 = dict(loaded)
bad2["proj.weight"] = torch.zeros(3, 2)
try:
    g2.load_state_dict(bad2)
except RuntimeError as e:
    print(str(e).splitlines()[1].strip())
d = g.double()
print(
    d.temp.dtype,
    d.steps.dtype,
    g.float().proj.weight.dtype,
    g.to(torch.float64).extra["bias"].dtype,
)
g.float()
sd = g.state_dict(keep_vars=True)
print(sd["temp"].requires_grad, g.state_dict()["temp"].requires_grad, type(sd).__name__)
print(sum(p.numel() for p in g.parameters()), g.training, g.eval().training, g.proj.training)
g.zero_grad()
g(torch.ones(1, 2)).sum().backward()
print(g.temp.grad, g.scales[1].grad, g.extra["bias"].grad)
g.scales.requires_grad_(False)
print([n for n, p in g.named_parameters() if p.requires_grad])
del g.extra
print(hasattr(g, "extra"), [n for n, _ in g.named_children()])
print(
    nn.ModuleList([nn.ReLU()] * 2),
    nn.Sequential(nn.Linear(1, 1)).__class__.__name__,
    g.get_buffer("steps"),
)
