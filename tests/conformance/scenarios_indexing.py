"""Conformance scenarios for what learners' programs index with and count with: Python
ranges, lists and tuples as indices (read and assigned, with their graphs), values with
extra leading ones, histograms and bin counts, fast gradcheck, float-step ranges, the
legacy ``size_average``/``reduce`` loss arguments and seeded ``torch.Generator`` draws."""

from __future__ import annotations

from tests.conformance.scenarios import _add

_X = "x = torch.arange(12.0).reshape(3, 4).requires_grad_()\n"

_add("index_range_and_list", _X + "y = x[range(3), [0, 1, 2]]\ny.sum().backward()\n")
_add(
    "index_range_and_tensor_logits",
    _X + "t = torch.tensor([1, 0, 3])\ny = x[range(3), t]\n(-y).mean().backward()\n",
)
_add("index_list_then_slice", _X + "y = x[[0, 2], 1:]\ny.sum().backward()\n")
_add("index_two_lists", _X + "y = x[[0, 1], [1, 2]]\ny.sum().backward()\n")
_add(
    "index_tuple_vs_list",
    """
    x = torch.arange(12.0).reshape(3, 4)
    a = x[(0, 1)]
    b = x[[0, 1]]
    c = x[(0, [1, 2])]
    d = x[([0, 1],)]
    """,
)
_add(
    "index_nested_list_warns",
    """
    x = torch.arange(12.0).reshape(3, 4)
    y = x[[[0, 1], [2, 0]]]
    z = x[torch.tensor([[0, 1], [2, 0]])]
    """,
)
_add(
    "index_list_of_bools",
    """
    x = torch.arange(12.0).reshape(3, 4)
    a = x[[True, False, True]]
    b = x[:, [True, False, True, False]]
    c = x[[True, False, True], [0, 3]]
    """,
)
_add(
    "index_list_mixing_tensors_and_ints",
    """
    x = torch.arange(12.0).reshape(3, 4)
    a = x[[torch.tensor(0), 2]]
    b = x[[torch.tensor([0, 1]), 2]]
    c = x[[1, [0, 1]]]
    """,
)
_add(
    "index_ranges_and_odd_lists",
    """
    x = torch.arange(12.0).reshape(3, 4)
    a = x[range(1, 3)]
    b = x[:, range(0, 4, 2)]
    c = x[[]]
    d = x[[0.5, 1]]
    e = x[[1, -1]]
    f = x[[0, 1, 2] * 11]
    """,
)
_add("index_list_out_of_range", "x = torch.arange(12.0).reshape(3, 4)\ny = x[[0, 5]]\n")
_add(
    "index_lists_not_broadcastable",
    "x = torch.arange(12.0).reshape(3, 4)\ny = x[[1, 2], [0, 1, 2]]\n",
)
_add(
    "index_3d_lists_and_slices",
    """
    x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
    a = x[:, [0, 2], [1, 3]]
    b = x[[0, 1], :, [1, 3]]
    c = x[..., [0, 1]]
    (a.sum() + b.sum() + c.sum()).backward()
    """,
)
_add(
    "setitem_value_with_leading_ones",
    """
    t = torch.zeros(2, 3)
    t[0] = torch.ones(1, 1, 3)
    u = torch.zeros(2, 3)
    u[:, 1] = torch.ones(1, 2)
    u[1] = 7
    """,
)
_add("setitem_value_too_many_dims", "t = torch.zeros(2, 3)\nt[0] = torch.ones(2, 1, 3)\n")
_add("setitem_value_wrong_shape", "t = torch.zeros(2, 3)\nt[0] = torch.ones(2, 3)\n")
_add(
    "setitem_index_value_wrong_shape",
    "t = torch.zeros(3, 3)\nt[[0, 1]] = torch.ones(3, 3)\n",
)
_add(
    "setitem_leading_ones_graph",
    """
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t = torch.zeros(2, 3)
    t[0] = x.reshape(1, 1, 3)
    u = torch.zeros(2, 3)
    u[0] = x[:1]
    u[1] = x.sum()
    (t.sum() + u.sum()).backward()
    """,
)
_add(
    "setitem_list_index_graph",
    """
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t = torch.zeros(3, 3)
    t[[0, 1]] = x.reshape(1, 1, 3)
    t[[2]] = x.sum()
    t.sum().backward()
    """,
)
_add(
    "setitem_range_index",
    """
    t = torch.zeros(3, 3)
    t[range(3), [0, 1, 2]] = 5.0
    u = torch.zeros(4)
    u[[0, 0, 1]] = torch.tensor([1.0, 2.0, 3.0])
    w = torch.zeros(2, 3)
    w[1, [0, 2]] = torch.tensor([1.0, 2.0])
    w[[True, False]] = 3.0
    """,
)
_add(
    "setitem_slice_then_list_copyslices",
    """
    w = torch.ones(3, 3, requires_grad=True)
    t = w * 1
    t[range(3), range(3)] = 0.0
    t[[0, 2], 1:] = torch.tensor([[5.0, 6.0]])
    t.sum().backward()
    """,
)
_add(
    "setitem_requires_grad_value_paths",
    """
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = torch.zeros(2, 3)
    a[...] = x
    b = torch.zeros(2, 3)
    b[:] = x
    c = torch.zeros(2, 3)
    c[None] = x
    d = torch.zeros(2, 3)
    d[:, [0, 2]] = x[:2].reshape(1, 2)
    (a.sum() + b.sum() + c.sum() + d.sum()).backward()
    """,
)
_add(
    "setitem_augmented_range_index",
    """
    x = torch.arange(12.0).reshape(3, 4).requires_grad_()
    y = x * 2
    y[range(3), [0, 1, 2]] += 1
    y.sum().backward()
    z = torch.arange(12.0).reshape(3, 4)
    z[range(3), torch.tensor([0, 3, 1])] -= 100
    """,
)

_DATA = "x = torch.tensor([1.0, 2.0, 1.0, 4.0, 2.5])\n"

_add(
    "histogram_int_bins",
    _DATA
    + """
h = torch.histogram(x, bins=4)
hist, edges = h.hist, h.bin_edges
shown = repr(h)
m = x.histogram(2)
""",
)
_add(
    "histogram_range_weight_density",
    _DATA
    + """
w = torch.tensor([1.0, 2.0, 1.0, 1.0, 0.5])
hist, edges = torch.histogram(x, bins=3, range=(0.0, 5.0), weight=w, density=True)
d = torch.histogram(x, 3, density=True)
""",
)
_add(
    "histogram_tensor_bins",
    _DATA
    + """
hist, edges = torch.histogram(x, torch.tensor([0.0, 1.5, 2.0, 5.0]))
unsorted = torch.histogram(x, bins=torch.tensor([3.0, 1.0, 2.0]))
""",
)
_add(
    "histogram_edges_on_boundaries",
    """
    x = torch.arange(0, 1, 0.01)
    a = torch.histc(x, bins=10)
    b = torch.histogram(x, bins=10)
    c = torch.histogram(x, bins=7, range=(0.1, 0.8))
    g = torch.Generator().manual_seed(1)
    r = torch.randn(1000, generator=g)
    d = torch.histc(r, bins=7)
    e = torch.histogram(r, bins=9)
    f = torch.histogram(r, bins=5, density=True, range=(-1.0, 2.0))
    """,
)
_add(
    "histogram_empty_and_flat",
    """
    x = torch.tensor([1.0, 2.0, 1.0, 4.0, 2.5], dtype=torch.float64)
    h = torch.histogram(x, bins=3, range=(2.0, 2.0))
    c = torch.histc(x, 3, min=2, max=2)
    e = torch.histogram(torch.tensor([]), 2)
    f = torch.histc(torch.tensor([]), bins=3)
    g = torch.histogram(torch.tensor([2.0, 2.0]), 2)
    """,
)
_add("histogram_weight_shape", _DATA + "h = torch.histogram(x, 3, weight=torch.ones(2))\n")
_add(
    "histogram_weight_dtype",
    _DATA + "h = torch.histogram(x, 3, weight=torch.ones(5, dtype=torch.float64))\n",
)
_add(
    "histogram_bins_dtype",
    _DATA + "h = torch.histogram(x, torch.tensor([0.0, 1.0], dtype=torch.float64))\n",
)
_add("histogram_range_reversed", _DATA + "h = torch.histogram(x, 3, range=(3.0, 1.0))\n")
_add("histogram_range_not_finite", _DATA + 'h = torch.histogram(x, 3, range=(float("nan"), 1.0))\n')
_add("histogram_int_input", "h = torch.histogram(torch.tensor([1, 2]), 3)\n")
_add(
    "histc_data_range_and_method",
    _DATA
    + """
a = torch.histc(x, bins=4)
b = torch.histc(x, bins=4, min=0, max=3)
c = x.histc(5, 1, 1)
d = torch.histc(torch.tensor([3.0, 3.0]), bins=3)
e = torch.histc(x)
""",
)
_add("histc_zero_bins", _DATA + "h = torch.histc(x, 0)\n")
_add("histc_max_below_min", _DATA + "h = torch.histc(x, 3, min=3, max=1)\n")
_add("histc_not_finite", _DATA + 'h = torch.histc(x, 3, min=float("inf"), max=1)\n')
_add("histc_int_input", "h = torch.histc(torch.tensor([1, 2, 1, 4, 2]), bins=4)\n")
_add(
    "bincount_dtypes",
    """
    i = torch.tensor([0, 1, 1, 3])
    a = torch.bincount(i)
    b = torch.bincount(i, weights=torch.tensor([0.5, 1.0, 1.0, 2.0]))
    c = torch.bincount(i, minlength=6)
    d = torch.tensor([2, 2]).bincount()
    e = i.bincount(torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64))
    f = torch.bincount(i, weights=torch.tensor([1, 2, 3, 4]))
    g = torch.bincount(torch.tensor([], dtype=torch.int64))
    h = torch.bincount(torch.tensor([], dtype=torch.int64), weights=torch.tensor([]), minlength=2)
    k = torch.bincount(torch.tensor([1, 2], dtype=torch.uint8), minlength=4)
    m = torch.bincount(i, weights=torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float16))
    """,
)
_add("bincount_negative", "a = torch.bincount(torch.tensor([-1, 1]))\n")
_add("bincount_two_dims", "a = torch.bincount(torch.tensor([[1, 1]]))\n")
_add("bincount_float_input", "a = torch.bincount(torch.tensor([1.0, 1.0]))\n")
_add("bincount_bool_input", "a = torch.bincount(torch.tensor([True, False]))\n")
_add("bincount_minlength_negative", "a = torch.bincount(torch.tensor([1, 2]), minlength=-1)\n")
_add(
    "bincount_weights_length",
    "a = torch.bincount(torch.tensor([1, 2]), weights=torch.tensor([1.0]))\n",
)

# A float32 ulp near 8 is 4.8e-7 and a float64 one 1.8e-15: the scaled differences from
# the exact decimals below move by hundreds for a one-ulp change, far past tolerance.
_add(
    "arange_float_step_values",
    """
    a = torch.arange(-8, 8, 0.1)
    at_zero = a[80] * 1e20
    err = (a.double() - torch.arange(-80, 80).double() / 10) * 1e9
    b = torch.arange(-8, 8, 0.1, dtype=torch.float64)
    err64 = (b - torch.arange(-80, 80).double() / 10) * 1e17
    c = torch.arange(0, 1, 0.01)
    err_c = (c.double() - torch.arange(100).double() / 100) * 1e10
    d = torch.arange(10.0, 0, -0.3)
    e = torch.arange(0.5, 10.3, 0.7, dtype=torch.float64)
    """,
)
_add(
    "arange_sizes_and_integer_outputs",
    """
    sizes = [len(torch.arange(0, 1, 0.1)), len(torch.arange(1, 2.5, 0.5))]
    size_3 = len(torch.arange(0, 0.3, 0.1))
    i = torch.arange(0, 10, 1.5, dtype=torch.int64)
    j = torch.arange(0.5, 10, 1.5, dtype=torch.int64)
    k = torch.arange(5, 0, -1.5, dtype=torch.int64)
    h = torch.arange(0, 5, 0.5, dtype=torch.float16)
    n = torch.arange(10)
    """,
)
_add(
    "arange_long_chunks",
    """
    a = torch.arange(0, 40000, 0.37)
    s = a.double().sum()
    tail = (a[-20:].double() - (torch.arange(108089, 108109).double() * 0.37)) * 1e4
    """,
)
_add(
    "range_deprecated_values",
    """
    a = torch.range(0, 1, 0.1)
    b = torch.range(-8, 8, 0.1)
    err = (b.double() - torch.arange(-80, 81).double() / 10) * 1e9
    c = torch.range(0, 5)
    d = torch.range(0, 5, dtype=torch.int64)
    """,
)
_add("range_zero_step", "a = torch.range(0, 1, 0)\n")
_add("range_inconsistent_sign", "a = torch.range(1, 0)\n")
_add(
    "linspace_symmetric_values",
    """
    a = torch.linspace(-8, 8, 161)
    err = (a.double() - torch.arange(-80, 81).double() / 10) * 1e9
    b = torch.linspace(0.1, 0.9, 33, dtype=torch.float64)
    c = torch.linspace(3, 1, 9)
    """,
)

_add(
    "legacy_reduction_modules",
    """
    ms = [
        torch.nn.NLLLoss(size_average=True, reduce=False),
        torch.nn.BCELoss(size_average=False, reduce=True),
        torch.nn.L1Loss(reduce=True),
        torch.nn.SmoothL1Loss(size_average=False),
        torch.nn.BCEWithLogitsLoss(reduce=False),
        torch.nn.KLDivLoss(size_average=False),
        torch.nn.HuberLoss(),
        torch.nn.MSELoss(size_average=False, reduce=False),
        torch.nn.CrossEntropyLoss(size_average=False),
    ]
    r = [m.reduction for m in ms]
    """,
)
_add(
    "legacy_reduction_module_forward",
    """
    m = torch.nn.MSELoss(size_average=False)
    x = torch.tensor([0.5, 0.2], requires_grad=True)
    y = m(x, torch.tensor([1.0, 0.0]))
    y.backward()
    c = torch.nn.CrossEntropyLoss(reduce=False)
    z = c(torch.tensor([[0.5, 0.2], [0.1, 0.3]], requires_grad=True), torch.tensor([1, 0]))
    """,
)
_add(
    "legacy_reduction_functional",
    """
    F = torch.nn.functional
    x = torch.tensor([[0.5, 0.2], [0.1, 0.3]], requires_grad=True)
    t = torch.tensor([1, 0])
    a = F.nll_loss(x, t, size_average=False)
    b = F.cross_entropy(x, t, reduce=False)
    i = F.cross_entropy(x, t, size_average=False)
    p, q = torch.tensor([0.5, 0.25]), torch.tensor([1.0, 0.0])
    c = F.binary_cross_entropy(p, q, reduce=False)
    d = F.smooth_l1_loss(p, q, size_average=False)
    e = F.kl_div(torch.tensor([-0.5]), torch.tensor([0.3]), size_average=False)
    f = F.l1_loss(p, q, size_average=True, reduce=True)
    g = F.binary_cross_entropy_with_logits(p, q, size_average=False)
    h = F.mse_loss(p, q, size_average=False)
    (a + i).backward()
    """,
)

_add(
    "gradcheck_fast_mode_passes",
    """
    torch.manual_seed(0)
    x = torch.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([0.3, -0.2], dtype=torch.float64, requires_grad=True)
    ok = torch.autograd.gradcheck(lambda a, b: (a @ b).tanh(), (x, w), fast_mode=True)
    ok2 = torch.autograd.gradgradcheck(lambda a, b: (a @ b).tanh(), (x, w), fast_mode=True)
    ok3 = torch.autograd.gradgradcheck(lambda a, b: (a @ b).sin(), (x, w))
    ok4 = torch.autograd.gradcheck(lambda t: (t * t).sum(), (w,), fast_mode=True)
    after = torch.rand(3)
    """,
)
_WRONG = """
x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
class Wrong(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2, t.sum()
    @staticmethod
    def backward(ctx, g, h):
        return g * 3 + h
"""
_add(
    "gradcheck_fast_mode_mismatch",
    _WRONG + "ok = torch.autograd.gradcheck(Wrong.apply, (x,), fast_mode=True)\n",
)
_add(
    "gradcheck_fast_mode_returns_false",
    _WRONG
    + "ok = torch.autograd.gradcheck(Wrong.apply, (x,), fast_mode=True, raise_exception=False)\n",
)
_add(
    "gradcheck_fast_mode_slow_would_pass",
    """
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    class Close(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2
        @staticmethod
        def backward(ctx, g):
            return g * 2.00001
    ok = torch.autograd.gradcheck(Close.apply, (x,), fast_mode=True, atol=1e-7, rtol=1e-7)
    """,
)
_SECOND = """
x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
class WrongSecond(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t ** 2
    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * 2 * t.detach()
torch.manual_seed(1)
"""
_add(
    "gradgradcheck_fast_mode_mismatch",
    _SECOND + "ok = torch.autograd.gradgradcheck(WrongSecond.apply, (x,), fast_mode=True)\n",
)
_add(
    "gradgradcheck_fast_mode_returns_false",
    _SECOND
    + """
ok = torch.autograd.gradgradcheck(WrongSecond.apply, (x,), fast_mode=True, raise_exception=False)
after = torch.rand(2)
""",
)

_add(
    "generator_draws_match",
    """
    g = torch.Generator()
    g.manual_seed(3)
    s = g.initial_seed()
    a = torch.rand(3, generator=g)
    b = torch.randn(40, generator=g)
    c = torch.randint(0, 10, (5,), generator=g)
    c2 = torch.randint(5, (2, 3), generator=g)
    d = torch.randperm(7, generator=g)
    d2 = torch.randperm(100, generator=g)
    h = torch.rand(2, 2, dtype=torch.float64, generator=g)
    k = torch.randn(3, dtype=torch.float64, generator=g)
    """,
)
_add(
    "generator_multinomial",
    """
    g = torch.Generator().manual_seed(7)
    p = torch.tensor([0.1, 0.2, 0.3, 0.4])
    e = torch.multinomial(p, 6, replacement=True, generator=g)
    f = torch.multinomial(p, 3, generator=g)
    q = torch.rand(5, 50, generator=g)
    rows = torch.multinomial(q, 20, generator=g)
    many = torch.multinomial(q, 100, True, generator=g)
    one = torch.multinomial(q[0], 1, generator=g)
    m = q.multinomial(3, generator=g)
    z = torch.multinomial(torch.tensor([0.5, 0.0, 0.5, 0.0]), 2, generator=g)
    """,
)
_add(
    "generator_state_roundtrip",
    """
    g = torch.Generator().manual_seed(42)
    st = g.get_state()
    info = (str(st.dtype), tuple(st.shape))
    a = torch.rand(3, generator=g)
    g.set_state(st)
    b = torch.rand(3, generator=g)
    same = bool((a == b).all())
    dev = str(g.device)
    fresh = torch.Generator()
    s = fresh.seed()
    kept = s == fresh.initial_seed()
    """,
    ignore_values=("s",),
)
_add(
    "generator_alongside_global",
    """
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    a = torch.rand(5)
    b = torch.rand(5, generator=g)
    same = bool((a == b).all())
    u = torch.empty(4).uniform_(generator=g)
    n = torch.empty(4).normal_(generator=g)
    bern = torch.bernoulli(torch.full((6,), 0.5), generator=g)
    p = torch.full((5,), 0.5, requires_grad=True)
    drawn = torch.bernoulli(p)
    drawn.sum().backward()
    """,
)
_add("multinomial_negative", "e = torch.multinomial(torch.tensor([0.1, -0.2]), 1)\n")
_add("multinomial_too_many", "e = torch.multinomial(torch.tensor([0.1, 0.2]), 3)\n")
_add("multinomial_all_zero", "e = torch.multinomial(torch.tensor([0.0, 0.0]), 1)\n")
_add(
    "setitem_second_order",
    """
    v = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    t = torch.zeros(3, 3)
    t[1] = v.sin()
    t[[0, 2]] = v.reshape(1, 1, 3) * v
    go = torch.ones(3, 3, requires_grad=True)
    (g,) = torch.autograd.grad(t, v, go, create_graph=True)
    # values only: the versions of tensors made inside backward are PyTorch's internals
    h = torch.autograd.grad(g.sum(), go, retain_graph=True)[0].tolist()
    k = torch.autograd.grad(g.sum(), v)[0].tolist()
    """,
    ignore_graph=("g",),
)
_add(
    "tensor_from_range",
    """
    a = torch.tensor(range(5))
    b = torch.tensor([range(2), range(2, 4)], dtype=torch.float32)
    c = torch.tensor(range(0))
    x = torch.arange(10.0)
    d = x[torch.tensor(range(0, 10, 3))]
    """,
)
_add("setitem_list_value", "t = torch.zeros(2, 3)\nt[0] = [1, 2, 3]\n")
_add("setitem_ndarray_value", "import numpy as np\nt = torch.zeros(2, 3)\nt[0] = np.ones(3)\n")
_add(
    "setitem_index_dtype_mismatch",
    "t = torch.zeros(2, 3, dtype=torch.int64)\nt[[0, 1], [1, 2]] = torch.tensor([1.7, 2.2])\n",
)
_add(
    "setitem_numbers_and_masks",
    """
    import numpy as np
    t = torch.zeros(2, 3, dtype=torch.int64)
    t[0] = 3.9
    t[1, [0, 2]] = np.int64(4)
    f = torch.zeros(2, 3)
    f[0] = np.float64(2.5)
    m = torch.tensor([[True, False, True], [False, False, True]])
    v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    f[m] = v
    f.sum().backward()
    f2 = torch.zeros(2, 3)
    f2[f2 == 0] = torch.tensor(2.0, requires_grad=True)
    x = torch.arange(6.0).reshape(2, 3)
    y = x[[0, 1], ...]
    z = x[..., [0, 2]]
    w = x[None, [1, 0]]
    """,
)
_add("setitem_leaf_requires_grad", "x = torch.ones(3, requires_grad=True)\nx[[0, 1]] = 2.0\n")
_add(
    "setitem_leaf_under_no_grad",
    """
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        x[[0, 1]] = 2.0
        x[2] = 5.0
    y = x[[0, 2]]
    (y * 2).sum().backward()
    """,
)
_add(
    "bincount_weights_require_grad",
    """
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.bincount(torch.tensor([0, 1, 1]), weights=torch.cat([w, w[:1]]))
    c = torch.bincount(torch.tensor([0, 1]), weights=w.double())
    with torch.no_grad():
        d = torch.bincount(torch.tensor([0, 1]), weights=w)
    b.sum().backward()
    """,
)
