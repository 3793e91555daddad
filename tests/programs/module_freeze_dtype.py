"""Module housekeeping: freezing, fine-tuning a head, dtype moves, named_modules, extra_repr."""

import torch
import torch.nn as nn

torch.manual_seed(0)


class Scale(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        return x * self.factor + self.bias

    def extra_repr(self):
        return f"factor={self.factor}"


backbone = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8))
model = nn.Sequential(backbone, Scale(2.0), nn.Linear(8, 2))
print(model)
for p in backbone.parameters():
    p.requires_grad = False
trainable = [n for n, p in model.named_parameters() if p.requires_grad]
print(trainable)
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
x = torch.randn(3, 4)
model(x).sum().backward()
print(backbone[0].weight.grad, model[2].bias.grad)
opt.step()
backbone.requires_grad_(True)
print(all(p.requires_grad for p in model.parameters()))
print([n for n, _ in model.named_modules()])
print([type(c).__name__ for c in model.children()], len(list(model.modules())))
model.double()
print(model[2].weight.dtype, model(x.double()).dtype)
model.float()
print(model[0][0].weight.dtype, model.to(torch.float64)[1].bias.dtype)
model.to(dtype=torch.float32)
model.zero_grad()
print(model[2].bias.grad)
print(model.get_submodule("0.2"), model.get_parameter("2.bias").shape)
sd = model.state_dict()
print(len(sd), list(sd)[:3], sd["1.bias"])
model[1].factor = 3.0
print(model[1])
model.add_module("act", nn.Tanh())
print(len(model), model[-1])
head = nn.Linear(8, 5)
model[2] = head
print(model[2] is head, model(x).shape)
del model[3]
print(len(model))
print(isinstance(model, nn.Module), model.training, backbone[1].training)
print(model.eval() is model, model.training, backbone[0].training)
print(nn.Linear(3, 2, bias=False), nn.Linear(3, 2).in_features, nn.Conv2d(1, 2, 3, stride=2))
print(nn.BatchNorm1d(4, momentum=0.2), nn.LayerNorm([3, 4]), nn.Embedding(5, 2, padding_idx=1))
