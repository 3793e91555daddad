"""nn.Module plumbing: children, named_modules, apply, buffers, freezing, ModuleList/Dict."""

import torch
import torch.nn as nn

torch.manual_seed(1)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(2)])
        self.heads = nn.ModuleDict({"a": nn.Linear(dim, 1), "b": nn.Linear(dim, 2)})
        self.norm = nn.LayerNorm(dim)
        self.register_buffer("scale", torch.tensor(0.5))

    def forward(self, x, head="a"):
        for layer in self.layers:
            x = torch.relu(layer(x)) + x
        return self.heads[head](self.norm(x) * self.scale)


net = Block(4)
print(net)
print([name for name, _ in net.named_modules()])
print([type(c).__name__ for c in net.children()])
print(list(dict(net.named_buffers()).keys()), net.scale)
print(sum(p.numel() for p in net.parameters()))


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.ones_(m.weight)
        m.bias.data.fill_(0.01)


net.apply(init_weights)
x = torch.randn(3, 4)
out = net(x, head="b")
print(out, out.shape)
for p in net.layers.parameters():
    p.requires_grad_(False)
print([p.requires_grad for p in net.parameters()])
out.sum().backward()
print(net.layers[0].weight.grad, net.heads["b"].weight.grad)
print(list(net.state_dict().keys()))
net.eval()
print(net.training, net.norm.training)
net.zero_grad()
print(net.heads["b"].weight.grad)
print(len(net.layers), "a" in net.heads, list(net.heads.keys()))
