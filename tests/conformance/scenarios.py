"""The conformance corpus: named PyTorch snippets covering the engine's contract.

Each scenario is a snippet written for PyTorch (``torch`` and ``F`` are bound by
the oracle).  ``tools/gen_golden.py`` runs them under real PyTorch and stores the
facts; ``tests/test_conformance.py`` replays them against ``engine``.  Names are
grouped by prefix (``create_``, ``dtype_``, ``op_``, ``inplace_`` ...) so a
failing test says which part of the contract broke.

Rules for authors: keep snippets deterministic (random tensors only where the
values are ignored via ``ignore_values``), CPU only, and trigger each PyTorch
warn-once warning in at most one scenario (PyTorch emits those once per
process; the golden files are generated in a fresh process per scenario).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass


@dataclass(frozen=True)
class Scenario:
    """One snippet plus the facts it asks the oracle to leave out."""

    name: str
    source: str
    #: tensors whose values are random/uninitialised (``"*"`` for all)
    ignore_values: tuple[str, ...] = ()
    #: tensors whose grad_fn is compared only as present/absent
    ignore_graph: tuple[str, ...] = ()


SCENARIOS: dict[str, Scenario] = {}


def _add(
    name: str,
    source: str,
    *,
    ignore_values: tuple[str, ...] = (),
    ignore_graph: tuple[str, ...] = (),
) -> None:
    if name in SCENARIOS:
        raise ValueError(f"duplicate scenario {name}")
    SCENARIOS[name] = Scenario(
        name, textwrap.dedent(source).strip() + "\n", ignore_values, ignore_graph
    )


# ===========================================================================
# seeds: every code example of /work/shared/seeds (CPU analogues for CUDA)

_add(
    "seed000_is_leaf_cpu",
    """
    a = torch.rand(10, requires_grad=True)
    # the seed's `.cuda()` cast, on CPU: a dtype cast is also an operation
    b = torch.rand(10, requires_grad=True).double()
    c = torch.rand(10, requires_grad=True) + 2
    d = torch.rand(10).double()
    e = torch.rand(10).double().requires_grad_()
    f = torch.rand(10, requires_grad=True, device="cpu")
    leaf = [a.is_leaf, b.is_leaf, c.is_leaf, d.is_leaf, e.is_leaf, f.is_leaf]
    """,
    ignore_values=("*",),
)

_add(
    "seed001_leaf_add_mul",
    """
    import torch
    w = torch.tensor([1.], requires_grad=True)
    x = torch.tensor([2.], requires_grad=True)
    print(w)
    a = torch.add(w, x)
    b = torch.add(w, 1)
    y = torch.mul(a, b)
    y.backward()
    print(a.requires_grad, b.requires_grad, y.requires_grad)
    print(w.grad)
    """,
)

_add(
    "seed002_tensor_vs_Tensor",
    """
    import torch
    a = [1, 2, 3]
    b = torch.tensor(a, requires_grad=True, dtype=torch.float64)
    u1 = torch.Tensor(3)
    u2 = torch.Tensor(3, 1)
    c = torch.Tensor([3, 1])
    """,
    ignore_values=("u1", "u2"),
)

_add(
    "seed002_data_detach_clone",
    """
    import torch

    a = torch.tensor(1, requires_grad=True, dtype=torch.float32)
    b = a * 2

    b_data = b.data
    b_detach = b.detach()
    b_clone = b.clone()
    print(b, b_data, b_detach, b_clone)
    b_detach.zero_()
    print(b, b_data, b_detach, b_clone)
    """,
)

_add(
    "seed002_detach_zero_then_backward",
    """
    import torch

    a = torch.tensor(1, requires_grad=True, dtype=torch.float32)
    b = a * 2

    b_data = b.data
    b_detach = b.detach()
    b_clone = b.clone()

    b_detach.zero_()
    b.backward(retain_graph=True)
    print(a.grad)
    g1 = a.grad.clone()

    b.zero_()
    a.grad.zero_()
    b.backward()
    print(a.grad)
    """,
)

_add(
    "seed002_clone_backward",
    """
    import torch

    a = torch.tensor(1, requires_grad=True, dtype=torch.float32)
    b = a * 2

    b_clone = b.clone()

    b.backward(retain_graph=True)
    print(a.grad)
    g1 = a.grad.clone()
    b_clone.backward()
    print(a.grad)
    """,
)

_add(
    "seed003_linear_addmm",
    """
    import torch
    import torch.nn.functional as F
    x = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
    weight = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True)
    bias = torch.tensor([0.5, -0.5], requires_grad=True)
    y = F.linear(x, weight, bias)
    name = y.grad_fn.name()
    y.sum().backward()
    """,
)

_SEED004_FUNC = """
    import torch
    from torch.autograd import Function

    class Func(Function):
        @staticmethod
        def forward(ctx, x: torch.Tensor, y: torch.Tensor, z: int):
            w = x * y * z
            out = x * y + y * z + w
            ctx.save_for_backward(x, y, out)
            ctx.z = z  # z is not a tensor
            ctx.w = w  # w is neither input nor output
            return out

        @staticmethod
        def backward(ctx, grad_out):
            x, y, out = ctx.saved_tensors
            z = ctx.z
            gx = grad_out * (y + y * z)
            gy = grad_out * (x + z + x * z)
            gz = None
            return gx, gy, gz

    a = torch.tensor(1., requires_grad=True, dtype=torch.double)
    b = torch.tensor(2., requires_grad=True, dtype=torch.double)
    c = 4
    d = Func.apply(a, b, c)
    """

_add("seed004_save_for_backward_forward", _SEED004_FUNC)
_add(
    "seed004_save_for_backward_backward",
    _SEED004_FUNC + "d.backward()\n    name = d.grad_fn.name()\n",
)


# ===========================================================================
# creation

_add(
    "create_tensor_basic",
    """
    a = torch.tensor([1., 2., 3.])
    b = torch.tensor([[1, 2], [3, 4]])
    c = torch.tensor(3.5)
    d = torch.tensor(True)
    e = torch.tensor([1, 2], dtype=torch.float64)
    f = torch.tensor([1.5, -2.5], dtype=torch.int64)
    g = torch.tensor([[1., 2.]], requires_grad=True)
    h = torch.tensor([True, False])
    i = torch.tensor([1, 2.5])
    j = torch.tensor([])
    k = torch.tensor(7)
    m = torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float16)
    n = torch.tensor((1, 2, 3), dtype=torch.int32)
    """,
)

_add(
    "create_tensor_from_tensor_warns",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = torch.tensor(a)
    """,
)

_add(
    "create_tensor_int_requires_grad_error",
    """
    a = torch.tensor([1, 2], requires_grad=True)
    """,
)

_add(
    "create_zeros_ones_full",
    """
    a = torch.zeros(2, 3)
    b = torch.zeros((2, 3))
    c = torch.ones(4, dtype=torch.int64)
    d = torch.zeros([2])
    e = torch.ones(2, requires_grad=True)
    f = torch.full((2, 2), 7.)
    g = torch.full((2,), 3)
    h = torch.full((2,), True)
    i = torch.zeros(2, 2, dtype=torch.double)
    j = torch.ones(())
    k = torch.full([3], 1.5, requires_grad=True)
    m = torch.zeros(0, 3)
    """,
)

_add(
    "create_random_and_empty",
    """
    e = torch.empty(2, 3)
    r = torch.rand(3, requires_grad=True)
    n = torch.randn(2, 2, dtype=torch.float64)
    rl = torch.rand_like(n)
    nl = torch.randn_like(r)
    e2 = torch.empty((4,), dtype=torch.int64)
    r2 = torch.rand((2, 2))
    """,
    ignore_values=("*",),
)

_add(
    "create_manual_seed_reproducible",
    """
    torch.manual_seed(0)
    a = torch.rand(3)
    b = torch.randn(2)
    torch.manual_seed(0)
    c = torch.rand(3)
    d = torch.randn(2)
    same_rand = a.tolist() == c.tolist()
    same_randn = b.tolist() == d.tolist()
    """,
    ignore_values=("a", "b", "c", "d"),
)

_add(
    "create_arange",
    """
    a = torch.arange(5)
    b = torch.arange(1, 4)
    c = torch.arange(0, 1, 0.25)
    d = torch.arange(5.)
    e = torch.arange(3, dtype=torch.float32)
    f = torch.arange(10, 0, -3)
    g = torch.arange(0., 2., 0.5, requires_grad=True)
    """,
)

_add(
    "create_like",
    """
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    i = torch.tensor([1, 2, 3])
    a = torch.zeros_like(x)
    b = torch.ones_like(i)
    c = torch.zeros_like(x, dtype=torch.float64)
    d = torch.ones_like(x, requires_grad=True)
    e = torch.rand_like(x)
    f = torch.randn_like(x, dtype=torch.float64)
    """,
    ignore_values=("e", "f"),
)

_add(
    "create_legacy_Tensor",
    """
    u1 = torch.Tensor(3)
    u2 = torch.Tensor(3, 1)
    u3 = torch.Tensor(2, 3, 4)
    a = torch.Tensor([3, 1])
    b = torch.Tensor([[1, 2], [3, 4]])
    c = torch.Tensor([1.5, 2.5])
    d = torch.Tensor()
    e = torch.Tensor([True, False])
    """,
    ignore_values=("u1", "u2", "u3"),
)

_add(
    "create_legacy_typed",
    """
    f = torch.FloatTensor([1, 2])
    d = torch.DoubleTensor([1, 2])
    l = torch.LongTensor([1, 2])
    i = torch.IntTensor([1, 2])
    s = torch.ShortTensor([1, 2])
    lt = torch.LongTensor([1.7, -2.7])
    f2 = torch.FloatTensor([[1, 2], [3, 4]])
    u = torch.FloatTensor(2, 3)
    ul = torch.LongTensor(4)
    """,
    ignore_values=("u", "ul"),
)

_add(
    "create_legacy_Tensor_requires_grad_",
    """
    w = torch.Tensor([1., 2.]).requires_grad_()
    y = (w * w).sum()
    y.backward()
    """,
)

_add(
    "create_dtypes",
    """
    aliases = [torch.double == torch.float64, torch.long == torch.int64,
               torch.float == torch.float32]
    names = [str(torch.float32), str(torch.float64), str(torch.float16),
             str(torch.int64), str(torch.int32), str(torch.bool)]
    h = torch.zeros(2, dtype=torch.float16)
    i32 = torch.ones(2, dtype=torch.int32)
    bl = torch.zeros(2, dtype=torch.bool)
    dd = torch.ones(2, dtype=torch.double)
    ll = torch.ones(2, dtype=torch.long)
    is_fp = [h.dtype.is_floating_point, i32.dtype.is_floating_point]
    """,
)

_add(
    "create_device_objects",
    """
    d = torch.device("cpu")
    x = torch.zeros(2, device="cpu")
    y = torch.ones(2, device=d)
    z = torch.tensor([1., 2.], device=torch.device("cpu"), requires_grad=True)
    dev = x.device
    same = x.device == d
    cuda = torch.device("cuda")
    cuda0 = torch.device("cuda:0")
    kinds = [d.type, cuda.type, cuda0.type, str(cuda0), cuda0.index]
    is_cuda = x.is_cuda
    """,
)

_add(
    "create_size_dim_numel",
    """
    x = torch.zeros(2, 3, 4)
    ndim = x.ndim
    dim = x.dim()
    size = x.size()
    size1 = x.size(1)
    size_neg = x.size(-1)
    numel = x.numel()
    shape = x.shape
    shape0 = x.shape[0]
    same = x.size() == x.shape
    as_tuple = tuple(x.shape)
    s = torch.tensor(5.)
    s_info = [s.dim(), s.numel(), list(s.shape)]
    """,
)


# ===========================================================================
# dtype promotion

_add(
    "dtype_int_plus_float_tensor",
    """
    i = torch.tensor([1, 2, 3])
    f = torch.tensor([0.5, 0.5, 0.5])
    a = i + f
    b = f + i
    c = i * f
    """,
)

_add(
    "dtype_tensor_with_python_scalars",
    """
    i = torch.tensor([1, 2, 3])
    f = torch.tensor([1., 2., 3.])
    h = torch.tensor([1., 2.], dtype=torch.float16)
    a = i + 1.5
    b = i + 2
    c = f + 2
    d = f * 2.5
    e = h + 1.5
    g = i * True
    k = 2.5 - i
    """,
)

_add(
    "dtype_zero_dim_vs_dim",
    """
    i32 = torch.tensor([1, 2], dtype=torch.int32)
    f32 = torch.tensor([1., 2.])
    a = i32 + torch.tensor(5)
    b = f32 + torch.tensor(1., dtype=torch.float64)
    c = i32 + torch.tensor(1.5, dtype=torch.float64)
    d = torch.tensor(2) + torch.tensor(1.5, dtype=torch.float64)
    e = torch.tensor(1.5) + torch.tensor([1, 2])
    f = torch.tensor([1., 2.], dtype=torch.float16) + torch.tensor(1., dtype=torch.float64)
    """,
)

_add(
    "dtype_float64_vs_float32",
    """
    a = torch.tensor([1., 2.], dtype=torch.float64)
    b = torch.tensor([3., 4.])
    c = a + b
    d = b * a
    e = torch.tensor([1., 2.], dtype=torch.float16) + b
    f = a.sum() + b
    """,
)

_add(
    "dtype_bool_arithmetic",
    """
    t = torch.tensor([True, False, True])
    a = t + t
    b = t * t
    c = t + 1
    d = t * 2.5
    e = t + torch.tensor([1, 2, 3])
    f = t.sum()
    g = t & t
    """,
)

_add(
    "dtype_int_division",
    """
    i = torch.tensor([1, 2, 3])
    a = i / 2
    b = i / torch.tensor([2, 2, 2])
    c = 6 / i
    d = torch.div(i, 2)
    e = i.div(i)
    f = torch.tensor([5], dtype=torch.int32) / torch.tensor([2], dtype=torch.int32)
    """,
)

_add(
    "dtype_int_pow_and_unary",
    """
    i = torch.tensor([1, 2, 3])
    a = i ** 2
    b = i ** 0.5
    c = 2 ** i
    d = torch.sqrt(i)
    e = torch.exp(i)
    f = i.abs()
    g = -i
    h = torch.sigmoid(i)
    k = i.relu()
    m = i.sin()
    """,
)

_add(
    "dtype_reductions",
    """
    i = torch.tensor([1, 2, 3])
    i32 = torch.tensor([1, 2], dtype=torch.int32)
    h = torch.tensor([1., 2.], dtype=torch.float16)
    a = i.sum()
    b = i32.sum()
    c = h.sum()
    d = i.max()
    e = torch.tensor([True, True]).sum()
    f = h.mean()
    g = i.sum(0)
    """,
)

_add(
    "dtype_int_mean_error",
    """
    i = torch.tensor([1, 2, 3])
    m = i.mean()
    """,
)

_add(
    "dtype_bool_neg_error",
    """
    t = torch.tensor([True, False])
    n = -t
    """,
)

_add(
    "dtype_comparisons",
    """
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = torch.tensor([3., 2., 1.])
    gt = a > 1
    ge = a >= 2
    lt = a < b
    le = a <= b
    eq = a == b
    ne = a != b
    mixed = torch.tensor([1, 2, 3]) == a
    """,
)

_add(
    "dtype_where_mixed",
    """
    c = torch.tensor([True, False, True])
    i = torch.tensor([1, 2, 3])
    f = torch.tensor([0.5, 0.5, 0.5])
    a = torch.where(c, i, f)
    b = torch.where(c, f, 0.)
    d = torch.where(c, i, 0)
    e = torch.where(c, 1., 0.)
    """,
)

_add(
    "dtype_mixed_with_grad",
    """
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    i = torch.tensor([1, 2, 3])
    y = a * i
    z = i + a
    (y + z).sum().backward()
    """,
)

_add(
    "dtype_float64_grad",
    """
    a = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([3., 4.], requires_grad=True)
    c = a * b
    c.sum().backward()
    """,
)


# ===========================================================================
# element-wise operations: grad_fn names, next_functions, gradients

_add(
    "op_add_sub",
    """
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = torch.tensor([4., 5., 6.], requires_grad=True)
    c = torch.tensor([1., 1., 1.])
    s1 = a + b
    s2 = a + 2
    s3 = 2 + a
    s4 = a + c
    s5 = torch.add(a, b, alpha=2)
    s6 = a.add(b)
    d1 = a - b
    d2 = a - 2
    d3 = 2 - a
    d4 = c - a
    d5 = torch.sub(a, b, alpha=3)
    d6 = a.sub(2)
    total = s1 + s2 + s3 + s4 + s5 + s6 + d1 + d2 + d3 + d4 + d5 + d6
    total.sum().backward()
    """,
)

_add(
    "op_mul_div",
    """
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = torch.tensor([4., 5., 6.], requires_grad=True)
    m1 = a * b
    m2 = a * 3
    m3 = 3 * a
    m4 = torch.mul(a, b)
    m5 = a.mul(2.)
    q1 = a / b
    q2 = a / 2
    q3 = 2 / a
    q4 = torch.div(a, b)
    q5 = b.div(4)
    total = m1 + m2 + m3 + m4 + m5 + q1 + q2 + q3 + q4 + q5
    total.sum().backward()
    """,
)

_add(
    "op_neg",
    """
    a = torch.tensor([1., -2., 3.], requires_grad=True)
    b = -a
    c = torch.neg(a)
    d = a.neg()
    (b + c + d).sum().backward()
    """,
)

_add(
    "op_pow_variants",
    """
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = torch.tensor([2., 1., 0.5], requires_grad=True)
    p0 = a ** 2
    p0b = torch.pow(a, 3)
    p0c = a.pow(0.5)
    p1 = a ** b
    p1b = torch.pow(a, b)
    p2 = 2 ** a
    p2b = torch.pow(2, b)
    total = p0 + p0b + p0c + p1 + p1b + p2 + p2b
    total.sum().backward()
    """,
)

_add(
    "op_pow_zero_and_one",
    """
    a = torch.tensor([0., 2.], requires_grad=True)
    p = a ** 0
    q = a ** 1
    r = a ** 2
    (p + q + r).sum().backward()
    """,
)

_add(
    "op_unary_math",
    """
    a = torch.tensor([0.5, 1., 2.], requires_grad=True)
    e = torch.exp(a)
    l = torch.log(a)
    s = torch.sqrt(a)
    sn = torch.sin(a)
    cs = torch.cos(a)
    th = torch.tanh(a)
    sg = torch.sigmoid(a)
    m = [a.exp(), a.log(), a.sqrt(), a.sin(), a.cos(), a.tanh(), a.sigmoid()]
    total = e + l + s + sn + cs + th + sg
    total.sum().backward()
    """,
)

_add(
    "op_abs_relu_at_zero",
    """
    a = torch.tensor([-2., 0., 3.], requires_grad=True)
    b = torch.abs(a)
    c = torch.relu(a)
    d = a.abs()
    e = a.relu()
    (b + c + d + e).sum().backward()
    """,
)

_add(
    "op_log_sqrt_edge_values",
    """
    a = torch.tensor([0., 1., -1.], requires_grad=True)
    l = torch.log(a)
    s = torch.sqrt(a)
    (l + s).sum().backward()
    """,
)

_add(
    "op_clamp_variants",
    """
    a = torch.tensor([-2., 0., 0.5, 1., 3.], requires_grad=True)
    c1 = torch.clamp(a, 0, 1)
    c2 = a.clamp(min=0)
    c3 = a.clamp(max=1)
    c4 = torch.clamp(a, min=-1., max=2.)
    lo = torch.tensor([0., 0., 0., 0., 0.], requires_grad=True)
    c5 = torch.clamp(a, min=lo)
    (c1 + c2 + c3 + c4 + c5).sum().backward()
    """,
)

_add(
    "op_clamp_no_bounds_error",
    """
    a = torch.tensor([1., 2.])
    b = torch.clamp(a)
    """,
)

_add(
    "op_maximum_minimum",
    """
    a = torch.tensor([1., 5., 3.], requires_grad=True)
    b = torch.tensor([4., 2., 3.], requires_grad=True)
    mx = torch.maximum(a, b)
    mn = torch.minimum(a, b)
    mx2 = a.maximum(b)
    bmx = torch.max(a, b)
    bmn = torch.min(a, b)
    (mx + mn + mx2 + bmx + bmn).sum().backward()
    """,
)

_add(
    "op_where",
    """
    a = torch.tensor([1., -2., 3.], requires_grad=True)
    b = torch.tensor([10., 20., 30.], requires_grad=True)
    cond = a > 0
    w1 = torch.where(cond, a, b)
    w2 = torch.where(cond, a, 0.)
    w3 = torch.where(cond, 1., b)
    w4 = torch.where(a > 0, a * 2, b)
    w5 = a.where(cond, b)
    (w1 + w2 + w3 + w4 + w5).sum().backward()
    """,
)

_add(
    "op_where_nan_gradient_trap",
    """
    x = torch.tensor([-1., 4.], requires_grad=True)
    y = torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))
    y.sum().backward()
    """,
)


# ===========================================================================
# reductions

_add(
    "op_sum_variants",
    """
    a = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    s0 = a.sum()
    s1 = a.sum(0)
    s2 = a.sum(dim=1)
    s3 = a.sum(1, keepdim=True)
    s4 = torch.sum(a, (0, 1))
    s5 = a.sum(-1)
    s6 = torch.sum(a)
    s7 = a.sum(dtype=torch.float64)
    (s0 + s1.sum() + s2.sum() + s3.sum() + s4 + s5.sum() + s6).backward()
    """,
)

_add(
    "op_mean_variants",
    """
    a = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    m0 = a.mean()
    m1 = a.mean(0)
    m2 = a.mean(dim=1, keepdim=True)
    m3 = torch.mean(a, (0, 1))
    m4 = torch.mean(a, -1)
    (m0 + m1.sum() + m2.sum() + m3 + m4.sum()).backward()
    """,
)

_add(
    "op_max_min_full",
    """
    a = torch.tensor([[1., 7., 3.], [7., 2., 0.]], requires_grad=True)
    mx = a.max()
    mn = torch.min(a)
    (mx + mn).backward()
    """,
)

_add(
    "op_max_min_dim",
    """
    a = torch.tensor([[1., 7., 3.], [4., 2., 9.]], requires_grad=True)
    mx = a.max(dim=1)
    mxv, mxi = torch.max(a, 0)
    mn = torch.min(a, 1, keepdim=True)
    vals = mx.values
    idx = mx.indices
    (mx[0].sum() + mxv.sum() + mn.values.sum()).backward()
    """,
)

_add(
    "op_max_dim_ties",
    """
    a = torch.tensor([[2., 2., 1.]], requires_grad=True)
    v, i = a.max(dim=1)
    v.sum().backward()
    """,
)


# ===========================================================================
# matmul family

for _left, _right in [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 2)),
    ((2, 3), (3, 4)),
    ((2, 2, 3), (3,)),
    ((3,), (2, 3, 4)),
    ((2, 2, 3), (3, 4)),
    ((2, 3), (2, 3, 4)),
    ((2, 2, 3), (2, 3, 4)),
    ((1, 2, 3), (4, 3, 2)),
]:
    _n_left = 1
    for _d in _left:
        _n_left *= _d
    _n_right = 1
    for _d in _right:
        _n_right *= _d
    _add(
        f"op_matmul_{len(_left)}d_{len(_right)}d"
        + ("_broadcast" if _left[0] == 1 and len(_left) == 3 else ""),
        f"""
        a = (torch.arange({_n_left}.) / 4).reshape({_left}).requires_grad_()
        b = (torch.arange({_n_right}.) / 5 - 1).reshape({_right}).requires_grad_()
        c = a @ b
        d = torch.matmul(a, b)
        (c.sum() + d.sum()).backward()
        """,
    )

_add(
    "op_matmul_shape_error",
    """
    a = torch.ones(2, 3)
    b = torch.ones(2, 3)
    c = a @ b
    """,
)

_add(
    "op_matmul_1d_mismatch_error",
    """
    a = torch.ones(3)
    b = torch.ones(4)
    c = a @ b
    """,
)

_add(
    "op_matmul_scalar_error",
    """
    a = torch.tensor(2.)
    b = torch.ones(3)
    c = torch.matmul(a, b)
    """,
)

_add(
    "op_matmul_dtype_error",
    """
    a = torch.ones(2, 3)
    b = torch.ones(3, 2, dtype=torch.int64)
    c = a @ b
    """,
)

_add(
    "op_mm_mv_bmm",
    """
    m = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
    n = torch.tensor([[1., 0., -1.], [2., 1., 0.]], requires_grad=True)
    v = torch.tensor([0.5, -1.], requires_grad=True)
    p = torch.arange(12.).reshape(2, 2, 3).requires_grad_()
    q = torch.arange(12.).reshape(2, 3, 2).requires_grad_()
    mm = torch.mm(m, n)
    mm2 = m.mm(n)
    mv = torch.mv(m, v)
    mv2 = m.mv(v)
    bmm = torch.bmm(p, q)
    bmm2 = p.bmm(q)
    (mm.sum() + mm2.sum() + mv.sum() + mv2.sum() + bmm.sum() + bmm2.sum()).backward()
    """,
)

_add(
    "op_mm_shape_error",
    """
    a = torch.ones(2, 3)
    b = torch.ones(2, 3)
    c = torch.mm(a, b)
    """,
)

_add(
    "op_addmm",
    """
    bias = torch.tensor([1., 2.], requires_grad=True)
    m1 = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    m2 = torch.tensor([[1., 0.], [0., 1.], [1., 1.]], requires_grad=True)
    y = torch.addmm(bias, m1, m2)
    z = torch.addmm(bias, m1, m2, beta=0.5, alpha=2.)
    w = bias.addmm(m1, m2)
    (y.sum() + z.sum() + w.sum()).backward()
    """,
)


# ===========================================================================
# shape operations

_add(
    "shape_t_transpose_permute",
    """
    a = torch.arange(6.).reshape(2, 3).requires_grad_()
    b = torch.arange(24.).reshape(2, 3, 4).requires_grad_()
    t1 = a.t()
    t2 = torch.t(a)
    tr = b.transpose(0, 2)
    tr2 = torch.transpose(b, 1, -1)
    pm = b.permute(2, 0, 1)
    pm2 = b.permute((1, 2, 0))
    tt = a.T
    v = torch.tensor([1., 2.], requires_grad=True)
    vt = v.t()
    contig = [t1.is_contiguous(), pm.is_contiguous(), a.is_contiguous()]
    (t1.sum() + t2.sum() + tr.sum() + tr2.sum() + pm.sum() + pm2.sum() + tt.sum()
     + vt.sum()).backward()
    """,
)

_add(
    "shape_T_on_3d_warns",
    """
    b = torch.arange(24.).reshape(2, 3, 4).requires_grad_()
    bt = b.T
    """,
)

_add(
    "shape_reshape_view",
    """
    a = torch.arange(6.).requires_grad_()
    r1 = a.reshape(2, 3)
    r2 = a.reshape((3, -1))
    r3 = torch.reshape(a, (6, 1))
    v1 = a.view(2, 3)
    v2 = a.view(-1, 2)
    v3 = a.view((1, 6))
    same = a.reshape(6)
    (r1.sum() + r2.sum() + r3.sum() + v1.sum() + v2.sum() + v3.sum()).backward()
    """,
)

_add(
    "shape_reshape_on_transposed",
    """
    a = torch.arange(6.).reshape(2, 3).requires_grad_()
    t = a.t()
    r = t.reshape(6)
    f = t.flatten()
    c = t.contiguous()
    v = c.view(6)
    cc = a.contiguous()
    is_same = cc is a
    (r.sum() + f.sum() + v.sum()).backward()
    """,
)

_add(
    "shape_view_on_transposed_error",
    """
    a = torch.arange(6.).reshape(2, 3).requires_grad_()
    t = a.t()
    v = t.view(6)
    """,
)

_add(
    "shape_view_invalid_size_error",
    """
    a = torch.arange(6.)
    v = a.view(4)
    """,
)

_add(
    "shape_reshape_invalid_size_error",
    """
    a = torch.arange(6.)
    v = a.reshape(5, -1)
    """,
)

_add(
    "shape_flatten",
    """
    a = torch.arange(24.).reshape(2, 3, 4).requires_grad_()
    f1 = a.flatten()
    f2 = torch.flatten(a, 1)
    f3 = a.flatten(0, 1)
    f4 = a.flatten(start_dim=1, end_dim=-1)
    v = torch.tensor([1., 2.], requires_grad=True)
    fv = v.flatten()
    fv_is_v = fv is v
    s = torch.tensor(3., requires_grad=True)
    fs = s.flatten()
    (f1.sum() + f2.sum() + f3.sum() + f4.sum() + fv.sum() + fs.sum()).backward()
    """,
)

_add(
    "shape_squeeze_unsqueeze",
    """
    a = torch.arange(6.).reshape(1, 2, 1, 3).requires_grad_()
    s0 = a.squeeze()
    s1 = a.squeeze(0)
    s2 = torch.squeeze(a, 2)
    s3 = a.squeeze(1)
    s4 = a.squeeze((0, 2))
    b = torch.tensor([1., 2.], requires_grad=True)
    u0 = b.unsqueeze(0)
    u1 = torch.unsqueeze(b, 1)
    u2 = b.unsqueeze(-1)
    (s0.sum() + s1.sum() + s2.sum() + s3.sum() + s4.sum() + u0.sum() + u1.sum()
     + u2.sum()).backward()
    """,
)

_add(
    "shape_expand",
    """
    a = torch.tensor([[1.], [2.], [3.]], requires_grad=True)
    e1 = a.expand(3, 4)
    e2 = a.expand(2, 3, 4)
    e3 = a.expand(-1, 2)
    b = torch.tensor([1., 2.], requires_grad=True)
    e4 = b.expand(3, 2)
    contiguous = e1.is_contiguous()
    (e1.sum() + e2.sum() + e3.sum() + e4.sum()).backward()
    """,
)

_add(
    "shape_expand_error",
    """
    a = torch.tensor([1., 2., 3.])
    e = a.expand(2, 4)
    """,
)

_add(
    "shape_cat_stack",
    """
    a = torch.tensor([[1., 2.]], requires_grad=True)
    b = torch.tensor([[3., 4.], [5., 6.]], requires_grad=True)
    c = torch.tensor([[7., 8.]])
    k1 = torch.cat([a, b])
    k2 = torch.cat((a, c), dim=1)
    k3 = torch.cat([a, b, c], 0)
    s1 = torch.stack([a, c])
    s2 = torch.stack((a, c), dim=1)
    s3 = torch.stack([a[0], c[0]], -1)
    w = torch.tensor([1., 2., 3., 4., 5., 6., 7., 8.])
    (k1.sum() + (k2 * torch.tensor([1., 2., 3., 4.])).sum() + k3.sum() + s1.sum()
     + s2.sum() + s3.sum()).backward()
    """,
)

_add(
    "shape_cat_size_error",
    """
    a = torch.ones(2, 3)
    b = torch.ones(2, 4)
    c = torch.cat([a, b])
    """,
)

_add(
    "shape_stack_size_error",
    """
    a = torch.ones(2)
    b = torch.ones(3)
    c = torch.stack([a, b])
    """,
)

_add(
    "shape_cat_mixed_dtype",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = torch.tensor([3, 4])
    c = torch.cat([a, b])
    c.sum().backward()
    """,
)


# ===========================================================================
# indexing

_add(
    "index_int_and_slice",
    """
    a = torch.arange(12.).reshape(3, 4).requires_grad_()
    i0 = a[0]
    i1 = a[-1]
    i2 = a[1, 2]
    s0 = a[1:]
    s1 = a[:, 1:3]
    s2 = a[::2]
    s3 = a[:, ::3]
    s4 = a[:]
    c0 = a[0, 1:]
    c1 = a[1:, 0]
    (i0.sum() + i1.sum() + i2 + s0.sum() + s1.sum() + s2.sum() + s3.sum() + s4.sum()
     + c0.sum() + c1.sum()).backward()
    """,
)

_add(
    "index_none_ellipsis",
    """
    a = torch.arange(24.).reshape(2, 3, 4).requires_grad_()
    n0 = a[None]
    n1 = a[:, None]
    e0 = a[...]
    e1 = a[..., 0]
    e2 = a[0, ..., 1:]
    e3 = a[..., None]
    m = a[None, 1, ..., None, 2]
    (n0.sum() + n1.sum() + e0.sum() + e1.sum() + e2.sum() + e3.sum() + m.sum()
     ).backward()
    """,
)

_add(
    "index_bool_mask",
    """
    a = torch.tensor([[1., -2., 3.], [-4., 5., -6.]], requires_grad=True)
    mask = a > 0
    m0 = a[mask]
    m1 = a[torch.tensor([True, False])]
    m2 = a[:, torch.tensor([True, False, True])]
    (m0.sum() * 2 + m1.sum() + m2.sum()).backward()
    """,
)

_add(
    "index_int_tensor_and_list",
    """
    a = torch.arange(12.).reshape(3, 4).requires_grad_()
    idx = torch.tensor([0, 2, 0])
    t0 = a[idx]
    t1 = a[:, idx]
    t2 = a[[0, 1], [1, 3]]
    t3 = a[torch.tensor(1)]
    t4 = a[torch.tensor([[0, 1], [2, 2]])]
    t5 = a[idx, 1:]
    (t0.sum() + t1.sum() + t2.sum() + t3.sum() + t4.sum() + t5.sum()).backward()
    """,
)

_add(
    "index_out_of_range_error",
    """
    a = torch.tensor([1., 2., 3.])
    b = a[5]
    """,
)

_add(
    "index_too_many_indices_error",
    """
    a = torch.tensor([1., 2., 3.])
    b = a[0, 1]
    """,
)

_add(
    "index_negative_step_error",
    """
    a = torch.tensor([1., 2., 3.])
    b = a[::-1]
    """,
)

_add(
    "index_on_zero_dim_error",
    """
    a = torch.tensor(3.)
    b = a[0]
    """,
)

_add(
    "index_views_share_storage",
    """
    a = torch.arange(6.).reshape(2, 3)
    row = a[0]
    col = a[:, 1]
    row.mul_(10)
    versions = [a._version, row._version, col._version]
    """,
)


# ===========================================================================
# torch.nn.functional

_add(
    "nn_linear_variants",
    """
    w = torch.tensor([[1., 2., 3.], [0., -1., 1.]], requires_grad=True)
    b = torch.tensor([0.5, -0.5], requires_grad=True)
    x1 = torch.tensor([1., 2., 3.], requires_grad=True)
    x2 = torch.tensor([[1., 2., 3.], [3., 2., 1.]], requires_grad=True)
    x3 = torch.arange(12.).reshape(2, 2, 3).requires_grad_()
    y1b = F.linear(x1, w, b)
    y1 = F.linear(x1, w)
    y2b = F.linear(x2, w, b)
    y2 = F.linear(x2, w)
    y3b = F.linear(x3, w, b)
    y3 = F.linear(x3, w)
    (y1b.sum() + y1.sum() + y2b.sum() + y2.sum() + y3b.sum() + y3.sum()).backward()
    """,
)

_add(
    "nn_linear_no_grad_input",
    """
    w = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    b = torch.tensor([1., 1.])
    x = torch.tensor([[1., 1.]])
    y = F.linear(x, w, b)
    z = F.linear(x, w.detach(), b)
    y.sum().backward()
    """,
)

_add(
    "nn_activations",
    """
    x = torch.tensor([[-1., 0., 2.], [3., -4., 0.5]], requires_grad=True)
    r = F.relu(x)
    s = F.sigmoid(x)
    t = F.tanh(x)
    sm = F.softmax(x, dim=1)
    sm0 = F.softmax(x, dim=0)
    ls = F.log_softmax(x, dim=1)
    ls_last = F.log_softmax(x, -1)
    smt = torch.softmax(x, 1)
    lst = x.log_softmax(dim=1)
    wts = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
    loss = ((r + s + t + sm + sm0 + ls + ls_last + smt + lst) * wts).sum()
    loss.backward()
    """,
)

_add(
    "nn_softmax_implicit_dim_warns",
    """
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    y = F.softmax(x)
    """,
)

_add(
    "nn_softmax_dtype",
    """
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    y = F.softmax(x, dim=-1, dtype=torch.float64)
    y.sum().backward()
    """,
)

_add(
    "nn_mse_loss_reductions",
    """
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    y = torch.tensor([[0., 2.], [5., 1.]])
    l_mean = F.mse_loss(x, y)
    l_sum = F.mse_loss(x, y, reduction="sum")
    l_none = F.mse_loss(x, y, reduction="none")
    (l_mean + l_sum + l_none.sum()).backward()
    """,
)

_add(
    "nn_mse_loss_both_require_grad",
    """
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = torch.tensor([1.5, 2.5, 2.], requires_grad=True)
    loss = F.mse_loss(x, y)
    loss.backward()
    """,
)

_add(
    "nn_mse_loss_broadcast_warns",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    y = torch.tensor([[1.], [2.], [3.]])
    loss = F.mse_loss(x, y)
    loss.backward()
    """,
)

_add(
    "nn_cross_entropy",
    """
    logits = torch.tensor([[2., 1., 0.1], [0.5, 2.5, 0.3]], requires_grad=True)
    target = torch.tensor([0, 1])
    ce = F.cross_entropy(logits, target)
    ce_sum = F.cross_entropy(logits, target, reduction="sum")
    ce_none = F.cross_entropy(logits, target, reduction="none")
    (ce + ce_sum + ce_none.sum()).backward()
    """,
)

_add(
    "nn_cross_entropy_unbatched",
    """
    logits = torch.tensor([2., 1., 0.1], requires_grad=True)
    target = torch.tensor(2)
    ce = F.cross_entropy(logits, target)
    ce.backward()
    """,
)

_add(
    "nn_cross_entropy_bad_target_error",
    """
    logits = torch.tensor([[2., 1., 0.1]], requires_grad=True)
    target = torch.tensor([3])
    ce = F.cross_entropy(logits, target)
    """,
)

_add(
    "nn_cross_entropy_float_target_dtype_error",
    """
    logits = torch.tensor([[2., 1., 0.1]], requires_grad=True)
    target = torch.tensor([1.])
    ce = F.cross_entropy(logits, target)
    """,
)

_add(
    "nn_nll_loss",
    """
    x = torch.tensor([[0.1, 0.7, 0.2], [0.3, 0.3, 0.4]], requires_grad=True)
    logp = F.log_softmax(x, dim=1)
    target = torch.tensor([1, 2])
    nll = F.nll_loss(logp, target)
    nll_sum = F.nll_loss(logp, target, reduction="sum")
    nll_none = F.nll_loss(logp, target, reduction="none")
    (nll + nll_sum + nll_none.sum()).backward()
    """,
)


# ===========================================================================
# broadcasting gradients

_add(
    "bcast_col_row",
    """
    a = torch.tensor([[1.], [2.], [3.]], requires_grad=True)
    b = torch.tensor([[10., 20., 30., 40.]], requires_grad=True)
    c = a + b
    d = a * b
    (c.sum() + d.sum()).backward()
    """,
)

_add(
    "bcast_vector_matrix",
    """
    m = torch.arange(6.).reshape(2, 3).requires_grad_()
    v = torch.tensor([1., 2., 3.], requires_grad=True)
    y = m * v
    z = v / (m + 1)
    (y.sum() + z.sum()).backward()
    """,
)

_add(
    "bcast_zero_dim",
    """
    s = torch.tensor(2., requires_grad=True)
    v = torch.tensor([1., 2., 3.], requires_grad=True)
    y = s * v
    z = v - s
    w = s ** v
    (y.sum() + z.sum() + w.sum()).backward()
    """,
)

_add(
    "bcast_leading_dims",
    """
    a = torch.ones(2, 1, 3, requires_grad=True)
    b = torch.arange(12.).reshape(4, 3).requires_grad_()
    c = a * b
    d = torch.maximum(a, b / 4)
    e = torch.where(b > 5, a, b)
    (c.sum() + d.sum() + e.sum()).backward()
    """,
)

_add(
    "bcast_shape_mismatch_error",
    """
    a = torch.ones(3)
    b = torch.ones(4)
    c = a + b
    """,
)


# ===========================================================================
# leaves, retain_grad, grad warnings

_add(
    "leaf_basics",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = torch.tensor([3., 4.])
    c = a * b
    d = b * 2
    e = c.sum()
    e.backward()
    flags = [a.is_leaf, b.is_leaf, c.is_leaf, d.is_leaf, e.is_leaf]
    """,
)

_add(
    "leaf_nonleaf_grad_warning_in_snippet",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    b.sum().backward()
    g = b.grad
    ga = a.grad
    """,
)

_add(
    "retain_grad_nonleaf",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    b.retain_grad()
    c = b * b
    c.retain_grad()
    d = c.sum()
    d.retain_grad()
    d.backward()
    """,
)

_add(
    "retain_grad_leaf_noop",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    a.retain_grad()
    (a * 3).sum().backward()
    """,
)

_add(
    "retain_grad_no_requires_grad_error",
    """
    a = torch.tensor([1., 2.])
    a.retain_grad()
    """,
)

_add(
    "retain_grad_accumulates",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    b.retain_grad()
    c = b.sum()
    c.backward(retain_graph=True)
    c.backward()
    """,
)

_add(
    "grad_setter",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    a.grad = torch.tensor([5., 5.])
    (a * 2).sum().backward()
    b = torch.tensor([1., 2.], requires_grad=True)
    b.grad = torch.tensor([1., 1.])
    b.grad = None
    """,
)

_add(
    "grad_setter_shape_error",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    a.grad = torch.tensor([5., 5., 5.])
    """,
)


# ===========================================================================
# detach / .data / clone

_add(
    "detach_shares_storage_and_version",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    d = b.detach()
    d.add_(1)
    versions = [b._version, d._version]
    flags = [d.requires_grad, d.is_leaf, d.grad_fn is None]
    """,
)

_add(
    "data_shares_storage_not_version",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    e = b.data
    e.add_(1)
    versions = [b._version, e._version]
    ad = a.data
    ad.mul_(3)
    """,
)

_add(
    "detach_inplace_breaks_backward",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a.exp()
    b.detach().zero_()
    b.sum().backward()
    """,
)

_add(
    "data_inplace_silently_wrong",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a.exp()
    b.data.zero_()
    b.sum().backward()
    """,
)

_add(
    "data_setter",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    a.data = torch.tensor([5., 6., 7.])
    flags = [a.requires_grad, a.is_leaf]
    (a * a).sum().backward()
    """,
)

_add(
    "detach_inplace_method",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    b.detach_()
    c = a.detach()
    flags = [b.requires_grad, b.is_leaf, b.grad_fn is None]
    """,
)

_add(
    "clone_semantics",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    c = a.clone()
    c2 = torch.clone(a)
    n = torch.tensor([1., 2.])
    nc = n.clone()
    nc.add_(1)
    cd = a.detach().clone()
    (c * c2).sum().backward()
    """,
)

_add(
    "detach_requires_grad_again",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    d = a.detach().requires_grad_()
    (d * 3).sum().backward()
    """,
)


# ===========================================================================
# in-place operations

_add(
    "inplace_versions",
    """
    a = torch.zeros(3)
    v = [a._version]
    a.add_(1)
    v.append(a._version)
    a.mul_(2)
    v.append(a._version)
    a.sub_(0.5)
    a.div_(2)
    a.fill_(3)
    a.zero_()
    a.copy_(torch.tensor([1., 2., 3.]))
    a.clamp_(0, 2)
    v.append(a._version)
    a += 1
    a -= 1
    a *= 2
    a /= 2
    v.append(a._version)
    b = a + 1
    v.append(a._version)
    """,
)

_add(
    "inplace_iop_returns_self",
    """
    a = torch.tensor([1., 2.])
    r = a.add_(1)
    same = r is a
    b = torch.tensor([1., 2.])
    old = b
    b += 1
    still_same = b is old
    """,
)

_add(
    "inplace_alpha_and_tensor_args",
    """
    a = torch.tensor([1., 2.])
    a.add_(torch.tensor([1., 1.]), alpha=2)
    a.sub_(torch.tensor([1., 1.]), alpha=0.5)
    a.mul_(torch.tensor([2., 3.]))
    a.div_(torch.tensor([2., 3.]))
    a.clamp_(min=1.5)
    a.clamp_(max=2.5)
    """,
)

_add(
    "inplace_zero_rebase",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    b.zero_()
    b.sum().backward()
    """,
)

_add(
    "inplace_nonleaf_history",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    b.add_(1)
    c = a * 3
    c.mul_(a)
    d = a + 0
    d.div_(2)
    e = a * 1
    e.sub_(a, alpha=2)
    f = a * 1
    f.fill_(3)
    g = a * 1
    g.copy_(torch.tensor([7., 8.]))
    h = a * 1
    h.clamp_(0, 1.5)
    (b + c + d + e + f + g + h).sum().backward()
    """,
)

_add(
    "inplace_copy_from_requires_grad",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    x = torch.zeros(2)
    x.copy_(a * 2)
    x.sum().backward()
    """,
)

_add(
    "inplace_saved_tensor_modified_error",
    """
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = a.sigmoid()
    b.mul_(2)
    b.sum().backward()
    """,
)

_add(
    "inplace_saved_input_modified_error",
    """
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    c = torch.ones(3)
    y = a * c
    c.add_(1)
    y.sum().backward()
    """,
)

_add(
    "inplace_saved_nonleaf_input_modified_error",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    c = b * b
    b.add_(1)
    c.sum().backward()
    """,
)

_add(
    "inplace_unsaved_ok",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a + 2
    c = b + 1
    b.mul_(3)
    (b + c).sum().backward()
    """,
)

_add(
    "inplace_leaf_requires_grad_error",
    """
    a = torch.ones(2, requires_grad=True)
    a.add_(1)
    """,
)

_add(
    "inplace_leaf_iadd_error",
    """
    w = torch.ones(2, requires_grad=True)
    w -= 0.1
    """,
)

_add(
    "inplace_leaf_view_error",
    """
    a = torch.ones(3, requires_grad=True)
    v = a[0:2]
    v.mul_(2)
    """,
)

_add(
    "inplace_leaf_under_no_grad",
    """
    a = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        a.add_(1)
        a.mul_(3)
    flags = [a.is_leaf, a.requires_grad, a.grad_fn is None]
    (a * a).sum().backward()
    """,
)

_add(
    "inplace_sgd_step",
    """
    w = torch.tensor([1., -2.], requires_grad=True)
    x = torch.tensor([0.5, 1.5])
    for _step in range(3):
        loss = ((w * x).sum() - 1.) ** 2
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
        w.grad.zero_()
    """,
)

_add(
    "inplace_sgd_grad_none",
    """
    w = torch.tensor([1., -2.], requires_grad=True)
    loss = (w ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w.sub_(w.grad, alpha=0.5)
    w.grad = None
    loss2 = (w ** 2).sum()
    loss2.backward()
    """,
)

_add(
    "inplace_plain_tensor_becomes_nonleaf",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    x = torch.zeros(2)
    x.add_(a)
    y = torch.ones(2)
    y.mul_(a)
    z = torch.ones(2)
    z += a
    (x + y + z).sum().backward()
    """,
)

_add(
    "inplace_int_dtype_error",
    """
    i = torch.tensor([1, 2])
    i.add_(1.5)
    """,
)

_add(
    "inplace_broadcast_shape_error",
    """
    a = torch.zeros(3)
    a.add_(torch.ones(2, 3))
    """,
)

_add(
    "inplace_view_of_nonleaf",
    """
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = a * 2
    v = b[0:2]
    v.mul_(10)
    b.sum().backward()
    """,
)

_add(
    "inplace_views_share_version",
    """
    a = torch.tensor([1., 2., 3.])
    v = a[1:]
    w = a.view(3, 1)
    a.add_(1)
    versions = [a._version, v._version, w._version]
    """,
)

_add(
    "inplace_zero_grad_accumulator",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    (a * 2).sum().backward()
    g = a.grad
    a.grad.zero_()
    (a * 3).sum().backward()
    same_object = g is a.grad
    """,
)


# ===========================================================================
# backward and its errors

_add(
    "backward_twice_error",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = (a * a).sum()
    b.backward()
    b.backward()
    """,
)

_add(
    "backward_twice_no_saved_tensors",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = (a + 1).sum()
    b.backward()
    b.backward()
    """,
)

_add(
    "backward_retain_graph",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = (a * a).sum()
    b.backward(retain_graph=True)
    g1 = a.grad.clone()
    b.backward()
    """,
)

_add(
    "backward_nonscalar_error",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    b.backward()
    """,
)

_add(
    "backward_no_grad_tensor_error",
    """
    a = torch.tensor([1., 2.])
    b = (a * 2).sum()
    b.backward()
    """,
)

_add(
    "backward_of_leaf",
    """
    a = torch.tensor(3., requires_grad=True)
    a.backward()
    """,
)

_add(
    "backward_gradient_argument",
    """
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = a * a
    b.backward(torch.tensor([1., 0.1, 0.01]))
    """,
)

_add(
    "backward_gradient_scalar",
    """
    a = torch.tensor(2., requires_grad=True)
    b = a ** 3
    b.backward(torch.tensor(0.5))
    """,
)

_add(
    "backward_gradient_shape_error",
    """
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = a * a
    b.backward(torch.tensor([1., 1.]))
    """,
)

_add(
    "backward_inputs",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = torch.tensor([3., 4.], requires_grad=True)
    c = (a * b).sum()
    c.backward(inputs=[a])
    d = (a * b).sum()
    d.backward(inputs=b)
    """,
)

_add(
    "backward_inputs_nonleaf",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    c = (b * b).sum()
    c.backward(inputs=[b])
    """,
)

_add(
    "backward_accumulates",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    (a * 2).sum().backward()
    g1 = a.grad.clone()
    (a * a).sum().backward()
    """,
)

_add(
    "backward_shared_leaf_paths",
    """
    x = torch.tensor(3., requires_grad=True)
    y = x * x + x * 2 + x
    z = y * x
    z.backward()
    """,
)

_add(
    "backward_under_no_grad",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = (a * a).sum()
    with torch.no_grad():
        b.backward()
    """,
)

_add(
    "backward_autograd_backward_fn",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    y1 = (a * 2).sum()
    y2 = a * a
    torch.autograd.backward([y1, y2], [torch.tensor(1.), torch.tensor([1., 1.])])
    b = torch.tensor([1., 2.], requires_grad=True)
    torch.autograd.backward((b * 3).sum())
    """,
)

_add(
    "backward_detached_branch",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    c = b.detach() * a
    c.sum().backward()
    """,
)

_add(
    "backward_int_tensor_in_graph",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    idx = torch.tensor([1, 0])
    b = a[idx] * idx
    b.sum().backward()
    """,
)


# ===========================================================================
# requires_grad on integers and non-leaves

_add(
    "requires_grad_int_factory_error",
    """
    a = torch.zeros(2, dtype=torch.int64, requires_grad=True)
    """,
)

_add(
    "requires_grad_int_method_error",
    """
    a = torch.tensor([1, 2])
    a.requires_grad_()
    """,
)

_add(
    "requires_grad_int_setter_error",
    """
    a = torch.tensor([1, 2])
    a.requires_grad = True
    """,
)

_add(
    "requires_grad_int_false_ok",
    """
    a = torch.tensor([1, 2])
    a.requires_grad = False
    a.requires_grad_(False)
    b = torch.tensor([1, 2], requires_grad=False)
    """,
)

_add(
    "requires_grad_nonleaf_setter_false_error",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    b.requires_grad = False
    """,
)

_add(
    "requires_grad_nonleaf_setter_true_error",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    b.requires_grad = True
    """,
)

_add(
    "requires_grad_nonleaf_method_false_error",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    b.requires_grad_(False)
    """,
)

_add(
    "requires_grad_nonleaf_method_true_ok",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = a * 2
    r = b.requires_grad_()
    same = r is b
    """,
)

_add(
    "requires_grad_toggle_leaf",
    """
    a = torch.tensor([1., 2.])
    a.requires_grad = True
    b = torch.tensor([1., 2.])
    r = b.requires_grad_()
    same = r is b
    c = torch.tensor([1., 2.], requires_grad=True)
    c.requires_grad_(False)
    y = (a * b * c).sum()
    y.backward()
    """,
)

_add(
    "requires_grad_propagation",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = torch.tensor([1., 2.])
    c = a + b
    d = b * 2
    e = d + c
    f = torch.cat([b, d])
    g = torch.cat([b, a])
    """,
)


# ===========================================================================
# autograd.grad

_add(
    "agrad_basic",
    """
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = (x ** 2).sum()
    g = torch.autograd.grad(y, x)
    """,
)

_add(
    "agrad_multiple_inputs",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    w = torch.tensor([3., 4.], requires_grad=True)
    y = (x * w).sum()
    gx, gw = torch.autograd.grad(y, [x, w])
    """,
)

_add(
    "agrad_unused_error",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    z = torch.tensor([1., 2.], requires_grad=True)
    y = (x * 2).sum()
    g = torch.autograd.grad(y, [x, z])
    """,
)

_add(
    "agrad_allow_unused",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    z = torch.tensor([1., 2.], requires_grad=True)
    y = (x * 2).sum()
    g = torch.autograd.grad(y, [x, z], allow_unused=True)
    """,
)

_add(
    "agrad_nonleaf_input",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    h = x * 3
    y = (h ** 2).sum()
    gh, = torch.autograd.grad(y, h, retain_graph=True)
    gx, = torch.autograd.grad(y, x)
    """,
)

_add(
    "agrad_input_not_requiring_grad_error",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    c = torch.tensor([1., 2.])
    y = (x * c).sum()
    g = torch.autograd.grad(y, c)
    """,
)

_add(
    "agrad_grad_outputs",
    """
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = x * x
    g, = torch.autograd.grad(y, x, grad_outputs=torch.tensor([1., 0., 2.]))
    """,
)

_add(
    "agrad_nonscalar_error",
    """
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = x * x
    g = torch.autograd.grad(y, x)
    """,
)

_add(
    "agrad_twice_error",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    g1 = torch.autograd.grad(y, x)
    g2 = torch.autograd.grad(y, x)
    """,
)

_add(
    "agrad_create_graph_second_derivative",
    """
    x = torch.tensor([1., 2., 3.], requires_grad=True)
    y = (x ** 3).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    flags = [g.requires_grad, g.grad_fn is not None, g.is_leaf]
    g2, = torch.autograd.grad(g.sum(), x)
    """,
    ignore_graph=("g",),
)

_add(
    "agrad_create_graph_then_backward",
    """
    x = torch.tensor(2., requires_grad=True)
    y = x.sin() * x
    g, = torch.autograd.grad(y, x, create_graph=True)
    g.backward()
    """,
    ignore_graph=("g",),
)

_add(
    "agrad_without_create_graph_no_grad_fn",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    y = (x ** 3).sum()
    g, = torch.autograd.grad(y, x)
    flags = [g.requires_grad, g.grad_fn is None]
    """,
)

_add(
    "agrad_backward_create_graph_warns",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    y = (x ** 3).sum()
    y.backward(create_graph=True)
    g = x.grad
    flags = [g.requires_grad, g.grad_fn is not None]
    """,
    ignore_graph=("g", "x.grad"),
)


# ===========================================================================
# hooks

_add(
    "hook_modifies_leaf_grad",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    h = x.register_hook(lambda g: g * 2)
    (x * 3).sum().backward()
    g1 = x.grad.clone()
    h.remove()
    x.grad = None
    (x * 3).sum().backward()
    """,
)

_add(
    "hook_observes_without_changing",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.clone()))
    y = x * x
    y.register_hook(lambda g: seen.append(g.clone()))
    y.sum().backward()
    """,
)

_add(
    "hook_on_nonleaf_changes_upstream",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    z = (y * y).sum()
    z.backward()
    """,
)

_add(
    "hook_with_retain_grad_order",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g + 100)
    y.sum().backward()
    """,
)

_add(
    "hook_no_grad_tensor_error",
    """
    x = torch.tensor([1., 2.])
    x.register_hook(lambda g: g)
    """,
)

_add(
    "hook_multiple_in_order",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    x.register_hook(lambda g: g + 1)
    x.register_hook(lambda g: g * 10)
    (x * 1).sum().backward()
    """,
)


# ===========================================================================
# grad modes

_add(
    "mode_no_grad_context",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    with torch.no_grad():
        b = a * 2
        inside = torch.is_grad_enabled()
        c = torch.ones(2, requires_grad=True)
        d = c + 1
    outside = torch.is_grad_enabled()
    e = a * 2
    """,
)

_add(
    "mode_enable_grad_inside_no_grad",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    with torch.no_grad():
        with torch.enable_grad():
            b = a * 2
            inner = torch.is_grad_enabled()
        c = a * 2
    b.sum().backward()
    """,
)

_add(
    "mode_set_grad_enabled",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    with torch.set_grad_enabled(False):
        b = a * 2
    with torch.set_grad_enabled(True):
        c = a * 2
    torch.set_grad_enabled(False)
    d = a * 2
    off = torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    e = a * 2
    on = torch.is_grad_enabled()
    """,
)

_add(
    "mode_decorators",
    """
    a = torch.tensor([1., 2.], requires_grad=True)

    @torch.no_grad()
    def doubled(x):
        return x * 2

    @torch.enable_grad()
    def tripled(x):
        return x * 3

    @torch.set_grad_enabled(False)
    def quadrupled(x):
        return x * 4

    b = doubled(a)
    with torch.no_grad():
        c = tripled(a)
    d = quadrupled(a)
    after = torch.is_grad_enabled()
    """,
)

_add(
    "mode_bare_no_grad_decorator",
    """
    a = torch.tensor([1., 2.], requires_grad=True)

    @torch.no_grad
    def doubled(x):
        return x * 2

    b = doubled(a)
    """,
)

_add(
    "mode_no_grad_exception_restores",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    try:
        with torch.no_grad():
            raise ValueError("boom")
    except ValueError:
        pass
    enabled = torch.is_grad_enabled()
    b = a * 2
    """,
)

_add(
    "mode_no_grad_views_and_inplace",
    """
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = a * 1
    with torch.no_grad():
        v = a[:2]
        b.mul_(2)
    flags = [v.requires_grad, b.grad_fn is None]
    b.sum().backward()
    """,
)


# ===========================================================================
# custom autograd.Function

_add(
    "func_exp_save_output",
    """
    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result

    x = torch.tensor([0., 1.], requires_grad=True)
    y = Exp.apply(x)
    name = y.grad_fn.name()
    y.sum().backward()
    """,
)

_add(
    "func_needs_input_grad",
    """
    seen = []

    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            seen.append(ctx.needs_input_grad)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            seen.append(ctx.needs_input_grad)
            ga = g * b if ctx.needs_input_grad[0] else None
            gb = g * a if ctx.needs_input_grad[1] else None
            return ga, gb

    x = torch.tensor([1., 2.], requires_grad=True)
    c = torch.tensor([3., 4.])
    y = Mul.apply(x, c)
    y.sum().backward()
    flags = list(seen)
    """,
)

_add(
    "func_no_input_requires_grad",
    """
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Double.apply(torch.tensor([1., 2.]))
    """,
)

_add(
    "func_forward_inner_ops_not_recorded",
    """
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            inner = a * a
            ctx.inner_flags = [inner.requires_grad, torch.is_grad_enabled()]
            return inner

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return 2 * a * g

    x = torch.tensor([1., 3.], requires_grad=True)
    y = Square.apply(x)
    z = y * 2
    z.sum().backward()
    """,
)

_add(
    "func_mark_dirty",
    """
    class AddOneInplace(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            a.add_(1)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            return g

    x = torch.tensor([1., 2.], requires_grad=True)
    b = x * 2
    y = AddOneInplace.apply(b)
    same = y is b
    y.sum().backward()
    """,
)

_add(
    "func_mark_non_differentiable",
    """
    class SortLike(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            idx = torch.tensor([1, 0])
            out = a * 1
            ctx.mark_non_differentiable(idx)
            return out, idx

        @staticmethod
        def backward(ctx, g_out, g_idx):
            return g_out

    x = torch.tensor([1., 2.], requires_grad=True)
    out, idx = SortLike.apply(x)
    out.sum().backward()
    """,
)

_add(
    "func_mark_non_differentiable_float",
    """
    class TwoOut(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            b = a * 2
            c = a * 3
            ctx.mark_non_differentiable(c)
            return b, c

        @staticmethod
        def backward(ctx, gb, gc):
            return gb * 2

    x = torch.tensor([1., 2.], requires_grad=True)
    b, c = TwoOut.apply(x)
    b.sum().backward()
    """,
)

_add(
    "func_materialize_grads_default",
    """
    seen = []

    class Two(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1, a * 2

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2 is None)
            seen.append(g2.tolist() if g2 is not None else None)
            return g1 + 2 * g2

    x = torch.tensor([1., 2.], requires_grad=True)
    p, q = Two.apply(x)
    p.sum().backward()
    flags = list(seen)
    """,
)

_add(
    "func_set_materialize_grads_false",
    """
    seen = []

    class Two(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            return a * 1, a * 2

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2 is None)
            grad = g1.clone()
            if g2 is not None:
                grad = grad + 2 * g2
            return grad

    x = torch.tensor([1., 2.], requires_grad=True)
    p, q = Two.apply(x)
    p.sum().backward()
    flags = list(seen)
    """,
)

_add(
    "func_wrong_number_of_grads_error",
    """
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    x = torch.tensor([1., 2.], requires_grad=True)
    w = torch.tensor([3., 4.], requires_grad=True)
    y = Bad.apply(x, w)
    y.sum().backward()
    """,
)

_add(
    "func_too_many_grads_error",
    """
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g, g, g

    x = torch.tensor([1., 2.], requires_grad=True)
    y = Bad.apply(x)
    y.sum().backward()
    """,
)

_add(
    "func_backward_twice_error",
    """
    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result

    x = torch.tensor([0., 1.], requires_grad=True)
    y = Exp.apply(x).sum()
    y.backward()
    y.backward()
    """,
)

_add(
    "func_saved_tensor_modified_error",
    """
    class Id(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 1

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * a

    x = torch.tensor([1., 2.], requires_grad=True)
    h = x * 1
    y = Id.apply(h)
    h.add_(1)
    y.sum().backward()
    """,
)

_add(
    "func_mixed_args_and_chain",
    """
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, factor, b):
            ctx.factor = factor
            return a * factor + b

        @staticmethod
        def backward(ctx, g):
            return g * ctx.factor, None, g

    x = torch.tensor([1., 2.], requires_grad=True)
    b = torch.tensor([0.5, 0.5], requires_grad=True)
    y = Scale.apply(x * 2, 3., b)
    z = y.exp()
    z.sum().backward()
    """,
)

_add(
    "func_returns_input_unchanged",
    """
    class Ident(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = torch.tensor([1., 2.], requires_grad=True)
    y = Ident.apply(x)
    same = y is x
    y.sum().backward()
    """,
)


# ===========================================================================
# conversions: numpy, item, tolist, to, float/double, type_as

_add(
    "conv_numpy_requires_grad_error",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    n = x.numpy()
    """,
)

_add(
    "conv_numpy_shares_memory",
    """
    x = torch.tensor([1., 2.], requires_grad=True)
    n = x.detach().numpy()
    n[0] = 10.
    i = torch.tensor([1, 2]).numpy()
    p = torch.tensor([1., 2.]).numpy()
    """,
)

_add(
    "conv_item_tolist",
    """
    x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    s = (x * 2).sum()
    v = s.item()
    lst = x.tolist()
    i = torch.tensor(7).item()
    b = torch.tensor(True).item()
    one = torch.tensor([2.5]).item()
    zero_dim_list = torch.tensor(1.5).tolist()
    int_list = torch.tensor([1, 2]).tolist()
    """,
)

_add(
    "conv_item_multi_element_error",
    """
    x = torch.tensor([1., 2.])
    v = x.item()
    """,
)

_add(
    "conv_to_dtype",
    """
    x = torch.tensor([1.5, 2.5], requires_grad=True)
    a = x.to(torch.float64)
    b = x.to(torch.float32)
    same = b is x
    c = x.to(torch.int64)
    d = x.to(dtype=torch.float16)
    e = x.to("cpu")
    same_e = e is x
    f = x.to(torch.device("cpu"))
    g = x.to("cpu", torch.float64)
    (a.sum() + d.sum() + g.sum()).backward()
    """,
)

_add(
    "conv_float_double_cpu",
    """
    x = torch.tensor([1.5, 2.5], requires_grad=True)
    f = x.float()
    same_f = f is x
    d = x.double()
    i = torch.tensor([1, 2]).float()
    dd = d.double()
    same_dd = dd is d
    c = x.cpu()
    same_c = c is x
    back = d.float()
    (back * 2).sum().backward()
    """,
)

_add(
    "conv_type_as",
    """
    x = torch.tensor([1.5, 2.5], requires_grad=True)
    i = torch.tensor([1, 2])
    d = torch.tensor([1., 2.], dtype=torch.float64)
    a = x.type_as(d)
    b = x.type_as(i)
    c = i.type_as(x)
    e = x.type_as(x)
    same = e is x
    a.sum().backward()
    """,
)


# ===========================================================================
# worked examples: small end-to-end programs

_add(
    "example_linear_regression_step",
    """
    X = torch.tensor([[1., 2.], [3., 4.], [5., 6.]])
    y = torch.tensor([[1.], [2.], [3.]])
    w = torch.tensor([[0.1], [0.2]], requires_grad=True)
    b = torch.tensor([0.], requires_grad=True)
    pred = X @ w + b
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
        b -= 0.01 * b.grad
    """,
)

_add(
    "example_mlp_classifier",
    """
    x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3]])
    w1 = torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [0.7, -0.8, 0.9],
                       [-0.1, 0.2, -0.3]], requires_grad=True)
    b1 = torch.tensor([0.01, -0.02, 0.03, 0.0], requires_grad=True)
    w2 = torch.tensor([[0.2, -0.1, 0.05, 0.3], [-0.3, 0.2, 0.1, -0.05]],
                      requires_grad=True)
    b2 = torch.tensor([0.1, -0.1], requires_grad=True)
    h = F.relu(F.linear(x, w1, b1))
    logits = F.linear(h, w2, b2)
    target = torch.tensor([1, 0])
    loss = F.cross_entropy(logits, target)
    h.retain_grad()
    loss.backward()
    """,
)

_add(
    "example_sigmoid_bce_by_hand",
    """
    x = torch.tensor([0.5, -1.5, 2.0], requires_grad=True)
    t = torch.tensor([1., 0., 1.])
    p = torch.sigmoid(x)
    loss = -(t * torch.log(p) + (1 - t) * torch.log(1 - p)).mean()
    loss.backward()
    """,
)

_add(
    "example_softmax_by_hand",
    """
    z = torch.tensor([[1., 2., 3.]], requires_grad=True)
    e = torch.exp(z - z.max(dim=1, keepdim=True).values)
    s = e / e.sum(dim=1, keepdim=True)
    loss = -torch.log(s[0, 2])
    loss.backward()
    """,
)

_add(
    "example_tanh_chain_retain",
    """
    x = torch.tensor([0.3, -0.7], requires_grad=True)
    h1 = torch.tanh(x * 2)
    h1.retain_grad()
    h2 = torch.tanh(h1 + 0.5)
    h2.retain_grad()
    out = (h2 ** 2).sum()
    out.backward()
    """,
)

_add(
    "example_reuse_and_fanout",
    """
    a = torch.tensor([2., 3.], requires_grad=True)
    b = a * a
    c = b + a
    d = b * c
    e = torch.stack([b, c, d]).sum(0)
    e.sum().backward()
    """,
)

_add(
    "example_grad_fn_walk",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    b = torch.tensor([3., 4.], requires_grad=True)
    y = (a * b + a).sum()
    names = []
    node = y.grad_fn
    while node is not None:
        names.append(node.name())
        nxt = [f for f, _ in node.next_functions if f is not None]
        node = nxt[0] if nxt else None
    acc = y.grad_fn.next_functions[0][0].next_functions[1][0]
    is_a = acc.variable is a
    """,
)


# ===========================================================================
# regressions found by the random differential test

_add(
    "backward_twice_which_nodes_saved_tensors",
    """
    a = torch.tensor([1., 2.], requires_grad=True)
    c = torch.tensor([3., 4.])
    cases = {
        "add_scalar": lambda: a + 2,
        "add_tensor": lambda: a + c,
        "sub_scalar": lambda: a - 2,
        "rsub": lambda: 2 - a,
        "neg": lambda: -a,
        "mul_tensor": lambda: a * c,
        "mul_scalar": lambda: a * 3,
        "div_tensor": lambda: a / c,
        "div_scalar": lambda: a / 2,
        "pow_scalar": lambda: a ** 2,
        "exp": lambda: a.exp(),
        "relu": lambda: a.relu(),
        "abs": lambda: a.abs(),
        "clamp": lambda: a.clamp(0, 1),
        "sum_then_mul": lambda: a.sum() * 2,
        "mean": lambda: a.mean(),
        "max_all": lambda: a.max(),
        "max_dim": lambda: a.max(dim=0).values,
        "where": lambda: torch.where(a > 1, a, c),
        "maximum": lambda: torch.maximum(a, c),
        "index_tensor": lambda: a[torch.tensor([1, 0])],
        "index_mask": lambda: a[a > 1],
        "select": lambda: a[0],
        "slice": lambda: a[1:],
        "reshape": lambda: a.reshape(2, 1),
        "expand": lambda: a.expand(3, 2),
        "cat": lambda: torch.cat([a, c]),
        "stack": lambda: torch.stack([a, c]),
        "clone": lambda: a.clone(),
        "to_double": lambda: a.double(),
        "softmax": lambda: F.softmax(a, dim=0),
        "mse": lambda: F.mse_loss(a, c),
        "matmul": lambda: a @ c,
        "linear": lambda: F.linear(a, torch.ones(3, 2)),
        "cross_entropy": lambda: F.cross_entropy(a.unsqueeze(0), torch.tensor([1])),
    }
    raises = []
    for name, make in cases.items():
        loss = make().sum()
        loss.backward()
        try:
            loss.backward()
        except RuntimeError:
            raises.append(name)
    del loss
    """,
)

_add(
    "zero_dim_grad_accumulation",
    """
    x = torch.tensor(1.5, requires_grad=True)
    v = -x
    v.retain_grad()
    loss = v * v
    loss.backward(retain_graph=True)
    loss.backward()
    y = torch.tensor(2., requires_grad=True)
    g = torch.autograd.grad(-y + y, [y])
    devices = [str(x.grad.device), str(v.grad.device), str(g[0].device)]
    """,
)

_add(
    "mode_no_grad_view_then_op",
    """
    x = torch.tensor([[1.5, -2.0, -0.5]], requires_grad=True)
    with torch.no_grad():
        v = x.t()
        c = v.contiguous()
        d = x * 2
    y = c.clamp(-1, 1)
    z = d.clamp(-1, 1)
    y.sum().backward()
    """,
)

_add(
    "seed004_func_output_used_further",
    _SEED004_FUNC.rstrip(" ")
    + "    e = d * 3\n    e.backward()\n    shown = f'{a.grad} {b.grad}'\n",
)

_add(
    "zero_dim_grad_reaches_function_backward_on_cpu",
    """
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad_out):
            seen.append(str(grad_out.device))
            seen.append(grad_out.dim())
            return grad_out * torch.ones(()) * 2

    seen = []
    x = torch.tensor(1.5, requires_grad=True)
    y = Scale.apply(x)
    loss = y * 3
    loss.backward()
    """,
)

_add(
    "format_zero_dim_tensor",
    """
    a = torch.tensor(3.0, requires_grad=True)
    (a * a * 4 / 2).backward()
    plain = f"{a.grad}"
    spec = f"{a:.3f} {a.grad:>8.2f}"
    integer = f"{torch.tensor(7)}"
    flag = f"{torch.tensor(True)}"
    vector = f"{torch.tensor([1.0, 2.0])}"
    try:
        f"{torch.tensor([1.0, 2.0]):.2f}"
    except TypeError as exc:
        message = str(exc)
    """,
)

_add(
    "repr_suffix_on_its_own_line",
    """
    base = torch.arange(60, dtype=torch.float64).reshape(3, 20) / 7
    leaf = base.clone().requires_grad_()
    wide = repr(leaf)
    wide_fn = repr(leaf.sin())
    small = repr(torch.arange(6, dtype=torch.float64).reshape(2, 3).requires_grad_().sin())
    fits = repr(torch.arange(60.).reshape(3, 20).requires_grad_().sin())
    narrow = repr((torch.arange(16.).reshape(2, 8) / 3).requires_grad_().cos())
    exp = repr(torch.arange(21, dtype=torch.float64).reshape(3, 7).requires_grad_().exp())
    """,
)

_add(
    "gradcheck_single_tensor_input",
    """
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return 2 * x * grad_out

    x = torch.tensor([[0.5, -1.0], [2.0, 0.25], [1.5, -0.75]], dtype=torch.double,
                     requires_grad=True)
    ok = torch.autograd.gradcheck(Square.apply, x)
    """,
)

_add(
    "to_rejects_requires_grad",
    """
    a = torch.ones(2)
    a.to(requires_grad=True)
    """,
)

_add(
    "to_rejects_unknown_keywords_after_positionals",
    """
    a = torch.ones(2)
    a.to(torch.float64, requires_grad=True)
    """,
)

_add(
    "reduction_of_nothing_warns_nothing",
    """
    empty_mean = torch.tensor([]).mean()
    empty_rows = torch.zeros(0, 3).mean(0)
    empty_cols = torch.zeros(2, 0).mean(1)
    inf_sum = torch.tensor([float("inf"), -float("inf")]).sum()
    inf_mean = torch.tensor([[float("inf"), -float("inf")]]).mean(1)
    """,
)

_add(
    "index_out_of_range_names_key_position",
    """
    x = torch.zeros(2, 3, 4)
    messages = []
    for key in [(0, 5), (1, 2, 9), (Ellipsis, 7), (None, 0, 5), (slice(1, None), 4),
                (slice(None), slice(None), [0, 9]), ([0, 1], [0, 5]), (0, [0, 7])]:
        try:
            x[key]
        except IndexError as exc:
            messages.append(str(exc))
    """,
)

_add(
    "select_out_of_range",
    """
    x = torch.zeros(2, 3, 4)
    x.select(1, 5)
    """,
)

_add(
    "mark_dirty_on_leaf",
    """
    class Inc(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out

    a = torch.ones(2, requires_grad=True)
    Inc.apply(a)
    """,
)

_add(
    "random_values_printed",
    """
    torch.manual_seed(0)
    u = torch.rand(2, 3)
    n = torch.randn(20)
    i = torch.randint(0, 10, (5,))
    p = torch.randperm(6)
    shown = repr(torch.randn(2, 4, dtype=torch.float64, requires_grad=True))
    w = torch.empty(2, 3)
    torch.nn.init.kaiming_uniform_(w, a=5 ** 0.5)
    """,
)

# nn modules and optimizers live in their own file; importing it registers them.
from tests.conformance import (  # noqa: E402, F401
    scenarios_attention,
    scenarios_census,
    scenarios_fidelity,
    scenarios_func,
    scenarios_indexing,
    scenarios_nn,
    scenarios_rnn,
)
