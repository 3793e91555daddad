"""Seeded randomness a tutorial relies on: values after manual_seed, init, dropout, shuffles."""

import torch
from torch import nn

torch.manual_seed(42)
print(torch.randn(5), torch.rand(3), torch.randint(0, 100, (6,)))
print(
    torch.randperm(10), torch.randperm(3, dtype=torch.int32), torch.randn(2, 2, dtype=torch.float64)
)
print(torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 5, replacement=True))
print(torch.multinomial(torch.tensor([1.0, 1.0, 1.0, 1.0]), 2))
g = torch.Generator().manual_seed(2147483647)
p = torch.tensor([0.6, 0.3, 0.1])
print(torch.multinomial(p, 10, replacement=True, generator=g), p.multinomial(1, generator=g).item())
print(
    torch.rand(2, 3).argmax(dim=1),
    torch.randint(-5, 5, (2, 2)),
    torch.randint(2, (4,), dtype=torch.uint8),
)
torch.manual_seed(0)
lin = nn.Linear(3, 2)
print(lin.weight, lin.bias)
conv = nn.Conv2d(1, 2, 2)
print(conv.weight.flatten(), conv.bias)
emb = nn.Embedding(4, 3)
print(emb.weight[0])
torch.manual_seed(1)
w = torch.empty(2, 3)
print(nn.init.xavier_uniform_(w), nn.init.kaiming_normal_(torch.empty(2, 3), nonlinearity="relu"))
print(nn.init.normal_(torch.empty(3), 0, 0.02), nn.init.uniform_(torch.empty(3), -1, 1))
print(nn.init.orthogonal_(torch.empty(2, 2)))
print(
    nn.init.constant_(torch.empty(2), 0.3),
    nn.init.ones_(torch.empty(2)),
    nn.init.eye_(torch.empty(2, 3)),
)
print(
    nn.init.kaiming_uniform_(torch.empty(2, 2), a=5**0.5),
    nn.init.xavier_normal_(torch.empty(1, 3), gain=2.0),
)
print(
    nn.init.calculate_gain("relu"),
    nn.init.calculate_gain("tanh"),
    nn.init.calculate_gain("leaky_relu", 0.2),
)
torch.manual_seed(3)
drop = nn.Dropout(0.5)
x = torch.ones(8)
print(drop(x), drop.eval()(x), torch.nn.functional.dropout(x, 0.25, training=True))
print(nn.Dropout2d(0.3)(torch.ones(2, 3, 2, 2))[:, :, 0, 0], nn.Dropout2d(0.3))
torch.manual_seed(5)
g = torch.Generator().manual_seed(5)
print(torch.rand(2, generator=g), torch.rand(2), g.initial_seed())
state = g.get_state()
a = torch.randn(3, generator=g)
g.set_state(state)
print(torch.equal(a, torch.randn(3, generator=g)), torch.seed() > 0)
torch.manual_seed(7)
idx = torch.randperm(6)
data = torch.arange(12).reshape(6, 2)
print(idx, data[idx][:3], torch.randint(0, 6, (3,)).tolist())
torch.manual_seed(11)
print(torch.normal(2.0, 3.0, size=(3,)), torch.normal(torch.arange(3.0), 0.1))
print(torch.rand(3) < 0.5, torch.bernoulli(torch.tensor([0.2, 0.8, 0.5])))
print(torch.empty(3).exponential_(), torch.empty(2).exponential_(lambd=0.5))
print(torch.randn(3).sort().values, torch.rand(1).item())
