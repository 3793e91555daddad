"""Conformance scenarios for ``nn`` modules and ``optim``: layers, containers, losses,
parameters, state dicts, hooks and every optimizer's update rule.

Weights are set explicitly (``copy_`` under ``no_grad``) so values do not depend on
the random initialisation; parameters are bound to names so the oracle records them.
"""

from __future__ import annotations

from tests.conformance.scenarios import _add

_MLP = """
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        values = torch.arange(p.numel(), dtype=torch.float32) / p.numel() - 0.5
        p.copy_(values.reshape(p.shape) * (i + 1))
x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [-2.0, 1.0, 0.5]])
target = torch.tensor([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]])
"""

_PARAMS = """
w1, b1, w2, b2 = model.parameters()
versions = [p._version for p in model.parameters()]
"""

_add(
    "nn_linear_forward_backward",
    """
    lin = torch.nn.Linear(3, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        lin.bias.copy_(torch.tensor([0.01, -0.02]))
    x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    y = lin(x)
    v = lin(torch.tensor([1.0, -1.0, 0.5]))
    loss = y.pow(2).sum() + v.sum()
    loss.backward()
    w = lin.weight
    b = lin.bias
    names = [n for n, _ in lin.named_parameters()]
    kinds = [type(p).__name__ for p in lin.parameters()]
    """,
)

_add(
    "nn_linear_without_bias",
    """
    lin = torch.nn.Linear(2, 2, bias=False)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    y = lin(torch.tensor([[1.0, -1.0]]))
    y.sum().backward()
    w = lin.weight
    has_bias = [lin.bias is None]
    n = [len(list(lin.parameters()))]
    """,
)

_add(
    "nn_parameter_facts",
    """
    data = torch.tensor([1.0, 2.0, 3.0])
    p = torch.nn.Parameter(data)
    q = torch.nn.Parameter(torch.tensor([4.0]), requires_grad=False)
    with torch.no_grad():
        p.mul_(2)
    shared = data
    y = (p * 3).sum()
    y.backward()
    kinds = [type(p * 1).__name__, type(p.detach()).__name__, type(p.data).__name__]
    is_tensor = [isinstance(p, torch.Tensor)]
    """,
)

_add(
    "nn_sequential_mse_sgd_steps",
    _MLP
    + """
loss_fn = torch.nn.MSELoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
losses = []
for _ in range(3):
    opt.zero_grad()
    loss = loss_fn(model(x), target)
    loss.backward()
    opt.step()
    losses.append(loss.item())
out = model(x)
"""
    + _PARAMS,
)

_add(
    "nn_cross_entropy_module_adam",
    _MLP
    + """
labels = torch.tensor([0, 1, 1])
loss_fn = torch.nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for _ in range(4):
    opt.zero_grad()
    loss = loss_fn(model(x), labels)
    loss.backward()
    opt.step()
state = opt.state[model[0].weight]
exp_avg = state["exp_avg"]
exp_avg_sq = state["exp_avg_sq"]
step = state["step"]
"""
    + _PARAMS,
)

for _name, _ctor in (
    (
        "sgd_nesterov_weight_decay",
        "torch.optim.SGD(params, lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1)",
    ),
    (
        "sgd_dampening_maximize",
        "torch.optim.SGD(params, lr=0.05, momentum=0.5, dampening=0.3, maximize=True)",
    ),
    (
        "adam_amsgrad_weight_decay",
        "torch.optim.Adam(params, lr=0.01, weight_decay=0.1, amsgrad=True)",
    ),
    ("adamw", "torch.optim.AdamW(params, lr=0.01)"),
    ("rmsprop", "torch.optim.RMSprop(params, lr=0.01)"),
    (
        "rmsprop_centered_momentum",
        "torch.optim.RMSprop(params, lr=0.01, momentum=0.9, centered=True)",
    ),
    ("adagrad", "torch.optim.Adagrad(params, lr=0.1, lr_decay=0.01, weight_decay=0.05)"),
):
    _add(
        f"optim_{_name}",
        f"""
        w = torch.nn.Parameter(torch.tensor([[0.5, -1.5, 2.0], [0.25, 1.0, -0.75]]))
        b = torch.nn.Parameter(torch.tensor([0.1, -0.2]))
        params = [w, b]
        opt = {_ctor}
        x = torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0]])
        for _ in range(5):
            opt.zero_grad()
            loss = ((x @ w.t() + b) ** 2).mean()
            loss.backward()
            opt.step()
        last_loss = loss
        """,
    )

_add(
    "optim_zero_grad_keeps_zeros",
    """
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    opt = torch.optim.SGD([w], lr=0.5)
    (w * w).sum().backward()
    opt.step()
    opt.zero_grad(set_to_none=False)
    kept = w.grad
    opt.zero_grad()
    gone = [w.grad is None]
    """,
)

_add(
    "optim_param_groups_and_scheduler",
    """
    a = torch.nn.Parameter(torch.tensor([1.0, -1.0]))
    b = torch.nn.Parameter(torch.tensor([2.0]))
    opt = torch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    lrs = []
    for _ in range(5):
        opt.zero_grad()
        (a.pow(2).sum() + b.pow(3).sum()).backward()
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
    """,
)

_add(
    "nn_state_dict_roundtrip",
    _MLP
    + """
sd = model.state_dict()
keys = list(sd.keys())
saved_w = sd["0.weight"]
detached = [saved_w.requires_grad, saved_w.is_leaf]
other = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
result = str(other.load_state_dict(sd))
copied = other[0].weight
"""
    + _PARAMS,
)

_add(
    "nn_load_state_dict_missing_key_error",
    """
    lin = torch.nn.Linear(2, 2)
    lin.load_state_dict({"weight": torch.zeros(2, 2)})
    """,
)

_add(
    "nn_assign_tensor_to_parameter_error",
    """
    lin = torch.nn.Linear(2, 2)
    lin.weight = torch.zeros(2, 2)
    """,
)

_add(
    "optim_tensor_params_error",
    """
    w = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD(w, lr=0.1)
    """,
)

_add(
    "optim_empty_params_error",
    """
    opt = torch.optim.Adam([])
    """,
)

_add(
    "optim_non_leaf_error",
    """
    w = torch.ones(2, requires_grad=True) * 2
    opt = torch.optim.SGD([w], lr=0.1)
    """,
)

_add(
    "nn_custom_module_hooks",
    """
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(2, 1)
            self.act = torch.nn.ReLU()

        def forward(self, x):
            return self.act(self.fc(x))

    net = Net()
    with torch.no_grad():
        net.fc.weight.copy_(torch.tensor([[0.5, -0.25]]))
        net.fc.bias.fill_(0.1)
    seen = []
    handle = net.fc.register_forward_hook(lambda m, inp, out: out * 2)
    net.register_forward_pre_hook(lambda m, inp: (inp[0] + 1,))
    y = net(torch.tensor([[1.0, 2.0], [3.0, -4.0]]))
    handle.remove()
    z = net(torch.tensor([[1.0, 2.0]]))
    (y.sum() + z.sum()).backward()
    g = net.fc.weight.grad
    names = [n for n, _ in net.named_modules()]
    child = [type(c).__name__ for c in net.children()]
    training = [net.training, net.eval().training, net.fc.training]
    """,
)

_add(
    "nn_module_list_and_dict",
    """
    layers = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)])
    heads = torch.nn.ModuleDict({"a": torch.nn.Linear(2, 1), "b": torch.nn.Identity()})
    with torch.no_grad():
        for i, p in enumerate(layers.parameters()):
            p.fill_(0.1 * (i + 1))
        for p in heads.parameters():
            p.fill_(-0.5)
    h = torch.tensor([[1.0, -1.0]])
    for layer in layers:
        h = torch.relu(layer(h))
    out = heads["a"](h) + heads["b"](h).sum()
    out.sum().backward()
    g0 = layers[0].weight.grad
    count = [len(layers), len(heads), len(list(layers.parameters()))]
    """,
)

_add(
    "autograd_variable_legacy",
    """
    from torch.autograd import Variable

    data = torch.tensor([1.0, 2.0])
    v = Variable(data, requires_grad=True)
    w = Variable(data)
    data.add_(1)
    u = Variable(torch.ones(2) * torch.ones(2, requires_grad=True))
    y = (v * v).sum()
    y.backward()
    checks = [isinstance(data, Variable), isinstance(v, Variable), w is data]
    """,
)

_add(
    "autograd_variable_non_tensor_error",
    """
    from torch.autograd import Variable

    v = Variable([1.0, 2.0])
    """,
)
