import torch

x = torch.ones(2)
huge = [0.0] * 10**10
