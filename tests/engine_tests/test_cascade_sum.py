"""Float sums and means agree bit for bit with PyTorch's CPU kernel (live oracle).

Random shapes from 1 to 10^6 elements, 1-D to 3-D, every single dim and all dims, with
and without keepdim, float32 and float64, through the engine's public ``sum``/``mean``.
PyTorch runs with the thread count the engine assumes, since above 32768 elements the
order of additions depends on it.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import engine
from engine import cascade_sum

torch = pytest.importorskip("torch", reason="PyTorch is not installed (the live oracle)")

pytestmark = pytest.mark.torch

SIZES = [*range(1, 70), 127, 128, 129, 255, 257, 1000, 2000, 4097, 32767, 32768, 32769]
SIZES += [65536, 100_003, 262_145, 1_000_000]


@pytest.fixture(autouse=True)
def _torch_threads() -> Iterator[None]:
    before = torch.get_num_threads()
    torch.set_num_threads(cascade_sum.num_threads())
    yield
    torch.set_num_threads(before)


def _same_bits(expected: np.ndarray, actual: np.ndarray) -> bool:
    width = np.uint32 if expected.dtype == np.float32 else np.uint64
    return expected.shape == actual.shape and np.array_equal(
        expected.view(width), actual.astype(expected.dtype).view(width)
    )


def _check(a: np.ndarray, dim: int | None, keepdim: bool, op: str) -> None:
    t, e = torch.from_numpy(a), engine.tensor(a)
    if dim is None:
        ref, got = getattr(t, op)(), getattr(e, op)()
    else:
        ref, got = getattr(t, op)(dim, keepdim=keepdim), getattr(e, op)(dim, keepdim=keepdim)
    assert _same_bits(ref.numpy(), np.asarray(got._data)), (a.shape, a.dtype, dim, keepdim, op)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_vector_sums_match_torch(n: int, dtype: type) -> None:
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4)).astype(dtype)
    for op in ("sum", "mean"):
        _check(a, None, False, op)
        _check(a, 0, True, op)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(30))
def test_matrix_and_3d_sums_match_torch(seed: int, dtype: type) -> None:
    rng = np.random.default_rng(1000 + seed)
    m, n = (int(v) for v in rng.integers(1, 300, 2))
    if seed % 5 == 0:
        m *= 60
    shapes = [(m, n), tuple(int(v) for v in rng.integers(1, 45, 3))]
    for shape in shapes:
        a = rng.standard_normal(shape).astype(dtype)
        for dim in [None, *range(a.ndim), -1]:
            for op in ("sum", "mean"):
                _check(a, dim, bool(rng.integers(2)), op)


def test_the_polynomial_tutorials_loss_prints_as_torch() -> None:
    """PyTorch's polynomial tutorial: 2000 points, ``(y_pred - y).pow(2).sum()``."""
    x = np.linspace(-np.pi, np.pi, 2000, dtype=np.float32)
    y = np.sin(x)
    coeffs = [0.1, -0.4, 0.3, -0.05]
    for T in (torch, engine):
        tx, ty = T.tensor(x), T.tensor(y)
        pred = coeffs[0] + coeffs[1] * tx + coeffs[2] * tx**2 + coeffs[3] * tx**3
        loss = (pred - ty).pow(2).sum()
        if T is torch:
            expected = loss.item()
        else:
            assert loss.item() == expected


BROADCASTS = [((7,), (n, 7)) for n in (3, 17, 100, 1000, 40000)] + [
    ((1, 7), (1000, 7)),
    ((1000, 1), (1000, 7)),
    ((), (5000,)),
    ((5, 1, 3), (5, 999, 3)),
]


@pytest.mark.parametrize(("small", "big"), BROADCASTS)
def test_broadcast_gradients_are_summed_back_in_pytorchs_order(
    small: tuple[int, ...], big: tuple[int, ...]
) -> None:
    """Backward sums a broadcast input's gradient with PyTorch's ``sum_to`` (one sum over
    the broadcast dims), so a Linear bias's ``.grad`` agrees to the last bit."""
    rng = np.random.default_rng(len(big) * 1000 + big[-1])
    x = rng.standard_normal(big).astype(np.float32)
    b = rng.standard_normal(small).astype(np.float32)
    grads = []
    for T in (torch, engine):
        leaf = T.tensor(b, requires_grad=True)
        ((T.tensor(x) + leaf) * T.tensor(x)).sum().backward()
        grads.append(np.asarray(leaf.grad.numpy()))
    assert _same_bits(grads[0], grads[1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    ("shape", "dim"),
    [((1, 1), 0), ((1, 1), 1), ((1, 17), 1), ((55, 1), 0), ((70000, 1), 0), ((1, 70000), 1)],
)
def test_a_dim_holding_every_element_sums_as_a_full_reduction(
    shape: tuple[int, ...], dim: int, dtype: type
) -> None:
    """``(n, 1).sum(0)`` is PyTorch's full reduction (split between threads above 32768
    elements), and keeps the other dims: ``(1, 1).sum(0)`` has shape ``(1,)``."""
    a = np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)
    for keepdim in (False, True):
        _check(a, dim, keepdim, "sum")


@pytest.mark.parametrize("shape", [(64, 256), (64, 10), (100, 3), (4096, 300), (300, 5, 40)])
def test_linear_bias_gradients_match_torch(shape: tuple[int, ...]) -> None:
    """A bias's gradient, the column sum of the output's, in PyTorch's order of additions;
    some gradients hold ``-0.0``, which the sum returns as ``0.0`` as PyTorch does."""
    rng = np.random.default_rng(shape[0])
    a = rng.standard_normal(shape).astype(np.float32)
    a[::3] = -0.0
    _check(a, 0, True, "sum")
    _check(a, 0, False, "sum")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [1, 2, 3, 5, 15, 16, 17, 33, 64, 65, 255, 256, 257])
@pytest.mark.parametrize("cols", [2, 3, 5, 10, 16, 32, 40, 64, 100])
def test_column_sums_over_few_rows_match_torch(rows: int, cols: int, dtype: type) -> None:
    """Column sums whose cascade has one level (a batch's bias gradient) take a short
    path of whole-row additions; its order is PyTorch's for every width, leftover rows
    and ``-0.0`` included."""
    rng = np.random.default_rng(rows * 1000 + cols)
    a = rng.standard_normal((rows, cols)).astype(dtype) * rng.choice([1e-6, 1.0, 1e6], (rows, 1))
    a[::4] = -0.0
    _check(a, 0, True, "sum")
    _check(a, 0, False, "sum")
