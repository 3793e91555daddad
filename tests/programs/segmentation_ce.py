"""Per-pixel and per-token cross-entropy: (N, C, H, W) and (N, C, L) logits with index targets."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 1))
images = torch.randn(2, 3, 5, 5)
masks = torch.randint(0, 4, (2, 5, 5))
masks[0, 0, :2] = 255
logits = net(images)
print(logits.shape, masks.shape)
loss = F.cross_entropy(logits, masks, ignore_index=255)
print(loss, loss.grad_fn)
loss.backward()
print(net[2].bias.grad, f"{net[0].weight.grad.norm():.5f}")
per_pixel = F.cross_entropy(logits, masks, ignore_index=255, reduction="none")
print(per_pixel.shape, per_pixel[0, 0])
weights = torch.tensor([1.0, 2.0, 0.5, 1.5])
crit = nn.CrossEntropyLoss(weight=weights, ignore_index=255)
print(crit(logits, masks), F.cross_entropy(logits, masks.clamp(max=3), label_smoothing=0.1))
pred = logits.argmax(dim=1)
valid = masks != 255
print(pred[1], f"pixel acc {(pred[valid] == masks[valid]).float().mean():.4f}")
inter = [((pred == k) & (masks == k)).sum().item() for k in range(4)]
union = [((pred == k) | (masks == k)).sum().item() for k in range(4)]
print(inter, union)
emb = nn.Embedding(10, 6)
head = nn.Linear(6, 10)
tokens = torch.randint(0, 10, (3, 7))
seq_logits = head(emb(tokens)).transpose(1, 2)
print(seq_logits.shape, seq_logits.is_contiguous())
targets = tokens.roll(-1, dims=1)
seq_loss = F.cross_entropy(seq_logits, targets)
seq_loss.backward()
print(seq_loss, seq_loss.grad_fn.next_functions[0][0])
print(
    F.cross_entropy(seq_logits, targets, reduction="none").shape,
    f"{head.bias.grad.abs().sum():.4f}",
)
logp = F.log_softmax(seq_logits, dim=1)
print(F.nll_loss(logp, targets, reduction="sum"), nn.NLLLoss()(logp, targets))
try:
    F.cross_entropy(logits, masks[:, :3])
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    F.cross_entropy(seq_logits, targets[:, :5])
except RuntimeError as e:
    print("RuntimeError:", e)
