"""Embedding options and dropout in train and eval, the way text models use them."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
emb = nn.Embedding(6, 3, padding_idx=0)
print(emb, emb.weight[0], emb.weight.shape)
tokens = torch.tensor([[1, 2, 0, 0], [3, 4, 5, 0]])
vecs = emb(tokens)
print(vecs.shape, vecs.grad_fn)
lengths = (tokens != 0).sum(1, keepdim=True)
pooled = vecs.sum(1) / lengths
print(pooled)
pooled.sum().backward()
print(emb.weight.grad)
pre = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
frozen = nn.Embedding.from_pretrained(pre)
print(frozen.weight.requires_grad, frozen(torch.tensor([2, 0])))
tuned = nn.Embedding.from_pretrained(pre, freeze=False, padding_idx=1)
print(tuned.weight.requires_grad, tuned.padding_idx, tuned.num_embeddings, tuned.embedding_dim)
print(F.embedding(torch.tensor([1]), pre))
try:
    emb(torch.tensor([6]))
except IndexError as e:
    print("IndexError:", e)
drop = nn.Dropout(p=0.5)
x = torch.ones(2, 8)
torch.manual_seed(1)
y = drop(x)
print(drop, drop.training, y)
print(sorted(set(y.flatten().tolist())))
drop.eval()
print(drop.training, torch.equal(drop(x), x))
print(F.dropout(x, 0.5, training=False).sum(), F.dropout(x, p=0.0).sum())
torch.manual_seed(1)
z = F.dropout(x, 0.5)
print(torch.equal(z, y), z.grad_fn)
model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.2), nn.ReLU())
print(model.training, [m.training for m in model])
model.eval()
print(model.training, [m.training for m in model])
model.train(True)
print(model[1].training)
xg = torch.ones(4, requires_grad=True)
torch.manual_seed(2)
out = F.dropout(xg, 0.25)
out.sum().backward()
print(out.grad_fn, xg.grad)
print(nn.Dropout(0.3, inplace=True))
try:
    nn.Dropout(1.5)
except ValueError as e:
    print("ValueError:", e)
