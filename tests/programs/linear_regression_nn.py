"""Linear regression three ways: closed form, manual gradient descent, nn.Linear and SGD."""

import torch

torch.manual_seed(1)
true_w, true_b = torch.tensor([2.0, -3.4]), 4.2
X = torch.normal(0, 1, (100, 2))
y = X @ true_w + true_b + torch.normal(0, 0.01, (100,))
print(X.shape, y.shape, y[:3])
A = torch.cat([X, torch.ones(100, 1)], dim=1)
sol = torch.inverse(A.T @ A) @ A.T @ y
print(sol.round(decimals=3))
normal = torch.linalg.solve(A.T @ A, A.T @ y)
print(normal.round(decimals=3), torch.linalg.inv(A.T @ A).shape)
w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.1
for epoch in range(30):
    loss = ((X @ w + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1}, loss {loss.item():.6f}")
print(w, b)
model = torch.nn.Linear(2, 1)
model.weight.data.normal_(0, 0.01)
model.bias.data.fill_(0)
opt = torch.optim.SGD(model.parameters(), lr=0.03)
loss_fn = torch.nn.MSELoss()
batches = torch.randperm(100).split(10)
for epoch in range(3):
    for idx in batches:
        loss = loss_fn(model(X[idx]), y[idx].reshape(-1, 1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch + 1}, loss {loss_fn(model(X), y.reshape(-1, 1)):f}")
print("w error:", true_w - model.weight.data.reshape(true_w.shape))
print("b error:", true_b - model.bias.data)
print(torch.linalg.norm(model.weight), torch.linalg.inv(A.T @ A).diagonal())
