# Model ensembling with torch.func (PyTorch's "Model ensembling" tutorial): stack_module_state,
# vmap over stacked parameters, plus jacrev/hessian/vmap(grad) over a parameter dict.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, hessian, jacrev, stack_module_state, vmap

torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


models = [SimpleMLP() for _ in range(5)]
minibatches = torch.randn(5, 8, 4, 4)
minibatch = minibatches[0]
params, buffers = stack_module_state(models)
base_model = copy.deepcopy(models[0])


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


p1 = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
p2 = vmap(fmodel)(params, buffers, minibatches)
print(
    p1.shape, p2.shape, torch.allclose(p1, torch.stack([m(minibatch) for m in models]), atol=1e-6)
)
print(p1.grad_fn is not None, p1[0, 0, :3])
m = models[0]
ps = dict(m.named_parameters())


def loss(ps, x):
    return functional_call(m, ps, (x,)).pow(2).mean()


j = jacrev(functional_call, argnums=1)(m, ps, (minibatch[:2],))
print({k: tuple(v.shape) for k, v in j.items()})
h = hessian(lambda b: loss({**ps, "fc2.bias": b}, minibatch))(ps["fc2.bias"])
print(h.shape, h[0, :3])
g = vmap(grad(loss), in_dims=(None, 0))(
    {k: v.detach() for k, v in ps.items()}, minibatch.unsqueeze(1)
)
print({k: tuple(v.shape) for k, v in g.items()}, g["fc2.bias"][0, :3])
