"""saved_tensors_hooks that print what autograd saves and hands back."""

import torch


def pack(x):
    print("packing", x.shape)
    return x


def unpack(x):
    print("unpacking", x.shape)
    return x


a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    b = a * a
    c = b.exp()
c.sum().backward()
