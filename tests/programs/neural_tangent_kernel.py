# Empirical neural tangent kernels with torch.func (PyTorch's "Neural Tangent Kernels" tutorial):
# vmap(jacrev) over a params dict, and NTK-vector products from vjp, jvp and nested vmap.
import torch
import torch.nn as nn
from torch.func import functional_call, jacrev, jvp, vjp, vmap

torch.manual_seed(0)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, (3, 3))
        self.fc = nn.Linear(4, 5)

    def forward(self, x):
        x = self.conv1(x).relu()
        x = x.mean(dim=(-1, -2))
        return self.fc(x)


net = CNN()
x_train = torch.randn(4, 3, 6, 6)
x_test = torch.randn(3, 3, 6, 6)
params = {k: v.detach() for k, v in net.named_parameters()}


def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)


def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2):
    jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
    jac1 = jac1.values()
    jac1 = [j.flatten(2) for j in jac1]
    jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
    jac2 = jac2.values()
    jac2 = [j.flatten(2) for j in jac2]
    result = torch.stack([torch.einsum("Naf,Mbf->NMab", j1, j2) for j1, j2 in zip(jac1, jac2)])
    return result.sum(0)


result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
print(result.shape, result[0, 0].round(decimals=3))


def empirical_ntk_ntk_vps(func, params, x1, x2, compute="full"):
    def get_ntk(x1, x2):
        def func_x1(params):
            return func(params, x1)

        def func_x2(params):
            return func(params, x2)

        output, vjp_fn = vjp(func_x1, params)

        def get_ntk_slice(vec):
            vjps = vjp_fn(vec)
            _, jvps = jvp(func_x2, (params,), vjps)
            return jvps

        basis = torch.eye(output.numel(), dtype=output.dtype, device=output.device).view(
            output.numel(), -1
        )
        return vmap(get_ntk_slice)(basis)

    result = vmap(vmap(get_ntk, (None, 0)), (0, None))(x1, x2)
    return result


result2 = empirical_ntk_ntk_vps(fnet_single, params, x_train, x_test)
print(result2.shape, torch.allclose(result, result2, atol=1e-5))
