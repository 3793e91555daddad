"""Weight init with nn.init, state_dict save/load through a BytesIO, load_state_dict errors."""

import io

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
for m in model.modules():
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        nn.init.zeros_(m.bias)
print(model[0].weight)
nn.init.kaiming_normal_(model[2].weight, mode="fan_out", nonlinearity="relu")
nn.init.constant_(model[2].bias, 0.1)
nn.init.normal_(model[0].bias, mean=0.0, std=0.01)
print(model[2].weight, model[2].bias)
sd = model.state_dict()
print(list(sd.keys()))
print(sd["0.weight"].requires_grad, type(sd).__name__)
buffer = io.BytesIO()
torch.save(sd, buffer)
buffer.seek(0)
loaded = torch.load(buffer, weights_only=True)
clone = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
result = clone.load_state_dict(loaded)
print(result)
x = torch.randn(2, 4)
print(torch.equal(model(x), clone(x)))
bad = {k: v for k, v in loaded.items() if k != "2.bias"}
try:
    clone.load_state_dict(bad)
except RuntimeError as err:
    print(err)
print(clone.load_state_dict(bad, strict=False))
bn = nn.BatchNorm1d(3)
print(list(bn.state_dict().keys()))
t = torch.arange(6.0).reshape(2, 3)
buf = io.BytesIO()
torch.save({"t": t, "step": 7}, buf)
buf.seek(0)
print(torch.load(buf))
nn.init.uniform_(t, -1, 1)
print(t)
print(nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh"))
