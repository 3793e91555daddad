"""torch.nn.functional calls from tutorials: padding, resizing, encodings, distances, losses."""

import torch
import torch.nn.functional as F

x = torch.arange(1.0, 7.0).reshape(1, 1, 2, 3)
print(F.pad(x, (1, 1)), F.pad(x, (0, 1, 1, 0), value=-1.0).shape)
print(F.one_hot(torch.tensor([0, 2, 1])), F.one_hot(torch.tensor([1]), num_classes=4).dtype)
v = torch.tensor([[3.0, 4.0], [1.0, 0.0]])
print(F.normalize(v), F.normalize(v, p=1, dim=0), F.cosine_similarity(v[0:1], v[1:2]))
print(F.embedding(torch.tensor([1, 0]), v), F.pad(torch.ones(2), (1, 2)))
s = torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, -1.0]])
print(F.softmax(s, dim=0), F.log_softmax(s, dim=1), F.softmin(s, dim=1))
print(F.relu6(s * 3), F.elu(-s), F.elu(-s, alpha=0.5), F.leaky_relu(-s, 0.2))
print(F.hardtanh(s, -1.5, 1.5), F.logsigmoid(s), F.silu(s), F.softplus(s, beta=2))
logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0], [1.0, 1.0, 1.0]])
target = torch.tensor([0, 2, 1])
print(F.cross_entropy(logits, target), F.cross_entropy(logits, target, reduction="none"))
print(
    F.cross_entropy(logits, target, weight=torch.tensor([1.0, 2.0, 0.5])),
    F.cross_entropy(logits, target, ignore_index=1),
)
print(
    F.cross_entropy(logits, target, label_smoothing=0.2),
    F.cross_entropy(logits, F.softmax(logits * 2, dim=1)),
)
print(
    F.nll_loss(F.log_softmax(logits, 1), target),
    F.kl_div(F.log_softmax(logits, 1), F.softmax(logits.t(), 1), reduction="batchmean"),
)
p = torch.tensor([0.9, 0.2, 0.6])
y = torch.tensor([1.0, 0.0, 1.0])
print(
    F.binary_cross_entropy(p, y),
    F.binary_cross_entropy_with_logits(p, y, pos_weight=torch.tensor([2.0])),
)
print(F.binary_cross_entropy(p, y, weight=torch.tensor([1.0, 2.0, 3.0]), reduction="sum"))
print(
    F.mse_loss(p, y),
    F.l1_loss(p, y),
    F.smooth_l1_loss(p * 3, y, beta=0.5),
    F.huber_loss(p * 3, y, delta=0.7),
)
print(
    F.avg_pool1d(torch.arange(6.0).reshape(1, 1, 6), 2),
    F.max_pool1d(torch.arange(6.0).reshape(1, 1, 6), 3, 1),
)
print(
    F.dropout(s, 0.0),
    F.dropout(s, 0.5, training=False),
    F.layer_norm(s, (3,)),
    F.gelu(s, approximate="tanh"),
)
