"""``engine.cpu_gemm``: the engine's own kernels for ``a @ w.T + bias`` and ``g.T @ x``.
Their sums are their own, so each is checked against a long-double reference within the
error bound of its order, for every tile edge (for the first, rows mod 4, columns mod 3,
the inner dim mod 8; for the second, rows mod 6 and columns mod 16); an output's bits
must not depend on where it sits in the product; IEEE specials propagate as NumPy's do;
and the entry points decline what the kernels do not take."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import engine
from engine import cpu_gemm

DTYPES = [np.float32, np.float64]


@pytest.fixture
def any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every size taken, whatever NumPy's BLAS threads (the kernel's bits do not change)."""
    monkeypatch.setattr(cpu_gemm, "ONE_THREAD_MACS", 2**62)
    monkeypatch.setattr(cpu_gemm, "MAX_WEIGHT_BYTES", 2**62)
    monkeypatch.setattr(cpu_gemm, "MIN_TN_OUT", 1)


def _operands(dtype: type, m: int, k: int, n: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(dtype)
    w = (rng.standard_normal((n, k)) * 10.0 ** rng.integers(-3, 3, (n, 1))).astype(dtype)
    return a, w, rng.standard_normal(n).astype(dtype)


def _kernel_runs() -> bool:
    a, w, b = _operands(np.float32, 1, cpu_gemm.MIN_K, 1)
    return cpu_gemm.linear(a, w, b) is not None


needs_kernel = pytest.mark.skipif(
    not _kernel_runs(), reason="the kernel is not compiled, or this CPU lacks AVX2 and FMA"
)

SHAPES = [
    (m, k, n)
    for m in (1, 3, 4, 5, 8, 13)
    for k in (256, 257, 263, 264, 300)
    for n in (1, 2, 3, 4, 7)
]


@needs_kernel
@pytest.mark.usefixtures("any_size")
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_tile_edge_is_within_the_error_bound(dtype: type) -> None:
    eps = np.finfo(dtype).eps
    for m, k, n in [*SHAPES, (64, 784, 256), (61, 1000, 95)]:
        a, w, b = _operands(dtype, m, k, n, seed=m * 1000 + k + n)
        got = cpu_gemm.linear(a, w, b)
        assert got is not None and got.shape == (m, n) and got.dtype == dtype
        assert got.flags.c_contiguous
        exact = a.astype(np.longdouble) @ w.T.astype(np.longdouble) + b
        scale = np.abs(a).astype(np.float64) @ np.abs(w.T).astype(np.float64) + np.abs(b)
        bound = (k // 8 + 8 + 4) * eps * scale  # lanes, then the pairwise adds, tail, bias
        assert (np.abs(got - exact) <= bound).all(), (m, k, n)


@needs_kernel
@pytest.mark.usefixtures("any_size")
@pytest.mark.parametrize("dtype", DTYPES)
def test_an_output_has_the_same_bits_wherever_it_sits(dtype: type) -> None:
    """A row alone, a column alone, or a slice of either: the same dot products, bit for bit."""
    a, w, b = _operands(dtype, 13, 301, 11, seed=3)
    full = cpu_gemm.linear(a, w, b)
    for i in range(13):
        assert cpu_gemm.linear(a[i : i + 1], w, b).tobytes() == full[i : i + 1].tobytes()
    for j0, j1 in ((0, 1), (3, 5), (2, 11), (10, 11)):
        part = cpu_gemm.linear(a, np.ascontiguousarray(w[j0:j1]), b[j0:j1].copy())
        assert part.tobytes() == np.ascontiguousarray(full[:, j0:j1]).tobytes()
    rows = cpu_gemm.linear(np.ascontiguousarray(a[5:]), w, b)
    assert rows.tobytes() == full[5:].tobytes()


@needs_kernel
@pytest.mark.usefixtures("any_size")
@pytest.mark.parametrize("dtype", DTYPES)
def test_specials_propagate_as_numpys(dtype: type) -> None:
    a, w, b = _operands(dtype, 6, 260, 5, seed=4)
    a[0, 3], a[1, 259], w[2, 7], b[4] = np.nan, np.inf, -np.inf, np.nan
    a[5] = 0.0
    w[3, 100] = np.inf  # 0 * inf in row 5
    got = cpu_gemm.linear(a, w, b)
    with np.errstate(all="ignore"):
        want = a @ w.T + b
    assert (np.isnan(got) == np.isnan(want)).all()
    finite = ~np.isnan(want)
    assert (np.isinf(got[finite]) == np.isinf(want[finite])).all()
    assert (np.sign(got[np.isinf(want)]) == np.sign(want[np.isinf(want)])).all()


@needs_kernel
def test_what_the_kernel_declines() -> None:
    a, w, b = _operands(np.float32, 4, 256, 3)
    f64 = a.astype(np.float64)
    declined = [
        cpu_gemm.linear(a[:, :255].copy(), w[:, :255].copy(), b),  # inner dim below MIN_K
        cpu_gemm.linear(f64, w, b),  # dtypes differ
        cpu_gemm.linear(a.astype(np.float16), w.astype(np.float16), b.astype(np.float16)),
        cpu_gemm.linear(np.asfortranarray(a), w, b),  # not C-contiguous
        cpu_gemm.linear(a, np.asfortranarray(w), b),
        cpu_gemm.linear(a, w, b[:2].copy()),  # a bias of another length
        cpu_gemm.linear(a, w, b[None]),  # a 2-D bias
        cpu_gemm.linear(a, w[:, :200].copy(), b),  # inner dims differ
        cpu_gemm.linear(a[:0], w, b),  # no rows
        cpu_gemm.linear(a, np.zeros((1025, 256), np.float32), np.zeros(1025, np.float32)),
    ]
    assert declined == [None] * len(declined)


@needs_kernel
def test_a_product_that_blas_would_thread_is_left_to_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above OpenBLAS's one-thread bound the kernel runs only where OpenBLAS reports one
    thread: it would lose to several."""
    a, w, b = _operands(np.float32, 8, 256, 4)
    monkeypatch.setattr(cpu_gemm, "ONE_THREAD_MACS", 0)
    threads = cpu_gemm.blas_threads()
    assert (cpu_gemm.linear(a, w, b) is None) == (threads != 1)
    address = cpu_gemm.blas_threads_address()
    if address:
        assert ctypes.CFUNCTYPE(ctypes.c_int)(address)() == threads


def test_pure_python_keeps_numpy() -> None:
    if cpu_gemm.COMPILED:
        pytest.skip("compiled here")
    a, w, b = _operands(np.float32, 4, 256, 3)
    assert cpu_gemm.linear(a, w, b) is None and cpu_gemm.blas_threads() == -1


@needs_kernel
@pytest.mark.usefixtures("any_size")
def test_linear_returns_the_kernels_product_with_its_graph() -> None:
    """``F.linear`` takes the kernel's product; its node and gradients are addmm's."""
    a, w, b = _operands(np.float32, 16, 300, 12, seed=6)
    x = engine.tensor(a, requires_grad=True)
    wt, bt = engine.tensor(w, requires_grad=True), engine.tensor(b, requires_grad=True)
    out = engine.nn.functional.linear(x, wt, bt)
    assert out._data.tobytes() == cpu_gemm.linear(a, w, b).tobytes()
    assert out.grad_fn.name() == "AddmmBackward0" and out.is_contiguous()
    out.sum().backward()
    assert np.allclose(x.grad.numpy(), np.broadcast_to(w.sum(0), a.shape), rtol=1e-5, atol=1e-4)
    assert np.allclose(wt.grad.numpy(), np.broadcast_to(a.sum(0), w.shape), rtol=1e-5, atol=1e-4)
    assert np.array_equal(bt.grad.numpy(), np.full(12, 16, np.float32))


@needs_kernel
@pytest.mark.usefixtures("any_size")
@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_of_a_transposed_operand_is_linear_without_its_bias(dtype: type) -> None:
    """``x @ w.t()`` takes ``linear``'s kernel: the same sums, the bias added after."""
    a, w, b = _operands(dtype, 9, 300, 7, seed=8)
    product = cpu_gemm.matmul(a, w.T)
    assert product is not None and product.flags.c_contiguous
    assert cpu_gemm.linear(a, w, b).tobytes() == np.add(product, b).tobytes()


TN_SHAPES = [
    (k, m, n) for k in (1, 2, 7, 64, 128) for m in (1, 5, 6, 7, 13) for n in (1, 8, 15, 16, 17, 40)
]


@needs_kernel
@pytest.mark.usefixtures("any_size")
def test_the_weight_gradient_is_within_the_error_bound() -> None:
    """``g.t() @ x`` (float32): one chain of fused multiply-adds per output, in k order."""
    eps = np.finfo(np.float32).eps
    for k, m, n in [*TN_SHAPES, (64, 256, 784), (128, 31, 300)]:
        g, x, _ = _operands(np.float32, k, m, 1, seed=k * 100 + m + n)
        x = _operands(np.float32, k, n, 1, seed=k + m * n)[0]
        got = cpu_gemm.matmul(g.T, x)
        assert got is not None and got.shape == (m, n) and got.flags.c_contiguous, (k, m, n)
        exact = g.T.astype(np.longdouble) @ x.astype(np.longdouble)
        scale = np.abs(g.T).astype(np.float64) @ np.abs(x).astype(np.float64)
        assert (np.abs(got - exact) <= (k + 2) * eps * scale).all(), (k, m, n)


@needs_kernel
@pytest.mark.usefixtures("any_size")
def test_a_weight_gradient_entry_has_the_same_bits_wherever_it_sits() -> None:
    g = _operands(np.float32, 70, 19, 1, seed=9)[0]
    x = _operands(np.float32, 70, 37, 1, seed=10)[0]
    full = cpu_gemm.matmul(g.T, x)
    for i0, i1 in ((0, 1), (5, 12), (18, 19)):
        rows = cpu_gemm.matmul(np.ascontiguousarray(g[:, i0:i1]).T, x)
        assert rows.tobytes() == full[i0:i1].tobytes()
    for j0, j1 in ((0, 16), (3, 20), (36, 37)):
        cols = cpu_gemm.matmul(g.T, np.ascontiguousarray(x[:, j0:j1]))
        assert cols.tobytes() == np.ascontiguousarray(full[:, j0:j1]).tobytes()


@needs_kernel
@pytest.mark.usefixtures("any_size")
def test_a_weight_gradient_propagates_specials_as_numpys() -> None:
    g = _operands(np.float32, 9, 8, 1, seed=11)[0]
    x = _operands(np.float32, 9, 20, 1, seed=12)[0]
    g[0, 1], g[3, 2], x[4, 5], x[8, 19] = np.nan, np.inf, -np.inf, np.inf
    g[:, 7] = 0.0
    x[2, 11] = np.inf  # 0 * inf in row 7
    got = cpu_gemm.matmul(g.T, x)
    with np.errstate(all="ignore"):
        want = g.T @ x
    assert (np.isnan(got) == np.isnan(want)).all()
    assert (got[np.isinf(want)] == want[np.isinf(want)]).all()


@needs_kernel
def test_what_matmul_declines() -> None:
    g = _operands(np.float32, 64, 256, 1)[0]
    x = _operands(np.float32, 64, 256, 1, seed=1)[0]
    declined = [
        cpu_gemm.matmul(g.T.astype(np.float64), x.astype(np.float64)),  # float32 only
        cpu_gemm.matmul(np.ascontiguousarray(g.T), x),  # both C-contiguous: NumPy's
        cpu_gemm.matmul(g.T[::2], x),  # a view that is neither layout
        cpu_gemm.matmul(g.T, x[:, :100]),  # fewer outputs than MIN_TN_OUT
        cpu_gemm.matmul(np.zeros((256, 129), np.float32).T, np.zeros((129, 256), np.float32)),
        cpu_gemm.matmul(g.T, x.astype(np.float64)),
        cpu_gemm.matmul(g.T[:0], x[:, :0]),
        cpu_gemm.matmul(g[:, :100].copy(), x[:, :100].T),  # x @ w.t(), inner dim below MIN_K
    ]
    assert declined == [None] * len(declined)


@needs_kernel
@pytest.mark.usefixtures("any_size")
def test_a_linear_layers_weight_gradient_takes_the_kernel() -> None:
    """``F.linear``'s weight gradient is the kernel's ``g.t() @ x``, seen through ``t()``."""
    a, w, b = _operands(np.float32, 32, 300, 20, seed=13)
    x = engine.tensor(a)
    wt, bt = engine.tensor(w, requires_grad=True), engine.tensor(b, requires_grad=True)
    out = engine.nn.functional.linear(x, wt, bt)
    g = _operands(np.float32, 32, 20, 1, seed=14)[0]
    out.backward(engine.tensor(g))
    assert wt.grad._data.tobytes() == cpu_gemm.matmul(g.T, a).tobytes()
    assert wt.grad.is_contiguous() and wt.grad.shape == wt.shape
