import torch

seen = []
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
loss = (y * y).sum()
loss.register_hook(lambda g: seen.append(g))
y.register_hook(lambda g: print("y grad", g))
loss.backward()
print(seen, x.grad)
