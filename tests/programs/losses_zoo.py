"""The common losses with their reductions, weights and gradients."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(7)
pred = torch.randn(4, 3, requires_grad=True)
target = torch.randn(4, 3)
for fn in [F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss]:
    loss = fn(pred, target)
    print(fn.__name__, f"{loss.item():.5f}", loss.grad_fn)
print(F.smooth_l1_loss(pred, target, beta=0.5), F.huber_loss(pred, target, delta=0.3))
print(F.mse_loss(pred, target, reduction="sum"), F.l1_loss(pred, target, reduction="none").shape)
probs = torch.sigmoid(pred)
bin_t = (target > 0).float()
print(F.binary_cross_entropy(probs, bin_t), nn.BCELoss(reduction="sum")(probs, bin_t))
print(F.binary_cross_entropy_with_logits(pred, bin_t))
pw = torch.tensor([1.0, 2.0, 0.5])
print(nn.BCEWithLogitsLoss(pos_weight=pw)(pred, bin_t))
print(F.binary_cross_entropy_with_logits(pred, bin_t, weight=torch.tensor([0.2, 1.0, 1.0])))
labels = torch.tensor([0, 2, 1, 2])
print(F.cross_entropy(pred, labels), F.cross_entropy(pred, labels, label_smoothing=0.1))
print(F.cross_entropy(pred, torch.tensor([0, -100, 1, 2]), ignore_index=-100))
cw = torch.tensor([1.0, 2.0, 3.0])
print(nn.CrossEntropyLoss(weight=cw)(pred, labels), F.cross_entropy(pred, labels, reduction="none"))
soft = torch.softmax(torch.randn(4, 3), dim=1)
print(F.cross_entropy(pred, soft))
logp = F.log_softmax(pred, dim=1)
print(F.nll_loss(logp, labels), nn.NLLLoss(reduction="sum")(logp, labels))
loss = F.cross_entropy(pred, labels, label_smoothing=0.2) + F.mse_loss(pred, target)
loss.backward()
print(pred.grad)
seq_logits = torch.randn(2, 5, 4)
seq_t = torch.tensor([[0, 1, 2, 3], [4, 0, 1, -100]])
print(F.cross_entropy(seq_logits.permute(0, 2, 1).reshape(-1, 5), seq_t.reshape(-1)))
crit = nn.MSELoss()
print(crit, nn.CrossEntropyLoss(label_smoothing=0.1), nn.SmoothL1Loss(beta=2.0))
try:
    F.cross_entropy(pred, torch.tensor([0, 1, 5, 2]))
except IndexError as e:
    print("IndexError:", e)
try:
    F.mse_loss(pred, torch.randn(4))
except RuntimeError as e:
    print("RuntimeError:", e)
