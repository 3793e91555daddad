"""Conformance scenarios for fidelity nits: printed reprs, dtype rules of pointwise ops on
bool/int inputs, loss argument checks, second derivatives of ``cumprod`` with zeros and
float32 sums in PyTorch's own order of additions."""

from __future__ import annotations

from tests.conformance.scenarios import _add

_add(
    "print_formatter_grid",
    """
    nan, inf = float("nan"), float("inf")
    _cases = [
        torch.tensor([nan, 0.0]), torch.tensor([inf, -inf, nan]), torch.tensor([nan, 1.5, 0.0]),
        torch.tensor([1e-5, 1.0]), torch.tensor([1e8, 1.0]), torch.tensor([1e9]),
        torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, -3.0]),
        torch.tensor([-0.0, 0.0]), torch.tensor([-0.0, 1.0]), torch.tensor(3.0),
        torch.tensor(nan), torch.tensor(-inf), torch.tensor(1e-7), torch.tensor([]),
        torch.zeros(0, 3), torch.zeros(2, 0, dtype=torch.int64), torch.tensor([True, False]),
        torch.tensor(True), torch.tensor([1, -20, 300]), torch.tensor([[1, 2], [3, 4]]),
        torch.tensor([0.5, 1e-5], dtype=torch.float64),
        torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True),
        torch.tensor([1.0, 2.0], requires_grad=True) * 2, torch.arange(2000.0),
        torch.arange(2000), torch.arange(3000.0).reshape(30, 100) / 7, torch.arange(40.0) / 3,
        torch.arange(40.0) * 1e6, (torch.arange(30.0, requires_grad=True) / 3).sin(),
        torch.arange(24.0).reshape(2, 3, 4) - 5.5, torch.tensor([nan, inf, 1e10, 1e-10]),
        torch.tensor([123456.0, 0.001]), torch.tensor([1e-4, 1.0]),
        torch.tensor([[nan, 0.0], [0.0, 1.0]]), torch.tensor([0.0, 0.0]), torch.tensor([-1e-5]),
        torch.tensor([1.0, -2.0], dtype=torch.float16), torch.arange(1100).reshape(11, 100),
        torch.zeros(1, 2, 0), torch.tensor([], dtype=torch.float64),
        torch.tensor([], requires_grad=True), torch.ones(3, 40, requires_grad=True).sum(0),
        torch.tensor([10.0, 100.0, 1000.5]),
    ]
    texts = [repr(c) for c in _cases]
    """,
)

_LOSS_WEIGHTS = """
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
t = torch.tensor([1.0, 0.0, 1.0])
w = torch.tensor([0.5, 2.0, 1.0], requires_grad=True)
"""

_add(
    "loss_bce_logits_weight_requires_grad",
    _LOSS_WEIGHTS + "y = torch.nn.functional.binary_cross_entropy_with_logits(x, t, weight=w)\n",
)
_add(
    "loss_bce_logits_pos_weight_requires_grad",
    _LOSS_WEIGHTS
    + "y = torch.nn.functional.binary_cross_entropy_with_logits(x, t, pos_weight=w)\n",
)
_add(
    "loss_bce_logits_both_weights_require_grad",
    _LOSS_WEIGHTS
    + "y = torch.nn.functional.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=w)\n",
)
_add(
    "loss_bce_logits_weight_requires_grad_no_grad_mode",
    _LOSS_WEIGHTS
    + """
with torch.no_grad():
    y = torch.nn.functional.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=w)
z = torch.nn.functional.binary_cross_entropy_with_logits(x, t, weight=w.detach() + 1)
z.backward()
""",
)
_add(
    "loss_bce_logits_module_weight_requires_grad",
    _LOSS_WEIGHTS + "y = torch.nn.BCEWithLogitsLoss(pos_weight=w)(x.detach(), t)\n",
)
_add(
    "loss_bce_weight_requires_grad",
    _LOSS_WEIGHTS + "y = torch.nn.functional.binary_cross_entropy(x.sigmoid(), t, weight=w)\n",
)
_add(
    "loss_nll_weight_requires_grad",
    """
    logp = torch.tensor([[-0.5, -1.0, -2.0], [-1.5, -0.25, -3.0]], requires_grad=True)
    w = torch.tensor([0.5, 2.0, 1.0], requires_grad=True)
    y = torch.nn.functional.cross_entropy(logp, torch.tensor([0, 2]), weight=w)
    """,
)

# Every op below on bool/int64/float32/float64 inputs: the result's dtype, or the error
# PyTorch's kernel dispatch raises (``"round_vml_cpu" not implemented for 'Bool'``).
_add(
    "dtype_dispatch_grid",
    """
    F = torch.nn.functional
    _unary = [
        "abs", "neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "round",
        "floor", "ceil", "trunc", "sign", "frac", "reciprocal", "rsqrt", "expm1",
        "log1p", "square", "logical_not", "sum", "mean", "prod", "max", "min", "argmax",
        "amax", "std", "var", "isnan", "isfinite", "clone",
    ]
    _dim = ["cumsum", "cumprod", "softmax", "log_softmax", "logsumexp"]
    _binary = [
        "add", "sub", "mul", "div", "remainder", "pow",
        "maximum", "minimum", "atan2", "eq", "lt", "ne", "logical_and", "fmod",
    ]
    _functional = [
        "silu", "leaky_relu", "elu", "softplus", "logsigmoid", "hardtanh", "relu6", "relu",
        "sigmoid", "tanh",
    ]
    _methods = ["round_", "floor_", "abs_", "trunc_", "ceil_", "frac_", "sign_", "relu_", "exp_"]
    _dtypes = ["bool", "int64", "float32", "float64"]


    def _make(dt, second=False):
        if dt == "bool":
            return torch.tensor([True, True, True] if second else [True, False, True])
        return torch.tensor([1, 3, 2] if second else [1, 0, 2]).to(getattr(torch, dt))


    def _outcome(call):
        try:
            return str(call().dtype)
        except Exception as e:
            return f"{type(e).__name__}: {e}"


    outcomes = []
    for _dt in _dtypes:
        for _op in _unary:
            outcomes.append(_outcome(lambda: getattr(torch, _op)(_make(_dt))))
        for _op in _dim:
            outcomes.append(_outcome(lambda: getattr(torch, _op)(_make(_dt), 0)))
        for _op in _functional:
            outcomes.append(_outcome(lambda: getattr(F, _op)(_make(_dt))))
        for _op in _methods:
            outcomes.append(_outcome(lambda: getattr(_make(_dt), _op)()))
        outcomes.append(_outcome(lambda: torch.round(_make(_dt), decimals=1)))
        outcomes.append(_outcome(lambda: _make(_dt) - True))
        outcomes.append(_outcome(lambda: True - _make(_dt)))
        outcomes.append(_outcome(lambda: _make(_dt) ** True))
        outcomes.append(_outcome(lambda: _make(_dt) % True))
        for _dt2 in _dtypes:
            for _op in _binary:
                _b = _make(_dt2, True)
                outcomes.append(_outcome(lambda: getattr(torch, _op)(_make(_dt), _b)))
    """,
)

# ``cumprod`` with zeros under create_graph: PyTorch's differentiable O(n²) backward.
_add(
    "cumprod_zeros_double_backward",
    """
    x = torch.tensor(
        [[2.0, 0.0, 3.0, 0.5, 0.0, 4.0], [1.5, -2.0, 0.0, 1.0, 3.0, 0.5]],
        dtype=torch.float64,
        requires_grad=True,
    )
    y = x.cumprod(1)
    v = torch.tensor([[1.0, 2.0, -1.0, 0.5, 3.0, 1.0], [0.5, 1.0, 2.0, -1.0, 1.0, 2.0]])
    g, = torch.autograd.grad(y, x, v.double(), create_graph=True)
    # (the version of a gradient reached through ``g * g`` differs: engine_run's buffers)
    _h, = torch.autograd.grad((g * g).sum(), x)
    h = _h.tolist()
    x0 = torch.tensor([3.0, 0.0, 2.0], requires_grad=True)
    g0, = torch.autograd.grad(x0.cumprod(0).sum(), x0, create_graph=True)
    h0, = torch.autograd.grad(g0.sum(), x0)
    """,
)

# Float sums in PyTorch's order: the printed losses of the polynomial tutorial.
_add(
    "sum_float32_polynomial_loss",
    """
    x = torch.linspace(-3.141592653589793, 3.141592653589793, 2000)
    y = torch.sin(x)
    a = torch.tensor(0.1, requires_grad=True)
    b = torch.tensor(-0.4, requires_grad=True)
    c = torch.tensor(0.3, requires_grad=True)
    d = torch.tensor(-0.05, requires_grad=True)
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    loss.backward()
    losses = [loss.item(), (y_pred - y).pow(2).mean().item()]
    printed = [repr(loss), f"{loss.item()}", repr(x.sum()), repr(y.abs().mean())]
    sums = [x.reshape(40, 50).sum(0).tolist(), x.reshape(40, 50).sum(1).tolist()]
    """,
)

_add(
    "frozen_after_forward_gets_no_grad",
    """
    w = torch.ones(2, requires_grad=True)
    v = torch.ones(2, requires_grad=True)
    seen = []
    v.register_post_accumulate_grad_hook(lambda t: seen.append(1))
    y = (w * 3 + v * 2).sum()
    w.requires_grad_(False)
    v.requires_grad_(False)
    y.backward()
    wg, vg, fired = w.grad, v.grad, len(seen)
    """,
)

_add(
    "float32_transcendentals_round_as_pytorch",
    """
    x = torch.linspace(-3.0, 3.0, 257)
    p = torch.linspace(0.01, 9.0, 257)
    vals = [x.exp(), x.tanh(), x.sin(), x.cos(), x.atan(), p.log(), p.log2(), p.log10(),
            p.log1p(), x.expm1(), x.sinh(), x.cosh(), (x / 4).tan()]
    """,
)
