"""A softmax classifier from scratch, as the popular lecture series writes it: logits picked
with ``logits[range(n), y]``, a hand-derived ``dlogits`` checked against autograd,
histograms of the data and predictions, a seeded Generator for the minibatches."""

import torch
import torch.nn.functional as F

g = torch.Generator().manual_seed(2147483647)
n_classes, n_features, n = 4, 3, 64
centers = torch.randn(n_classes, n_features, generator=g) * 2
y = torch.randint(0, n_classes, (n,), generator=g)
X = centers[y] + torch.randn(n, n_features, generator=g)
print("label counts:", torch.bincount(y, minlength=n_classes).tolist())
print("feature 0 histogram:", torch.histc(X[:, 0], bins=6).tolist())
hist, edges = torch.histogram(X[:, 1], bins=4)
print("feature 1:", hist.tolist(), [round(e, 4) for e in edges.tolist()])

W = torch.randn(n_features, n_classes, generator=g) * 0.1
W.requires_grad_()
b = torch.zeros(n_classes, requires_grad=True)

# one step by hand: the loss and its gradient written out
logits = X @ W + b
logits.retain_grad()
counts = logits.exp()
probs = counts / counts.sum(1, keepdim=True)
loss = -probs[range(n), y].log().mean()
loss.backward()
print("loss:", loss.item(), loss.grad_fn.name())
print("picked:", probs[range(n), y].grad_fn.name())
dlogits = F.softmax(logits, 1).detach()
dlogits[range(n), y] -= 1
dlogits /= n
print("dlogits max diff:", (dlogits - logits.grad).abs().max().item())
print("same as cross_entropy:", torch.allclose(loss, F.cross_entropy(logits, y)))

lr = 1.0
for step in range(30):
    ix = torch.randint(0, n, (16,), generator=g)
    Xb, yb = X[ix], y[ix]
    logits = Xb @ W + b
    loss = -F.log_softmax(logits, 1)[range(len(yb)), yb].mean()
    W.grad = None
    b.grad = None
    loss.backward()
    with torch.no_grad():
        W -= lr * W.grad
        b -= lr * b.grad
    if step % 10 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")

with torch.no_grad():
    pred = (X @ W + b).argmax(1)
acc = (pred == y).float().mean()
print("accuracy:", acc.item())
print("predicted counts:", torch.bincount(pred, minlength=n_classes).tolist())
confusion = torch.zeros(n_classes, n_classes, dtype=torch.int64)
confusion[y, pred] += 1
print("confusion (last write wins):", confusion.tolist())
confusion = torch.zeros(n_classes, n_classes)
confusion.index_put_((y, pred), torch.ones(n), accumulate=True)
print("confusion:", confusion.tolist())
order = torch.randperm(n, generator=g)[:5]
print("sampled:", order.tolist(), torch.multinomial(probs[0].detach(), 3, generator=g).tolist())
grid = torch.arange(-1, 1, 0.25)
print("grid:", grid.tolist())
print(grid[[0, -1]], X[[0, 1], 1:].shape)
