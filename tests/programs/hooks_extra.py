"""Module hooks as feature extractors and debuggers: forward pre/post, full backward, removal."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
features = {}


def save_output(name):
    def hook(module, inputs, output):
        features[name] = output.detach()

    return hook


handles = [m.register_forward_hook(save_output(n)) for n, m in model.named_children()]
x = torch.randn(2, 4)
out = model(x)
print(sorted(features), features["1"].min() >= 0, torch.equal(features["2"], out.detach()))


def double_input(module, args):
    print("pre", type(module).__name__, len(args), args[0].shape)
    return (args[0] * 2,)


pre = model[0].register_forward_pre_hook(double_input)
print(torch.allclose(model(x), out))
pre.remove()
print(torch.allclose(model(x), out))


def replace_output(module, inputs, output):
    return output + 100


h = model[2].register_forward_hook(replace_output)
print(model(x)[0])
h.remove()
for hd in handles:
    hd.remove()


def bwd(module, grad_input, grad_output):
    print(
        "bwd",
        type(module).__name__,
        [None if g is None else tuple(g.shape) for g in grad_input],
        [tuple(g.shape) for g in grad_output],
    )


model[0].register_full_backward_hook(bwd)
model[2].register_full_backward_hook(bwd)
xr = x.clone().requires_grad_()
model(xr).sum().backward()
model.zero_grad()
model(x).sum().backward()
print(model[0].weight.grad.shape)


def scale_grad(module, grad_input, grad_output):
    return (grad_input[0] * 0,)


lin = nn.Linear(2, 2)
lin.register_full_backward_hook(scale_grad)
inp = torch.ones(1, 2, requires_grad=True)
lin(inp).sum().backward()
print(inp.grad, lin.weight.grad)
t = torch.ones(3, requires_grad=True)
hh = t.register_hook(lambda g: g * 10)
(t * 2).sum().backward()
print(t.grad)
hh.remove()
t.grad = None
(t * 2).sum().backward()
print(t.grad)
