"""Softmax and cross-entropy by hand versus F.cross_entropy, nll_loss and log_softmax."""

import torch
import torch.nn.functional as F

torch.manual_seed(7)
logits = torch.randn(4, 5, requires_grad=True)
target = torch.tensor([1, 0, 4, 2])
exps = logits.exp()
probs = exps / exps.sum(dim=1, keepdim=True)
manual = -probs[torch.arange(4), target].log().mean()
builtin = F.cross_entropy(logits, target)
print(f"manual={manual.item():.6f} builtin={builtin.item():.6f}")
print(torch.allclose(manual, builtin))
(g_manual,) = torch.autograd.grad(manual, logits)
(g_builtin,) = torch.autograd.grad(builtin, logits)
print(torch.allclose(g_manual, g_builtin, atol=1e-6))
print(g_builtin)
lsm = F.log_softmax(logits, dim=1)
print(F.nll_loss(lsm, target), lsm.grad_fn)
stable = logits - logits.max(dim=1, keepdim=True).values
print(torch.logsumexp(logits, dim=1))
print(stable.exp().sum(1).log() + logits.max(1).values)
print(F.cross_entropy(logits, target, reduction="none"))
print(F.cross_entropy(logits, target, label_smoothing=0.1))
onehot = F.one_hot(target, num_classes=5).float()
print(onehot)
print(-(onehot * lsm).sum(1).mean())
print(F.softmax(torch.tensor([1000.0, 1000.0]), dim=0))
bce = F.binary_cross_entropy_with_logits(logits[:, 0], onehot[:, 0])
print(bce, F.binary_cross_entropy(torch.sigmoid(logits[:, 0]), onehot[:, 0]))
