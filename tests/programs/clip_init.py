"""Gradient clipping and weight initialisation as training scripts do them."""

import torch
import torch.nn as nn

torch.manual_seed(3)
model = nn.Sequential(nn.Linear(5, 10), nn.Tanh(), nn.Linear(10, 1))
x, y = torch.randn(16, 5), torch.randn(16, 1)
loss = nn.functional.mse_loss(model(x) * 50, y)
loss.backward()
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(f"norm before {total:.4f}", total.dtype, total.requires_grad)
after = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters()))
print(f"after {after:.4f}")
inf_norm = nn.utils.clip_grad_norm_(model.parameters(), 0.5, norm_type=float("inf"))
print(f"inf norm {inf_norm:.4f}")
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.01)
print(max(p.grad.abs().max().item() for p in model.parameters()))
vec = nn.utils.parameters_to_vector(model.parameters())
print(vec.shape, vec.grad_fn)
nn.utils.vector_to_parameters(torch.zeros_like(vec), model.parameters())
print(model[0].bias[:3])


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("tanh"))
        nn.init.zeros_(m.bias)


torch.manual_seed(0)
model.apply(init_weights)
print(model[0].weight[0], model[2].bias)
w = torch.empty(3, 4)
for fn in [nn.init.kaiming_uniform_, nn.init.kaiming_normal_, nn.init.xavier_normal_]:
    torch.manual_seed(0)
    print(fn.__name__, fn(w))
torch.manual_seed(0)
print(nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"))
print(nn.init.constant_(w, 0.3)[0], nn.init.ones_(torch.empty(2)))
torch.manual_seed(0)
print(nn.init.normal_(w, mean=1.0, std=0.01), nn.init.uniform_(torch.empty(3), -1, 1))
print([round(nn.init.calculate_gain(n), 4) for n in ["linear", "relu", "sigmoid", "selu"]])
print(round(nn.init.calculate_gain("leaky_relu", 0.2), 4))
with torch.no_grad():
    model[0].weight.fill_(0.5)
print(model[0].weight.requires_grad, model[0].weight.grad_fn, model[0].weight[0, :3])
