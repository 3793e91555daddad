"""An RNN cell written by hand, unrolled over a sequence, with BPTT and gradient clipping."""

import torch

torch.manual_seed(3)
input_size, hidden_size, seq_len = 3, 4, 5
Wxh = torch.randn(input_size, hidden_size) * 0.5
Whh = torch.randn(hidden_size, hidden_size) * 0.5
bh = torch.zeros(hidden_size)
Why = torch.randn(hidden_size, 1) * 0.5
params = [Wxh, Whh, bh, Why]
for p in params:
    p.requires_grad_()
xs = torch.randn(seq_len, input_size)
target = torch.tensor([0.5])
for epoch in range(3):
    h = torch.zeros(hidden_size)
    hs = []
    for t in range(seq_len):
        h = torch.tanh(xs[t] @ Wxh + h @ Whh + bh)
        hs.append(h)
    y = h @ Why
    loss = ((y - target) ** 2).mean()
    loss.backward()
    total = torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
    print(f"epoch {epoch} loss {loss.item():.5f} grad norm {total.item():.5f}")
    with torch.no_grad():
        for p in params:
            p -= 0.1 * p.grad
            p.grad.zero_()
print(torch.stack(hs).shape, hs[-1].grad_fn)
print(y)
print(Whh.is_leaf, Wxh.requires_grad)
