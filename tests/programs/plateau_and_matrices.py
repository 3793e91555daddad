"""ReduceLROnPlateau on a validation loss; diag, trace and a quadratic form's gradient."""

import torch

torch.manual_seed(8)
A = torch.randn(3, 3)
Q = A @ A.T + torch.diag(torch.tensor([1.0, 2.0, 3.0]))
print(Q.diag(), torch.trace(Q))
x = torch.zeros(3, requires_grad=True)
b = torch.tensor([1.0, -1.0, 0.5])
opt = torch.optim.SGD([x], lr=0.05)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1)
for step in range(12):
    opt.zero_grad()
    f = 0.5 * x @ Q @ x - b @ x
    f.backward()
    opt.step()
    metric = round(f.item(), 2)
    sched.step(metric)
    lr = opt.param_groups[0]["lr"]
    print(f"{step:2d} f={f.item():.4f} lr={lr:.4f} bad={sched.num_bad_epochs}")
exact = torch.linalg.solve(Q, b)
print(torch.allclose(x, exact, atol=1e-2), x.grad_fn, x.grad is not None)
print(f.grad_fn.name(), [type(n).__name__ for n, _ in f.grad_fn.next_functions])
d = torch.diag(x)
print(d.grad_fn, d.shape)
H = torch.autograd.functional.hessian(lambda v: 0.5 * v @ Q @ v - b @ v, x.detach())
print(torch.allclose(H, Q), torch.diag(H) - torch.diag(Q))
