"""Loss functions with their extra arguments: class weights, ignore_index, reduction, smoothing."""

import torch
import torch.nn.functional as F

logits = torch.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 2.0], [0.3, 0.3, 0.3]], requires_grad=True)
target = torch.tensor([1, 2, 0])
cw = torch.tensor([1.0, 2.0, 0.5])
a = F.cross_entropy(logits, target, weight=cw)
b = F.cross_entropy(logits, target, ignore_index=2, reduction="sum")
c = F.cross_entropy(logits, target, weight=cw, label_smoothing=0.1)
d = F.nll_loss(F.log_softmax(logits, dim=1), target, weight=cw, reduction="none")
e = F.mse_loss(logits, torch.zeros(3, 3), reduction="sum")
f = F.binary_cross_entropy_with_logits(logits, torch.ones(3, 3), pos_weight=cw)
g = F.cross_entropy(logits, target, label_smoothing=0.2)
total = a + b + c + d.sum() + e + f + g
total.backward()
