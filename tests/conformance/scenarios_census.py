"""Conformance scenarios for the names the census (``tools/census.py``) found learner programs
using and the engine lacking: the math constants, ``torch.backends``/``torch.accelerator``
device probes, the float32 matmul precision switch, ``Tensor.H``/``mH``, the deprecated
``nn.init`` and ``clip_grad_norm`` names, and the lazy layers d2l builds every network from."""

from __future__ import annotations

from tests.conformance.scenarios import _add

_add(
    "census_math_constants",
    """
    import math
    consts = [torch.inf, -torch.inf, torch.pi, torch.e, math.isnan(torch.nan)]
    is_none = torch.newaxis is None
    col = torch.arange(3.0)[:, torch.newaxis]
    keep = torch.tensor([True, False, True])
    masked = torch.tensor([1.0, 2.0, 3.0]).masked_fill(keep, -torch.inf)
    soft = torch.softmax(masked, dim=0)
    angle = torch.tensor(torch.pi / 2).sin()
    """,
)

_add(
    "census_device_probes",
    """
    cudnn = torch.backends.cudnn
    flags = [cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32]
    probes = [cudnn.is_available(), cudnn.version(), torch.backends.mps.is_available(),
              torch.backends.mps.is_built(), torch.accelerator.is_available(),
              torch.accelerator.device_count(), torch.accelerator.current_accelerator()]
    cudnn.deterministic = True
    cudnn.benchmark = False
    after = [cudnn.deterministic, cudnn.benchmark]
    cudnn.deterministic = False
    device = "mps" if torch.backends.mps.is_available() else "cpu"
    try:
        torch.accelerator.current_device_index()
    except RuntimeError as exc:
        message = str(exc)
    """,
)

_add(
    "census_matmul_precision",
    """
    first = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    high = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("fastest")
    kept = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("highest")
    """,
)

_add(
    "census_conjugate_transposes",
    """
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    h = x.H
    mh = x.mH
    b = torch.arange(12.0).reshape(2, 2, 3).mH
    (h * torch.arange(6.0).reshape(3, 2)).sum().backward()
    messages = []
    for t, attr in [(torch.ones(3), "H"), (torch.ones(2, 2, 2), "H"), (torch.ones(3), "mH"),
                    (torch.ones(3), "mT"), (torch.tensor(1.0), "mT")]:
        try:
            getattr(t, attr)
        except RuntimeError as exc:
            messages.append(str(exc))
    """,
)

_add(
    "census_deprecated_init_names",
    """
    torch.manual_seed(0)
    w = torch.empty(3, 4)
    torch.nn.init.constant(w, 0.25)
    c = w.clone()
    torch.nn.init.normal(w, 0.0, 2.0)
    n = w.clone()
    torch.nn.init.xavier_uniform(w)
    xu = w.clone()
    torch.nn.init.kaiming_normal(w)
    kn = w.clone()
    """,
)

_add(
    "census_clip_grad_norm_deprecated",
    """
    p = torch.nn.Parameter(torch.tensor([1.0, -2.0, 2.0]))
    (p * torch.tensor([3.0, 4.0, 0.0])).sum().backward()
    total = torch.nn.utils.clip_grad_norm(p, 1.0)
    g = p.grad
    """,
)

_add(
    "census_lazy_linear",
    """
    torch.manual_seed(0)
    m = torch.nn.LazyLinear(4)
    before = [repr(m), repr(m.weight), type(m.weight).__name__, m.in_features,
              m.has_uninitialized_params(), repr(m.state_dict())]
    try:
        m.weight.shape
    except RuntimeError as exc:
        shape_error = str(exc)
    try:
        m.weight.numel()
    except ValueError as exc:
        numel_error = str(exc)
    x = torch.arange(6.0).reshape(2, 3)
    y = m(x)
    after = [repr(m), type(m).__name__, m.in_features, type(m.weight).__name__,
             len(m._forward_pre_hooks), m.weight.shape[1]]
    w = m.weight
    bias = m.bias
    y.sum().backward()
    w_grad = m.weight.grad
    no_bias = repr(torch.nn.LazyLinear(2, bias=False).bias)
    """,
)

_add(
    "census_lazy_sequential_d2l",
    """
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.LazyLinear(8), torch.nn.ReLU(), torch.nn.LazyLinear(2))
    shown_before = repr(net)
    X = torch.rand(2, 5)
    out = net(X)
    shown_after = repr(net)
    count = sum(p.numel() for p in net.parameters())
    loss = out.pow(2).mean()
    loss.backward()
    """,
)

_add(
    "census_lazy_conv_and_batchnorm",
    """
    torch.manual_seed(0)
    conv = torch.nn.LazyConv2d(4, kernel_size=3, padding=1)
    bn = torch.nn.LazyBatchNorm2d()
    before = [repr(conv), repr(bn), repr(bn.running_mean), repr(bn.num_batches_tracked)]
    x = torch.randn(2, 3, 5, 5)
    y = bn(conv(x))
    after = [repr(conv), repr(bn), type(bn.running_mean).__name__]
    w_shape = list(conv.weight.shape)
    running_mean = bn.running_mean
    running_var = bn.running_var
    tracked = bn.num_batches_tracked
    # (conv.weight's gradient through the batch norm's y.sum() is zero: its bits are the
    # host kernels' noise, so its shape is compared, not its value)
    y.sum().backward()
    conv1 = torch.nn.LazyConv1d(2, 3)
    z = conv1(torch.randn(1, 4, 6))
    conv1_shown = [repr(conv1), list(conv1.weight.shape)]
    bn1 = torch.nn.LazyBatchNorm1d(affine=False)
    v = bn1(torch.randn(4, 3))
    bn1_shown = repr(bn1)
    """,
)

_add(
    "census_type_legacy_classes",
    """
    x = torch.tensor([1.5, -2.0], requires_grad=True)
    as_long = x.type(torch.LongTensor)
    as_double = x.type(torch.DoubleTensor)
    same = x.type(torch.FloatTensor) is x
    by_name = x.type("torch.DoubleTensor")
    name = x.type()
    try:
        x.type("torch.float32")
    except ValueError as exc:
        message = str(exc)
    """,
)

_add(
    "census_legacy_range",
    """
    r = torch.range(1, 4)
    stepped = torch.range(1, 4, 0.3)
    tenths = torch.range(0.1, 0.3, 0.1)
    down = torch.range(5, 1, -1.5)
    ints = torch.range(0, 5, 2, dtype=torch.int64)
    leaf = torch.range(0, 3, requires_grad=True)
    messages = []
    for args in [(0, 3, 0), (3, 0)]:
        try:
            torch.range(*args)
        except RuntimeError as exc:
            messages.append(str(exc))
    """,
)

_add(
    "census_adaptive_avg_pool1d",
    """
    x = torch.arange(14.0).reshape(2, 7).requires_grad_()
    y = torch.nn.functional.adaptive_avg_pool1d(x, 3)
    y.sum().backward()
    batch = torch.arange(42.0).reshape(2, 3, 7).requires_grad_()
    pooled = torch.nn.AdaptiveAvgPool1d(4)(batch)
    whole = torch.nn.AdaptiveAvgPool1d((1,))(batch)
    (pooled.sum() + whole.sum()).backward()
    shown = repr(torch.nn.AdaptiveAvgPool1d((3,)))
    messages = []
    for t, size in [(torch.ones(3), 2), (torch.ones(1, 2, 3, 4), 2), (torch.ones(2, 5), (1, 2))]:
        try:
            torch.nn.functional.adaptive_avg_pool1d(t, size)
        except RuntimeError as exc:
            messages.append(str(exc))
    """,
)

_add(
    "census_version_module",
    """
    cuda_version = torch.version.cuda
    hip_version = torch.version.hip
    """,
)
