import torch

t = torch.tensor([1.0, 2.0, 3.0]).double()
t.requires_grad = True
u = torch.ones(2)
u.requires_grad_()
loss = (t * t).sum() + (u * 2).sum()
loss.backward()
print(t.grad, u.grad)
