import numpy as np
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(1, 1, 4, 4, requires_grad=True)
y = F.max_pool2d(x, kernel_size=(2, 2))
z = F.avg_pool2d(x, (2, 2), stride=[2, 1])
w = x.view(torch.Size([16]))
v = x.sum(dim=(2, np.int32(3)))
c = F.conv2d(x, torch.ones(1, 1, 3, 3), padding=(np.int64(1), 1))
loss = y.sum() + z.sum() + w.sum() + v.sum() + c.sum()
loss.backward()
