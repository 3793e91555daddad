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
    ("adadelta", "torch.optim.Adadelta(params, lr=1.0, weight_decay=0.05)"),
    ("adamax", "torch.optim.Adamax(params, lr=0.01, maximize=True)"),
    (
        "nadam_decoupled",
        "torch.optim.NAdam(params, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)",
    ),
    ("radam", "torch.optim.RAdam(params, lr=0.01, betas=(0.9, 0.8), weight_decay=0.1)"),
    ("rprop", "torch.optim.Rprop(params, lr=0.05, etas=(0.4, 1.3), step_sizes=(1e-3, 1.0))"),
    ("asgd", "torch.optim.ASGD(params, lr=0.05, t0=2, lambd=0.01)"),
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

_add(
    "op_more_math",
    """
    x = torch.tensor([[0.25, -0.5, 0.75], [0.1, 0.9, -0.3]], requires_grad=True)
    p = torch.tensor([[0.5, 1.5, 2.5], [3.0, 0.2, 1.1]], requires_grad=True)
    outs = [x.tan(), x.asin(), x.acos(), x.atan(), x.sinh(), x.cosh(), x.expm1(), p.log2(),
            p.log10(), p.log1p(), p.rsqrt(), x.floor(), x.ceil(), x.round(), x.trunc(),
            x.frac(), x.square(), torch.atan2(x, p), x.round(decimals=1)]
    total = sum(o.sum() for o in outs)
    total.backward()
    names = [o.grad_fn.name() for o in outs]
    t_tan, t_asin, t_floor, t_square, t_atan2 = outs[0], outs[1], outs[11], outs[16], outs[17]
    """,
)

_add(
    "op_more_activations_and_losses",
    """
    import torch.nn.functional as F

    x = torch.tensor([[0.25, -1.5, 2.75], [-0.1, 0.9, -3.0]], requires_grad=True)
    prob = torch.tensor([[0.2, 0.7, 0.9], [0.4, 0.5, 0.05]], requires_grad=True)
    t = torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    acts = [F.leaky_relu(x, 0.2), F.elu(x), F.softplus(x), F.softplus(x, beta=2.0, threshold=1.0),
            F.silu(x), F.hardtanh(x), F.relu6(x * 3), F.logsigmoid(x)]
    losses = [
        F.binary_cross_entropy(prob, t),
        F.binary_cross_entropy(prob, t, reduction="sum"),
        F.binary_cross_entropy_with_logits(x, t),
        F.binary_cross_entropy_with_logits(x, t, pos_weight=torch.tensor([1.0, 2.0, 0.5])),
        F.l1_loss(x, t),
        F.smooth_l1_loss(x, t),
        F.smooth_l1_loss(x, t, beta=0.5, reduction="none"),
        F.huber_loss(x, t, delta=0.5),
    ]
    total = sum(a.sum() for a in acts) + sum(l.sum() for l in losses)
    total.backward()
    names = [o.grad_fn.name() for o in acts + losses]
    leaky, elu, soft, bce, bcel, bcel_pw, huber = (
        acts[0], acts[1], acts[2], losses[0], losses[2], losses[3], losses[7]
    )
    """,
)

_add(
    "op_norms",
    """
    x = torch.tensor([[3.0, -4.0, 1.0], [0.5, 2.0, -2.0]], requires_grad=True)
    z = torch.zeros(3, requires_grad=True)
    norms = [x.norm(), x.norm(p=1), x.norm(dim=1), x.norm(p=3, dim=0, keepdim=True),
             torch.norm(x), torch.linalg.norm(x), torch.linalg.vector_norm(x, float("inf")),
             torch.linalg.vector_norm(x, 0.5, dim=1), x.norm("fro"), z.norm()]
    (sum(n.sum() for n in norms)).backward()
    n2, n1, nd, n3 = norms[:4]
    ninf, nhalf, nz = norms[6], norms[7], norms[9]
    names = [n.grad_fn.name() for n in norms]
    """,
)

_add(
    "op_logic_and_creation",
    """
    import numpy as np

    a = torch.tensor([1.0, float("nan"), float("inf"), -2.0])
    checks = [a.isnan(), a.isinf(), a.isfinite(), torch.isclose(a, a),
              torch.isclose(a, a, equal_nan=True)]
    flags = [torch.equal(a[:1], a[:1]), torch.equal(a, a), torch.allclose(a[:1], a[:1] + 1e-9),
             torch.equal(torch.tensor([1, 2]), torch.tensor([1.0, 2.0])),
             torch.equal(torch.ones(2), torch.ones(3))]
    b = torch.tensor([[1, 0, 3], [2, 2, 0]])
    reds = [b.all(), b.any(), b.all(dim=1), b.any(0, keepdim=True), torch.all(b > -1)]
    lin = torch.linspace(-3.3, 7.1, 17)
    lin64 = torch.linspace(0.1, 0.9, 100, dtype=torch.float64)
    lin_int = torch.linspace(0, 10, 5, dtype=torch.int64)
    lin_one = torch.linspace(2, 5, 1)
    logs = torch.logspace(0, 2, 3)
    e = torch.eye(2, 3)
    e_int = torch.eye(3, dtype=torch.int64)
    arr = np.array([1.5, 2.5], dtype=np.float64)
    shared = torch.from_numpy(arr)
    arr[0] = 7.0
    """,
)

_add(
    "op_more_reductions",
    """
    x = torch.tensor([[1.5, -2.0, 0.5, 3.0], [0.25, 4.0, -1.0, 2.0]], requires_grad=True)
    z = torch.tensor([[2.0, 0.0, 3.0], [0.0, 0.0, 1.0]], requires_grad=True)
    outs = [x.prod(), x.prod(1), x.prod(0, keepdim=True), z.prod(1), z.prod(), x.amax(1), x.amin(),
            x.amax(dim=(0, 1), keepdim=True), x.logsumexp(1), torch.logsumexp(x, dim=(0, 1)),
            x.var(), x.var(1), x.var(0, keepdim=True, unbiased=False), x.var(dim=1, correction=0),
            x.std(), x.std(1, keepdim=True), x.cumsum(1), x.cumsum(dim=0), x.flip(0), x.flip(-1)]
    (sum(o.sum() for o in outs)).backward()
    names = [o.grad_fn.name() for o in outs]
    ties = torch.tensor([[1.0, 3.0, 3.0]], requires_grad=True)
    ties.amax(1).sum().backward()
    ints = [torch.tensor([1, 2, 3]).prod(), torch.tensor([1, 2, 3]).cumsum(0),
            torch.tensor([True, True]).cumsum(0), torch.tensor([[1, 5], [7, 2]]).amax(0)]
    p0, p1, pz, amax1, lse = outs[0], outs[1], outs[3], outs[5], outs[8]
    v, s, cs = outs[10], outs[15], outs[16]
    """,
)

_add(
    "op_var_one_element_warns",
    """
    x = torch.tensor([1.0], requires_grad=True)
    v = x.var()
    v.backward()
    """,
)

_add(
    "op_cumprod",
    """
    x = torch.tensor([[1.5, -2.0, 0.5, 3.0], [0.25, 4.0, -1.0, 2.0]], requires_grad=True)
    z = torch.tensor([[2.0, 0.0, 3.0, 0.5], [0.0, 1.5, 0.0, 2.0], [1.0, 2.0, 3.0, 0.0]],
                     requires_grad=True)
    outs = [x.cumprod(1), torch.cumprod(x, dim=0), z.cumprod(1), z.cumprod(-2)]
    g = torch.tensor([[1.0, -2.0, 0.5, 3.0], [2.0, 1.0, -1.0, 0.5]])
    (outs[0] * g).sum().backward()
    (outs[1] * g).sum().backward()
    (outs[2] * torch.arange(12.0).reshape(3, 4)).sum().backward()
    outs[3].sum().backward()
    names = [o.grad_fn.name() for o in outs]
    edges = [type(fn).__name__ for fn, _ in outs[0].grad_fn.next_functions]
    ints = [torch.tensor([1, 2, 3]).cumprod(0), torch.tensor([True, False, True]).cumprod(0)]
    c0, c1, c2, c3 = outs
    """,
)

_add(
    "op_einsum",
    """
    a = torch.tensor([[1.0, -2.0, 0.5], [0.25, 4.0, -1.0]], requires_grad=True)
    b = torch.tensor([[0.5, 1.0], [-1.0, 2.0], [3.0, 0.25]], requires_grad=True)
    v = torch.tensor([2.0, -1.0, 0.5], requires_grad=True)
    mm = torch.einsum("ij,jk->ik", a, b)
    tr = torch.einsum("ij->ji", a)
    total = torch.einsum("ij->", a)
    cols = torch.einsum("ij->j", a)
    had = torch.einsum("ij,ij->ij", a, a)
    outer = torch.einsum("i,j->ij", v, v)
    mv = torch.einsum("ij,j->i", [a, v])
    dot = torch.einsum("i,i", v, v)
    bmm = torch.einsum("bij,bjk->bik", a.unsqueeze(0), b.unsqueeze(0))
    ell = torch.einsum("...j,jk->...k", a, b)
    chain = torch.einsum("ij,jk,kl->il", a, b, b.t())
    sq = torch.tensor([[1.0, 2.0, -1.0], [0.5, -3.0, 2.0], [4.0, 1.5, 0.25]], requires_grad=True)
    diag = torch.einsum("ii->i", sq)
    trace = torch.einsum("ii", sq)
    diag_base = [diag._base is sq]
    outs = [mm, tr, total, cols, had, outer, mv, dot, bmm, ell, chain, diag, trace]
    sum(o.sum() for o in outs).backward()
    names = [o.grad_fn.name() for o in outs]
    mm_edges = [fn.name() for fn, _ in mm.grad_fn.next_functions]
    """,
)

_add(
    "op_einsum_errors",
    """
    a = torch.ones(2, 3)
    try:
        torch.einsum("ij,jk->ik", a)
    except RuntimeError as e:
        few = str(e)
    try:
        torch.einsum("ijk->i", a)
    except RuntimeError as e:
        dims = str(e)
    try:
        torch.einsum("ij->ix", a)
    except RuntimeError as e:
        missing = str(e)
    try:
        torch.einsum("ij,jk->ik", a, torch.ones(2, 2))
    except RuntimeError as e:
        sizes = str(e)
    """,
)

_add(
    "op_select_and_rearrange",
    """
    x = torch.tensor([[1.5, -2.0, 0.5], [0.25, 4.0, -1.0]], requires_grad=True)
    v = torch.tensor([3.0, -1.0], requires_grad=True)
    idx = torch.tensor([[0, 0], [2, 1]])
    outs = [x.masked_fill(x > 1, 0.0), x.masked_fill(x < 0, v[0]),
            x.index_select(1, torch.tensor([2, 0, 2])), torch.gather(x, 1, idx),
            x.scatter(1, idx[:, :1], 7.0), x.scatter_add(1, idx, torch.ones(2, 2)),
            x.sort(1).values, x.sort(0, descending=True)[0], x.topk(2).values,
            x.topk(1, dim=0, largest=False)[0], x.repeat(2, 1), x.repeat(1, 2, 1), x.tril(),
            x.triu(1), torch.outer(v, x[0]), x.square()]
    (sum((o * (i + 1)).sum() for i, o in enumerate(outs))).backward()
    names = [o.grad_fn.name() for o in outs]
    sorted_pair = x.sort(1)
    sort_idx = sorted_pair.indices
    top_idx = x.topk(2).indices
    order = x.argsort(dim=1, descending=True)
    mf, isel, gat, sct, sadd = outs[0], outs[2], outs[3], outs[4], outs[5]
    rep, tl, out = outs[10], outs[12], outs[14]
    text = [repr(torch.max(x.detach(), 1)), str(x.detach().sort(1))]
    """,
)

_add(
    "op_masked_fill_long_mask_error",
    """
    x = torch.ones(3)
    y = x.masked_fill(torch.tensor([1, 0, 1]), 0.0)
    """,
)

_add(
    "op_index_select_out_of_range_error",
    """
    x = torch.ones(2, 3)
    y = x.index_select(0, torch.tensor([2]))
    """,
)

_add(
    "autograd_functional_api",
    """
    from torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

    x = torch.tensor([1.0, 2.0, -0.5])
    y = torch.tensor([0.5, -1.0, 3.0])
    f = lambda a: a ** 2 * 3
    J = jacobian(f, x)
    J2 = jacobian(lambda a, b: a * b + b.exp(), (x, y))
    J3 = jacobian(lambda a: (a * 2, a.sum()), x)
    Jz = jacobian(lambda a: torch.ones(2), x)
    Jg = jacobian(lambda a: (a ** 3).sum(), x, create_graph=True)
    out_vjp, v1 = vjp(f, x, torch.ones(3))
    out_jvp, v2 = jvp(f, x, torch.tensor([1.0, 0.0, 2.0]))
    H = hessian(lambda a: (a ** 3).sum() + (a[0] * a[1]), x)
    H2 = hessian(lambda a, b: (a * b).sum(), (x, y))
    out_hvp, v3 = hvp(lambda a: (a ** 3).sum(), x, torch.ones(3))
    out_vhp, v4 = vhp(lambda a: (a ** 3).sum(), x, torch.ones(3))
    leaf = [x.requires_grad, J.requires_grad, Jg.requires_grad]
    ok = [torch.autograd.gradgradcheck(lambda a: (a ** 3).sum() * a,
                                       (x.double().requires_grad_(),))]
    """,
    ignore_graph=("Jg",),  # second-order node names are pinned by the double-backward tests
)

_add(
    "autograd_functional_v_none_error",
    """
    from torch.autograd.functional import vjp

    out, v = vjp(lambda a: a * 2, torch.ones(2))
    """,
)

_add(
    "autograd_functional_strict_error",
    """
    from torch.autograd.functional import jacobian

    J = jacobian(lambda a: torch.ones(2), torch.ones(2), strict=True)
    """,
)

_add(
    "nn_cnn_layers_train_step",
    """
    import torch.nn.functional as F

    torch.manual_seed(0)
    conv = torch.nn.Conv2d(2, 3, 3, padding=1)
    conv1 = torch.nn.Conv1d(3, 2, 2, stride=2, groups=1, bias=False)
    bn = torch.nn.BatchNorm2d(3)
    ln = torch.nn.LayerNorm(4)
    emb = torch.nn.Embedding(5, 4, padding_idx=0)
    with torch.no_grad():
        for i, p in enumerate([conv.weight, conv.bias, conv1.weight, emb.weight]):
            p.copy_((torch.arange(p.numel(), dtype=torch.float32) % 7 - 3).reshape(p.shape)
                    / (i + 5))
    x = (torch.arange(2 * 2 * 4 * 4, dtype=torch.float32).reshape(2, 2, 4, 4) % 5 - 2) / 3
    h = F.relu(bn(conv(x)))
    pooled = F.max_pool2d(h, 2)
    avg = F.avg_pool2d(h, 2, stride=1, padding=1, count_include_pad=False)
    seq = pooled.flatten(2)
    one_d = conv1(seq)
    tokens = torch.tensor([[0, 3, 1], [4, 4, 2]])
    e = ln(emb(tokens))
    loss = one_d.pow(2).mean() + avg.mean() + e.pow(2).sum() * 0.1
    loss.backward()
    cw, cb, c1w, bw, bb, ew, lw = (conv.weight, conv.bias, conv1.weight, bn.weight, bn.bias,
                                   emb.weight, ln.weight)
    running_mean, running_var, tracked = bn.running_mean, bn.running_var, bn.num_batches_tracked
    bn.eval()
    evaluated = bn(conv(x))
    names = [t.grad_fn.name() for t in (h, pooled, avg, one_d, e, evaluated)]
    """,
    ignore_values=("tracked",),
)

_add(
    "op_split_chunk_unbind",
    """
    x = (torch.arange(12.0).reshape(6, 2) - 5).requires_grad_()
    a, b, c = x.split(2)
    p, q = torch.split(x, [5, 1])
    h1, h2 = x.chunk(2, dim=1)
    r0, r1, r2, r3, r4, r5 = x.unbind()
    loss = (a * 2).sum() + c.sum() + q.sum() * 3 + (h2 ** 2).sum() + r4.sum() * 5
    loss.backward()
    names = [t.grad_fn.name() for t in (a, p, h1, r0)]
    pieces = [len(x.chunk(4)), len(torch.chunk(torch.ones(5), 3)), len(x.split(4))]
    y = torch.ones(4)
    u, v = y.split(2)
    u.mul_(2)
    """,
)

_add(
    "op_split_output_inplace_error",
    """
    x = torch.ones(4, requires_grad=True).clone()
    a, b = x.split(2)
    a.mul_(2)
    """,
)

_add(
    "nn_seeded_init_dropout_and_dataloader",
    """
    torch.manual_seed(7)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Dropout(0.5), torch.nn.Linear(4, 1))
    w1, b1, w2, b2 = model.parameters()
    X = torch.arange(24.0).reshape(8, 3) / 10
    y = X.sum(1, keepdim=True)
    data = torch.utils.data.TensorDataset(X, y)
    loader = torch.utils.data.DataLoader(data, batch_size=3, shuffle=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    orders = []
    for epoch in range(2):
        for xb, yb in loader:
            orders.append(xb[:, 0].mul(10).round().tolist())
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
    model.eval()
    evaluated = model(X)
    after = torch.rand(3)
    n_batches = [len(loader)]
    """,
)

_add(
    "nn_utils_clip_and_vector",
    """
    a = torch.nn.Parameter(torch.tensor([3.0, 4.0]))
    b = torch.nn.Parameter(torch.tensor([[1.0, -2.0]]))
    (a * torch.tensor([3.0, 4.0])).sum().backward()
    (b * torch.tensor([[12.0, 5.0]])).sum().backward()
    total = torch.nn.utils.clip_grad_norm_([a, b], 1.0)
    ga = a.grad.clone()
    again = torch.nn.utils.clip_grad_norm_([a, b], 100.0, norm_type=1)
    torch.nn.utils.clip_grad_value_([a, b], 0.1)
    flat = torch.nn.utils.parameters_to_vector([a, b])
    torch.nn.utils.vector_to_parameters(torch.tensor([9.0, 8.0, 7.0, 6.0]), [a, b])
    """,
)

_add(
    "nn_full_backward_hooks",
    """
    lin = torch.nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[0.5, -1.0]]))
        lin.bias.fill_(0.25)
    seen = []
    lin.register_full_backward_hook(
        lambda m, gi, go: seen.append([None if g is None else g.tolist() for g in gi + go])
    )
    lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
    x = torch.ones(3, 2, requires_grad=True)
    y = lin(x)
    y.sum().backward()
    y2 = lin(torch.ones(3, 2))
    y2.sum().backward()
    names = [y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()]
    w = lin.weight

    class Pair(torch.nn.Module):
        def forward(self, a, b):
            return a * 2, b + a

    pair = Pair()
    pair.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10, None))
    a = torch.tensor([1.0], requires_grad=True)
    b = torch.tensor([2.0])
    o1, o2 = pair(a, b)
    (o1 * 3 + o2).sum().backward()
    """,
)

_add(
    "autograd_saved_tensors_hooks",
    """
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    log = []

    def pack(x):
        log.append(["pack", x.tolist(), x.grad_fn.name() if x.grad_fn else None])
        return x

    def unpack(x):
        log.append(["unpack", x.tolist()])
        return x

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = a * b
        z = y.exp()
        w = z.sum() * torch.tensor(2.0)
        q = a / b
    (w + q.sum()).backward()
    events = [e[0] for e in log]
    packed_values = [e[1] for e in log]

    def to_list(x):
        return x.tolist()

    c = torch.tensor([1.5, -2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(to_list, torch.tensor):
        s = (c * c).sum()
        with torch.no_grad():
            c.mul_(1)
    s.backward()
    """,
)

_add(
    "mode_inference_tensors",
    """
    w = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        x = torch.ones(2, requires_grad=True) * 2
        z = w * 3
    flags = [x.is_inference(), z.is_inference(), w.is_inference(), z.requires_grad,
             torch.is_inference_mode_enabled()]
    with torch.inference_mode(False):
        v = w * 2

    @torch.inference_mode()
    def predict(a):
        return a * 4

    p = predict(w)
    marks = [p.is_inference(), v.is_inference()]
    loss = (x * w).sum()
    """,
)

_add(
    "mode_inference_tensor_inplace_error",
    """
    with torch.inference_mode():
        x = torch.ones(2)
    x.add_(1)
    """,
)

_add(
    "dtype_set_default_float64",
    """
    torch.manual_seed(0)
    torch.set_default_dtype(torch.float64)
    a = torch.tensor([1.5, 2.0], requires_grad=True)
    b = torch.ones(2)
    c = torch.tensor([1, 2]) * 1.5
    d = torch.arange(3.0)
    lin = torch.nn.Linear(2, 1)
    y = lin(a * b)
    y.backward()
    kinds = [str(torch.get_default_dtype()), str(lin.weight.dtype)]
    torch.set_default_dtype(torch.float32)
    e = torch.tensor([1.5])
    """,
)

_add(
    "backward_edge_gradients_are_reduced_before_post_hooks",
    """
    a = torch.ones(3, 1, requires_grad=True)
    b = torch.full((1, 4), 2.0, requires_grad=True)
    y = a * b
    shapes = []
    y.grad_fn.register_hook(lambda gi, go: shapes.append([list(g.shape) for g in gi]))
    y.sum().backward()
    bias = torch.zeros(2, requires_grad=True)
    w = torch.ones(3, 2, requires_grad=True)
    x = torch.ones(4, 3, requires_grad=True)
    out = torch.nn.functional.linear(x, w.t(), bias)
    out.grad_fn.register_hook(
        lambda gi, go: shapes.append([None if g is None else list(g.shape) for g in gi])
    )
    out.sum().backward()
    """,
)


# ===========================================================================
# post-accumulate-grad hooks

_add(
    "hook_post_accumulate_grad_sgd_step",
    """
    v = torch.tensor([0., 0., 0.], requires_grad=True)
    lr = 0.01
    h = v.register_post_accumulate_grad_hook(lambda p: p.add_(p.grad, alpha=-lr))
    v.backward(torch.tensor([1., 2., 3.]))
    after_one = v.detach().clone()
    h.remove()
    h.remove()
    (v * 2).sum().backward()
    """,
)

_add(
    "hook_post_accumulate_grad_order",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    log = []
    x.register_post_accumulate_grad_hook(lambda p: log.append(["post", p.grad.tolist()]))
    x.register_hook(lambda g: log.append(["tensor", g.tolist()]))
    y = x * 3
    acc = y.grad_fn.next_functions[0][0]
    acc.register_hook(lambda gi, go: log.append(["node_post", go[0].tolist()]))
    acc.register_prehook(lambda go: log.append(["node_pre", go[0].tolist()]))
    x.register_post_accumulate_grad_hook(lambda p: log.append(["post2", p is x]))
    (y * y).sum().backward()
    g = torch.autograd.grad((x * 5).sum(), [x])
    log.append(["after grad", len(log)])
    (x * 0).sum().backward(inputs=[x])
    """,
)

_add(
    "hook_post_accumulate_grad_create_graph",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    modes = []
    x.register_post_accumulate_grad_hook(lambda p: modes.append(torch.is_grad_enabled()))
    (x ** 2).sum().backward(create_graph=True)
    gfn = x.grad.grad_fn.name()
    """,
)

_add(
    "hook_post_accumulate_grad_nonleaf_error",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.register_post_accumulate_grad_hook(lambda p: None)
    """,
)

_add(
    "hook_post_accumulate_grad_no_grad_error",
    """
    x = torch.tensor([1., 2.])
    x.register_post_accumulate_grad_hook(lambda p: None)
    """,
)

_add(
    "hook_post_accumulate_grad_returns_tensor_error",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda p: p * 2)
    (x * 3).sum().backward()
    """,
)

_add(
    "hook_post_accumulate_grad_returns_other_error",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda p: "done")
    (x * 3).sum().backward()
    """,
)


# ===========================================================================
# anomaly detection
#
# The warning printed when backward fails holds the whole Python stack of the forward
# call, which differs between the golden run and a test run; scenarios keep its first
# line and the frames of the snippet itself.

_ANOMALY_CAPTURE = """
import warnings

def anomaly_report(caught):
    report = []
    for w in caught:
        text = str(w.message).split(" (Triggered internally")[0]
        lines = text.splitlines()
        heads = [line for line in lines if line.startswith(("Error detected", "Previous"))]
        frames = [line.strip() for line in lines if "<scenario>" in line]
        report.append([w.category.__name__, heads, frames])
    return report
"""

_add(
    "anomaly_switches",
    """
    states = [[torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()]]
    torch.autograd.set_detect_anomaly(True)
    states.append([torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()])
    torch.autograd.set_detect_anomaly(True, check_nan=False)
    states.append([torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()])
    torch.autograd.set_detect_anomaly(False)
    states.append([torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()])
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        states.append([torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()])
    states.append([torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()])
    manager = torch.autograd.detect_anomaly(check_nan=False)
    states.append([torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()])
    with manager:
        states.append([torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()])
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x * 3
        keys = sorted(y.grad_fn.metadata)
        frame = y.grad_fn.metadata["traceback_"][-1]
    states.append([torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()])
    plain = sorted((x * 2).grad_fn.metadata)
    """,
)

_add(
    "anomaly_inplace_error_shows_forward_line",
    _ANOMALY_CAPTURE
    + """
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        x = torch.tensor([1., 2.], requires_grad=True)
        a = x * 1
        b = a * a
        a.add_(1)
        try:
            b.sum().backward()
        except RuntimeError as e:
            error = str(e)
report = anomaly_report(caught)
""",
)

_add(
    "anomaly_check_nan_error",
    _ANOMALY_CAPTURE
    + """
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        u = torch.tensor([0., 1.], requires_grad=True)
        v = u / u
        try:
            v.sum().backward()
        except RuntimeError as e:
            error = str(e)
        w = torch.tensor([1.], requires_grad=True)
        h = w * 2
        h.register_hook(lambda g: g * float("nan"))
        try:
            (h * 3).sum().backward()
        except RuntimeError as e:
            hook_error = str(e)
        leaf = torch.tensor([1.], requires_grad=True)
        leaf.backward(torch.tensor([float("nan")]))
report = anomaly_report(caught)
with torch.autograd.set_detect_anomaly(True, check_nan=False):
    u2 = torch.tensor([0., 1.], requires_grad=True)
    (u2 / u2).sum().backward()
""",
)

_add(
    "anomaly_without_forward_information",
    _ANOMALY_CAPTURE
    + """
x = torch.tensor([1., 2.], requires_grad=True)
a = x * 1
b = a * a
a.add_(1)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.set_detect_anomaly(True):
        try:
            b.sum().backward()
        except RuntimeError as e:
            error = str(e)
messages = [str(w.message).split(" (Triggered internally")[0] for w in caught]
""",
)

_add(
    "anomaly_double_backward_names_the_parent",
    _ANOMALY_CAPTURE
    + """
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        x = torch.tensor([1., 2.], requires_grad=True)
        y = x ** 3
        (g,) = torch.autograd.grad(y.sum(), [x], create_graph=True)
        parent_is_pow = g.grad_fn.metadata["parent_"] is y.grad_fn
        with torch.no_grad():
            x.mul_(2)
        try:
            g.sum().backward()
        except RuntimeError as e:
            error = str(e)
report = anomaly_report(caught)
""",
)

_add(
    "real_programs_one_hot",
    """
    target = torch.tensor([1, 0, 3])
    hot = torch.nn.functional.one_hot(target)
    hot5 = torch.nn.functional.one_hot(target, num_classes=5).float()
    errors = []
    for bad in (torch.tensor([1.0]), torch.tensor([-1]), torch.tensor([], dtype=torch.long)):
        try:
            torch.nn.functional.one_hot(bad)
        except RuntimeError as e:
            errors.append(str(e))
    try:
        torch.nn.functional.one_hot(target, num_classes=2)
    except RuntimeError as e:
        errors.append(str(e))
    """,
)

_add(
    "real_programs_trace",
    """
    m = torch.arange(1.0, 7.0).reshape(2, 3).requires_grad_()
    t = torch.trace(m)
    t.backward()
    square = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    s = (square.trace() * 2).sum()
    s.backward()
    ints = torch.trace(torch.ones(2, 2, dtype=torch.int32))
    try:
        torch.trace(torch.ones(3))
    except RuntimeError as e:
        error = str(e)
    """,
)

_add(
    "real_programs_nonzero_broadcast",
    """
    x = torch.tensor([[0.0, 1.5], [2.0, 0.0]])
    nz = torch.nonzero(x)
    rows, cols = x.nonzero(as_tuple=True)
    where = torch.argwhere(x > 1)
    scalar_nz = torch.nonzero(torch.tensor(3.0))
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    ba, bb = torch.broadcast_tensors(a, torch.ones(3, 1))
    ba.sum().backward()
    to = torch.broadcast_to(a, (2, 2))
    shape = list(torch.broadcast_shapes((2, 1), (3,)))
    errors = []
    try:
        torch.broadcast_tensors(torch.ones(2), torch.ones(3))
    except RuntimeError as e:
        errors.append(str(e))
    try:
        torch.broadcast_shapes((2,), (3,))
    except RuntimeError as e:
        errors.append(str(e))
    try:
        torch.ones(2, 1, 3) @ torch.ones(4, 3, 2)
    except RuntimeError as e:
        errors.append(str(e))
    """,
)

_add(
    "real_programs_gradcheck_message_and_data_ptr",
    """
    class WrongCube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x**2 * g

    inp = torch.tensor([1.0, 2.0], dtype=torch.double, requires_grad=True)
    try:
        torch.autograd.gradcheck(WrongCube.apply, (inp,))
    except RuntimeError as e:
        error = str(e)
    w = torch.ones(3, requires_grad=True)
    shares = [w.data.data_ptr() == w.data_ptr(), w.detach().data_ptr() == w.data_ptr()]
    copies = [w.clone().data_ptr() == w.data_ptr()]
    """,
)

_add(
    "real_programs_clamp_bounds_argmin_inplace_fills",
    """
    x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    lo = x.clamp_min(0.0)
    hi = x.clamp_max(1.0)
    both = torch.clip(x, -0.5, 1.0)
    (lo + hi + both).sum().backward()
    amin = torch.argmin(torch.tensor([[3.0, 1.0], [0.0, 5.0]]))
    amin_dim = torch.tensor([[3.0, 1.0], [0.0, 5.0]]).argmin(dim=1, keepdim=True)
    m = torch.ones(2, 3, requires_grad=True) * 1
    m.masked_fill_(torch.tensor([[True, False, False], [False, False, True]]), 5.0)
    s = torch.ones(2, 3, requires_grad=True) * 1
    s.scatter_(1, torch.tensor([[0], [2]]), torch.full((2, 1), 3.0))
    sa = torch.zeros(3)
    sa.scatter_add_(0, torch.tensor([0, 0, 2]), torch.ones(3))
    strides = [list(torch.ones(2, 3, 4).permute(2, 0, 1).stride())]
    strides.append(list(torch.ones(3, 1).expand(3, 4).stride()))
    """,
)

_add(
    "real_programs_out_argument",
    """
    a = torch.ones(2, 2)
    out = torch.zeros(2, 2)
    returned_is_out = [torch.matmul(a, a, out=out) is out]
    product = torch.mul(a, 3, out=torch.empty(0))
    errors = []
    w = torch.ones(2, requires_grad=True)
    try:
        torch.add(w, w, out=torch.zeros(2))
    except RuntimeError as e:
        errors.append(str(e))
    try:
        torch.mul(a, 2.5, out=torch.zeros(2, 2, dtype=torch.long))
    except RuntimeError as e:
        errors.append(str(e))
    with torch.no_grad():
        quiet = torch.add(w, w, out=torch.zeros(2))
    """,
)

_add(
    "real_programs_cosine_annealing_and_random_split",
    """
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.001)
    lrs = []
    for _ in range(10):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    torch.manual_seed(0)
    ds = torch.utils.data.TensorDataset(torch.arange(10.0))
    first, second = torch.utils.data.random_split(ds, [0.7, 0.3])
    split_indices = [list(first.indices), list(second.indices)]
    g = torch.Generator().manual_seed(42)
    third, fourth = torch.utils.data.random_split(ds, [4, 6], generator=g)
    fixed_indices = [list(third.indices), list(fourth.indices)]
    """,
)

_add(
    "real_programs_gelu_normalize_cosine",
    """
    x = torch.tensor([-1.5, -0.2, 0.0, 0.7, 2.0], requires_grad=True)
    exact = torch.nn.functional.gelu(x)
    (g_exact,) = torch.autograd.grad(exact.sum(), x, create_graph=True)
    (h_exact,) = torch.autograd.grad(g_exact.sum(), x)
    approx = torch.nn.functional.gelu(x, approximate="tanh")
    (g_approx,) = torch.autograd.grad(approx.sum(), x, create_graph=True)
    (h_approx,) = torch.autograd.grad(g_approx.sum(), x)
    layer = torch.nn.GELU(approximate="tanh")
    text = [repr(layer)]
    m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    n = torch.tensor([[1.0, 0.0], [2.0, 5.0]], requires_grad=True)
    unit = torch.nn.functional.normalize(m, dim=0)
    cos = torch.nn.functional.cosine_similarity(m, n)
    (unit.sum() + cos.sum()).backward()
    """,
)

_add(
    "real_programs_tile_diff_unique_embedding_twice",
    """
    v = torch.tensor([1.0, 4.0, 9.0, 16.0], requires_grad=True)
    d1 = torch.diff(v)
    d2 = v.diff(n=2, prepend=torch.tensor([0.0]))
    (d1.sum() + d2.pow(2).sum()).backward()
    tiled = torch.tile(torch.tensor([[1, 2]]), (2, 2))
    labels = torch.tensor([2, 0, 2, 1, 0, 2])
    values, inverse, counts = torch.unique(labels, return_inverse=True, return_counts=True)
    torch.manual_seed(0)
    emb = torch.nn.Embedding(4, 2)
    out = emb(torch.tensor([0, 3])).sum()
    out.backward()
    try:
        out.backward()
    except RuntimeError as e:
        error = str(e)
    """,
)

_add(
    "real_programs_diag_solve_plateau",
    """
    v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    embedded = torch.diag(v, 1)
    a = torch.arange(1.0, 10.0).reshape(3, 3).requires_grad_()
    diagonal = a.diag(-1)
    (embedded.pow(2).sum() + diagonal.sum()).backward()
    A = torch.tensor([[3.0, 1.0], [1.0, 2.0]], requires_grad=True)
    b = torch.tensor([9.0, 8.0], requires_grad=True)
    x = torch.linalg.solve(A, b)
    x.pow(2).sum().backward()
    errors = []
    try:
        torch.linalg.solve(torch.zeros(2, 2), torch.ones(2))
    except RuntimeError as e:
        errors.append(str(e))
    try:
        torch.diag(torch.ones(2, 2, 2))
    except RuntimeError as e:
        errors.append(str(e))
    model = torch.nn.Linear(1, 1)
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1)
    lrs = []
    for loss in [5, 4, 4, 4, 4, 4, 4, 4, 3.9999, 4, 4, 4, 4]:
        sched.step(loss)
        lrs.append(sched.get_last_lr()[0])
    """,
)

_add(
    "real_programs_torch_softmax_needs_dim",
    """
    x = torch.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
    wide = torch.softmax(x, 0, torch.float64)
    logs = torch.log_softmax(x, 1)
    (wide.sum() + logs.sum()).backward()
    errors = []
    for fn in (torch.softmax, torch.log_softmax):
        try:
            fn(x)
        except TypeError as e:
            errors.append(str(e))
    """,
)

_add(
    "real_programs_torch_normal",
    """
    torch.manual_seed(0)
    grid = torch.normal(0, 1, (2, 3))
    shifted = torch.normal(2.0, 0.5, size=(4,))
    both = torch.normal(torch.zeros(3), torch.ones(3))
    means = torch.normal(torch.arange(4.0), 0.1)
    stds = torch.normal(1.0, torch.tensor([0.1, 1.0, 10.0]))
    w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
    try:
        torch.normal(0, -1, (2,))
    except RuntimeError as e:
        error = str(e)
    """,
)

_add(
    "nn_conv_transpose_layers",
    """
    import torch.nn.functional as F

    torch.manual_seed(0)
    up = torch.nn.ConvTranspose2d(4, 3, 4, 2, 1, bias=False)
    grouped = torch.nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0),
                                       output_padding=(1, 0), groups=2, dilation=(1, 2))
    line = torch.nn.ConvTranspose1d(3, 2, 3, stride=3, padding=1, output_padding=2)
    cube = torch.nn.ConvTranspose3d(2, 2, 2, stride=2)
    text = [repr(m) for m in (up, grouped, line, cube)]
    shapes = [list(p.shape) for m in (up, grouped, line, cube) for p in m.parameters()]
    w_up, w_grouped, b_grouped, w_line, b_line, w_cube, b_cube = (
        up.weight, grouped.weight, grouped.bias, line.weight, line.bias, cube.weight, cube.bias)
    x = (torch.arange(2 * 4 * 3 * 3, dtype=torch.float32).reshape(2, 4, 3, 3) % 7 - 3) / 4
    x.requires_grad_()
    a = up(x)
    b = grouped(x)
    sized = up(x, output_size=[7, 7])
    c = line(torch.tanh(a.flatten(2)[:, :, :5]))
    vol = torch.ones(2, 1, 2, 2) / 3
    d = cube(vol)
    loss = a.pow(2).mean() + b.sum() * 0.1 + sized.mean() + c.pow(2).sum() + d.sum()
    loss.backward()
    names = [t.grad_fn.name() for t in (a, b, sized, c, d)]
    edges = [[type(f).__name__ if f is not None else None for f, _ in t.grad_fn.next_functions]
             for t in (a, b, c)]
    saved = [b.grad_fn._saved_transposed, list(b.grad_fn._saved_output_padding),
             list(b.grad_fn._saved_stride), b.grad_fn._saved_groups]
    xg = x.grad
    gw_up, gw_grouped, gb_grouped, gw_line = (up.weight.grad, grouped.weight.grad,
                                               grouped.bias.grad, line.weight.grad)
    f1 = F.conv_transpose1d(torch.ones(2, 4), torch.ones(2, 3, 2), stride=2)
    """,
)

_add(
    "random_geometric_cauchy_log_normal_poisson_graphs",
    """
    torch.manual_seed(1)
    x = torch.tensor([[1.5, 2.0, 12.0], [0.0, 0.25, 30.0]], requires_grad=True)
    counts = torch.poisson(x)
    h = x * 1
    h.geometric_(0.25)
    c = x * 2
    c.cauchy_(1.0, 0.5)
    ln = x + 0
    ln.log_normal_(0.0, 0.5)
    loss = counts.sum() + h.sum() + c.sum() + ln.sum()
    loss.backward()
    names = [t.grad_fn.name() for t in (counts, h, c, ln)]
    edges = [[type(f).__name__ for f, _ in t.grad_fn.next_functions] for t in (counts, h, c, ln)]
    versions = [t._version for t in (counts, h, c, ln)]
    g = x.grad
    ints = torch.empty(2, 2, dtype=torch.int64).geometric_(0.5)
    """,
)

_add(
    "nn_rrelu_graphs",
    """
    import torch.nn.functional as F

    torch.manual_seed(3)
    x = torch.linspace(-2, 1, 7, dtype=torch.float64, requires_grad=True)
    y = F.rrelu(x, training=True)
    noise = y.grad_fn._saved_noise
    facts = [y.grad_fn._saved_lower, y.grad_fn._saved_upper, y.grad_fn._saved_training]
    (g,) = torch.autograd.grad(y.pow(2).sum(), x, create_graph=True)
    g.sum().backward()
    h = x * 1
    z = F.rrelu(h, 0.2, 0.4, inplace=True)
    e = F.rrelu(x)
    (z.sum() + e.sum()).backward()
    names = [t.grad_fn.name() for t in (y, g, z, e)]
    edges = [[type(f).__name__ for f, _ in t.grad_fn.next_functions] for t in (y, g, z, e)]
    xg = x.grad
    layer = torch.nn.RReLU(0.1, 0.3, inplace=True)
    text = repr(layer)
    """,
)
