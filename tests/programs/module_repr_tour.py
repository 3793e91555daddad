"""How nn modules print and enumerate: nested children, extra_repr, state_dict keys, buffers."""

from collections import OrderedDict

import torch
from torch import nn


class Scale(nn.Module):
    def __init__(self, factor: float) -> None:
        super().__init__()
        self.factor = factor
        self.register_buffer("running", torch.zeros(2))
        self.register_buffer("scratch", torch.ones(1), persistent=False)

    def extra_repr(self) -> str:
        return f"factor={self.factor}"

    def forward(self, x):
        return x * self.factor


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            OrderedDict(
                [
                    ("conv", nn.Conv2d(1, 4, 3, padding=1, bias=False)),
                    ("bn", nn.BatchNorm2d(4)),
                    ("act", nn.ReLU(inplace=True)),
                    ("pool", nn.MaxPool2d(2)),
                ]
            )
        )
        self.heads = nn.ModuleDict({"cls": nn.Linear(16, 3), "reg": nn.Linear(16, 1, bias=False)})
        self.blocks = nn.ModuleList([nn.Dropout(0.25), Scale(0.5), nn.Identity()])
        self.norm = nn.LayerNorm(16, eps=1e-6)
        self.emb = nn.Embedding(10, 4, padding_idx=0)
        self.temperature = nn.Parameter(torch.tensor(1.0))


net = Net()
print(net)
print([k for k in net.state_dict()])
print([n for n, _ in net.named_modules()])
print([n for n, _ in net.named_children()], [n for n, _ in net.named_buffers()])
print([(n, tuple(p.shape)) for n, p in net.named_parameters()][:4])
print(
    sum(p.numel() for p in net.parameters()),
    sum(p.numel() for p in net.parameters() if p.requires_grad),
)
print(net.features[0], net.features.bn, net.heads["cls"], len(net.blocks), net.blocks[1])
print(nn.Conv2d(3, 8, (3, 5), stride=2, padding=(1, 2), dilation=1, groups=1))
print(nn.Conv1d(2, 4, 3, padding="same"), nn.Conv2d(4, 2, 2, stride=2, padding=(0, 1)))
print(
    nn.LeakyReLU(0.2), nn.ELU(), nn.Softmax(dim=1), nn.GELU(approximate="tanh"), nn.Hardtanh(-2, 2)
)
print(nn.AvgPool2d(2), nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Unflatten(1, (2, 8)))
print(nn.BatchNorm1d(5, momentum=None), nn.LayerNorm([2, 3]), nn.Dropout(p=0.1))
print(nn.CrossEntropyLoss(label_smoothing=0.1), nn.MSELoss(reduction="sum"), nn.BCEWithLogitsLoss())
print(nn.Sequential(), nn.ModuleList(), nn.Linear(2, 2).extra_repr())
print(
    type(net.state_dict()).__name__,
    net.state_dict()["blocks.1.running"],
    "blocks.1.scratch" in net.state_dict(),
)
print(net.features.bn.num_batches_tracked, net.features.bn.running_var)
print(net.emb.weight[0], net.training, net.eval().training, net.blocks[0].training)
net.train()
print(net.get_submodule("features.conv"), net.get_parameter("heads.cls.bias").shape)
sd = net.state_dict()
missing = net.load_state_dict({k: v for k, v in sd.items() if "heads" not in k}, strict=False)
print(missing)
net.apply(lambda m: nn.init.zeros_(m.weight) if isinstance(m, nn.Linear) else None)
print(net.heads.reg.weight.abs().sum(), net.heads.cls.weight.sum().item())
net.requires_grad_(False)
print(any(p.requires_grad for p in net.parameters()), net.temperature.requires_grad)
net.half()
print(net.heads.cls.weight.dtype, net.features.bn.num_batches_tracked.dtype)
