"""The errors learners meet first, caught and printed, and the usual fixes."""

import torch
import torch.nn as nn


def attempt(label, fn):
    try:
        result = fn()
        print(f"{label}: ok -> {result}")
    except (RuntimeError, ValueError, TypeError, IndexError) as err:
        print(f"{label}: {type(err).__name__}: {err}")


w = torch.tensor([1.0, 2.0], requires_grad=True)
attempt("numpy on grad tensor", lambda: w.numpy())
attempt("numpy after detach", lambda: w.detach().numpy())
attempt("int requires grad", lambda: torch.tensor([1, 2], requires_grad=True))
attempt("backward non-scalar", lambda: (w * 2).backward())
attempt("item of vector", lambda: w.item())
attempt("shape mismatch mm", lambda: torch.ones(2, 3) @ torch.ones(2, 3))
attempt("view non-contiguous", lambda: torch.ones(2, 3).t().view(6))
attempt("reshape fixes it", lambda: torch.ones(2, 3).t().reshape(6).shape)
attempt("index out of range", lambda: torch.ones(3)[5])
attempt("cat different dims", lambda: torch.cat([torch.ones(2, 3), torch.ones(2, 4)]))
attempt("linear wrong in_features", lambda: nn.Linear(4, 2)(torch.ones(3, 5)))
float_target = torch.tensor([0.0, 1.0])
attempt("cross entropy float target", lambda: nn.CrossEntropyLoss()(torch.ones(2, 3), float_target))
attempt("mse shapes", lambda: nn.MSELoss()(torch.ones(3, 1), torch.ones(3)).item())
attempt("grad of non-leaf", lambda: (w * 2).grad)
attempt("dtype mismatch", lambda: torch.ones(2, dtype=torch.float64) @ torch.ones(2))
attempt("long + float", lambda: torch.tensor([1, 2]) + torch.tensor([0.5, 0.5]))
attempt("mean of long", lambda: torch.tensor([1, 2]).mean())
other = torch.ones(1, requires_grad=True)
attempt("autograd.grad unused", lambda: torch.autograd.grad((w * 2).sum(), [w, other]))
attempt("stack ragged", lambda: torch.stack([torch.ones(2), torch.ones(3)]))
attempt("squeeze dim", lambda: torch.ones(2, 1).squeeze(0).shape)
attempt("bool index", lambda: w[torch.tensor([True, False])])
attempt("zero_ on leaf", lambda: w.zero_())
with torch.no_grad():
    attempt("zero_ under no_grad", lambda: w.zero_())
attempt("set grad wrong shape", lambda: setattr(w, "grad", torch.ones(3)))
attempt("sum dim out of range", lambda: w.sum(dim=2))
attempt("expand bad", lambda: torch.ones(2, 3).expand(4, 3))
attempt("softmax without dim", lambda: torch.softmax(torch.ones(2, 2)))
