"""saved_tensors_hooks, Node hooks and prehooks, post-accumulate-grad hooks, anomaly detection."""

import torch

packed = []


def pack(t):
    packed.append(tuple(t.shape))
    return t


def unpack(t):
    return t


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x.pow(2).exp().sum()
print(packed)
y.backward()
print(x.grad)

a = torch.tensor([0.5, -1.0], requires_grad=True)
b = a.sin() * 2
fn = b.grad_fn
fn.register_prehook(lambda grad_outputs: print("prehook", grad_outputs[0]))
fn.register_hook(lambda grad_inputs, grad_outputs: print("hook", len(grad_inputs)))
a.register_post_accumulate_grad_hook(lambda p: print("accumulated", p.grad))
b.sum().backward()
print(fn.name(), fn.metadata, b.grad_fn.next_functions[0][0].name())

with torch.autograd.detect_anomaly(check_nan=True):
    z = torch.tensor([0.0], requires_grad=True)
    w = z.sqrt()
    try:
        (w * 0).sum().backward()
        print(z.grad)
    except RuntimeError as err:
        print(str(err).split("\n")[0])
print(torch.is_anomaly_enabled())
