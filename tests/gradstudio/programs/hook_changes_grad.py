import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.register_hook(lambda grad: grad * 2)
y.sum().backward()
