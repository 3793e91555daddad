# Per-sample gradients with torch.func, as in PyTorch's "Per-sample-gradients" tutorial.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)


class SimpleCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.fc1 = nn.Linear(4 * 3 * 3, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        return F.log_softmax(self.fc1(x), dim=1)


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


model = SimpleCNN()
batch_size = 4
data = torch.randn(batch_size, 1, 8, 8)
targets = torch.randint(10, (batch_size,))


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)
    target = target.unsqueeze(0)
    loss = loss_fn(model(sample), target)
    return torch.autograd.grad(loss, list(model.parameters()))


slow = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
slow = list(zip(*slow))
slow = [torch.stack(shards) for shards in slow]

params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return loss_fn(predictions, targets)


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)

for (name, g), s in zip(ft_per_sample_grads.items(), slow):
    print(name, tuple(g.shape), g.dtype, g.requires_grad, g.grad_fn)
    print("  matches loop:", torch.allclose(g, s, atol=1e-6, rtol=1e-5))
print(ft_per_sample_grads["fc1.bias"][0])

loss = compute_loss(params, buffers, data[0], targets[0])
print(round(loss.item(), 4))
g2, value = torch.func.grad_and_value(compute_loss)(params, buffers, data[0], targets[0])
print(sorted(g2), round(value.item(), 4), value.grad_fn)

try:
    grad(lambda x: x * 2)(torch.randn(3))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    vmap(torch.add)(torch.randn(3), torch.randn(4))
except ValueError as e:
    print("ValueError:", e)
