import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3


def scale(grad):
    grad.mul_(100)


y.register_hook(scale)
(y * y).sum().backward()
print(x.grad)
