"""Parameters in every form PyTorch takes: ints or tuples, lists, torch.Size, NumPy
scalars (as code that computed them with NumPy passes them)."""

import numpy as np
import torch
import torch.nn.functional as F

x = (torch.arange(32.0).reshape(1, 2, 4, 4) / 10).requires_grad_()
pooled = F.max_pool2d(x, kernel_size=(2, 2))
averaged = F.avg_pool2d(x, [2, 2], stride=torch.Size([2, 2]))
strided = F.max_pool2d(x, np.int64(2), stride=[1, 2], padding=(0, 1))
rows = x.reshape(torch.Size([2, 16])).sum(np.int64(1))
flat = x.view(np.int64(32)) * np.float32(2.0)
padded = F.pad(x, (1, np.int64(1)), value=np.float64(0.5))
soft = F.softmax(x, dim=np.int64(1))
moved = x.transpose(np.int64(1), 2).flatten(np.int64(1))
loss = (
    pooled.sum()
    + averaged.sum()
    + strided.mean()
    + rows.sum()
    + flat.sum()
    + padded.pow(2).sum()
    + (soft * moved.reshape(1, 2, 4, 4)).sum()
)
loss.backward()
print(loss.item(), x.grad.sum().item())
