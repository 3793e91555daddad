"""no_grad, enable_grad, set_grad_enabled, inference_mode and decorators."""

import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
    print(y.requires_grad, torch.is_grad_enabled())
    with torch.enable_grad():
        z = x * 2
        print(z.requires_grad, z.grad_fn)
print(torch.is_grad_enabled())


@torch.no_grad()
def doubler(t):
    return t * 2


print(doubler(x).requires_grad)
torch.set_grad_enabled(False)
print((x + 1).requires_grad)
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    print((x + 1).requires_grad)
print((x + 1).requires_grad)
with torch.inference_mode():
    w = x * 3
print(w.requires_grad, w.is_inference(), x.is_inference())
try:
    (w * x).sum().backward()
    print(x.grad)
except RuntimeError as err:
    print("RuntimeError:", err)
try:
    w.add_(1)
except RuntimeError as err:
    print("RuntimeError:", err)
with torch.inference_mode(mode=False):
    print((x * 2).requires_grad)
print(torch.is_inference_mode_enabled())
