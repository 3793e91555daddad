import torch

a = torch.ones(2)
b = a.reshape(3)
