"""``nll_loss`` (and so ``cross_entropy``) with PyTorch's bits: the reduced loss summed in
ATen's cascade (``engine.ops.nll_cascade``), ignored rows giving ``+0.0`` forward and
backward, the mean's gradient ``w * -(grad / total_weight)``, a 1-D input reduced to a
0-d loss.  PyTorch 2.13's answers are written out; a live oracle covers random cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import engine
from engine import cpu_loops
from engine.ops import nll_cascade

F = engine.nn.functional


def _data(b: int, c: int, dt: type = np.float32) -> np.ndarray:
    """Values of many magnitudes, so that the order of the additions shows in the bits."""
    i = np.arange(b * c)
    return (((i * 0.37) % 1.9 - 0.8) * 10.0 ** ((i % 7) - 3)).astype(dt).reshape(b, c)


def _targets(b: int, c: int, ignore: int = -100, every: int = 0) -> np.ndarray:
    t = (np.arange(b) * 7 + 3) % c
    if every:
        t[::every] = ignore
    return t


#: (batch, classes, dtype, reduction, weight, ignore_index, every n-th row ignored): the
#: loss PyTorch 2.13 returns, as ``float.hex``.  A plain sum in another order differs in the
#: last bit for the last three.
CASCADE = [
    ((40, 3, np.float32, "sum", None, -100, 0), "-0x1.56d6e40000000p+7"),
    ((40, 3, np.float32, "mean", None, -100, 0), "-0x1.1245840000000p+2"),
    ((300, 4, np.float32, "sum", None, 1, 5), "-0x1.3a76ee0000000p+12"),
    ((33, 3, np.float32, "mean", (0.5, 3.0, 0.1), 2, 4), "-0x1.4c18c00000000p+6"),
    ((257, 2, np.float64, "sum", (1.5, 0.25), -100, 0), "-0x1.8953ccf6be3bbp+12"),
]


@pytest.mark.parametrize(("case", "expected"), CASCADE, ids=[str(c[0][:5]) for c in CASCADE])
def test_the_loss_is_summed_as_aten_sums_it(case: tuple, expected: str) -> None:
    b, c, dt, reduction, weight, ignore, every = case
    kw: dict = {"reduction": reduction, "ignore_index": ignore}
    if weight is not None:
        kw["weight"] = engine.tensor(np.array(weight, dt))
    loss = F.nll_loss(
        engine.tensor(_data(b, c, dt)), engine.tensor(_targets(b, c, ignore, every)), **kw
    )
    assert float(loss).hex() == expected


def _bits(a: np.ndarray) -> list[str]:
    return [float(v).hex() for v in np.asarray(a, np.float64).reshape(-1)]


def test_ignored_rows_give_positive_zeros() -> None:
    x = engine.tensor([[1.0, -2.0], [3.0, 0.5], [-1.5, 2.0]], requires_grad=True)
    target = engine.tensor([0, -100, 1])
    out = F.nll_loss(x, target, reduction="none")
    assert _bits(out.detach().numpy()) == [
        "-0x1.0000000000000p+0",
        "0x0.0p+0",
        "-0x1.0000000000000p+1",
    ]
    out.backward(engine.tensor([2.0, 5.0, -0.0]))
    assert _bits(x.grad.numpy()) == [
        "-0x1.0000000000000p+1", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0", "0x0.0p+0",
    ]  # fmt: skip
    x.grad = None
    F.nll_loss(x, target).backward()
    assert _bits(x.grad.numpy())[2:4] == ["0x0.0p+0", "0x0.0p+0"]


def test_every_row_ignored() -> None:
    """PyTorch's mean is 0/0, a NaN, but the gradient stays zero: no row is written."""
    x = engine.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    weight = engine.tensor([2.0, 0.5])
    loss = F.nll_loss(x, engine.tensor([1, 1]), weight=weight, ignore_index=1)
    assert np.isnan(loss.item())
    loss.backward()
    assert _bits(x.grad.numpy()) == ["0x0.0p+0"] * 4


def test_a_zero_weight_still_divides() -> None:
    """A kept row of weight 0 makes the total 0: its gradient is ``0 * -(g / 0)``, NaN."""
    x = engine.tensor([[1.0, 2.0]], requires_grad=True)
    F.nll_loss(x, engine.tensor([0]), weight=engine.tensor([0.0, 1.0])).backward()
    assert np.isnan(x.grad[0, 0].item()) and x.grad[0, 1].item() == 0.0


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("target", [[1], 1])
def test_a_1d_input_gives_a_0d_loss(reduction: str, target: object) -> None:
    loss = F.nll_loss(engine.tensor([0.5, -1.5, 2.0]), engine.tensor(target), reduction=reduction)
    assert loss.shape == () and loss.item() == 1.5


def test_numpy_scalars_keep_their_dtype_in_tensor() -> None:
    """``np.float64`` is a Python float, but PyTorch reads NumPy scalars first."""
    assert engine.tensor(np.float64(3.3)).dtype is engine.float64
    assert engine.tensor([1.0, np.float64(2.0)]).dtype is engine.float64
    assert engine.tensor([np.float16(1.0), 2.0]).dtype is engine.float32
    assert engine.tensor([np.int32(1), 2]).dtype is engine.int64
    assert engine.as_tensor(np.float64(2.0)).dtype is engine.float64
    assert engine.tensor(2.5).dtype is engine.float32


@pytest.mark.skipif(not cpu_loops.COMPILED, reason="the loop runs only compiled")
@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_cascade_is_the_numpy_one(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(50):
        b, c = int(rng.choice([1, 2, 15, 16, 17, 64, 255, 256, 257, 1000, 4097])), 3
        x = (rng.standard_normal((b, c)) * 10 ** rng.uniform(-3, 3, (b, 1))).astype(
            rng.choice([np.float32, np.float64])
        )
        t = rng.integers(0, c, b)
        ignore = int(rng.choice([-100, 0]))
        t[rng.random(b) < rng.random()] = ignore
        weight = None if rng.random() < 0.5 else rng.choice([0.0, 0.5, 3.0], c).astype(x.dtype)
        want = nll_cascade.emulate(x, t, weight, ignore)
        power = nll_cascade.level_power(b)
        got = cpu_loops.nll_reduce(x, t, weight, ignore, power)
        assert got is not None
        assert _bits(np.array(got, x.dtype)) == _bits(np.array(want, x.dtype))


def test_the_loop_declines_what_it_cannot_read() -> None:
    x = np.ones((3, 2), np.float32)
    assert cpu_loops.nll_reduce(x, np.array([0, 5, 1]), None, -100, 4) is None  # not a class
    assert cpu_loops.nll_reduce(x, np.array([0, 1, 1], np.int32), None, -100, 4) is None
    assert cpu_loops.nll_reduce(x, np.array([0, 1]), None, -100, 4) is None
    assert cpu_loops.nll_reduce(x, np.array([0, 1, 1]), None, 2**70, 4) is None


@pytest.mark.torch
@pytest.mark.parametrize("seed", range(3))
def test_random_losses_match_torch_bit_for_bit(seed: int) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    for _ in range(120):
        kind = rng.choice(["1d", "2d", "3d", "4d"])
        c, b = int(rng.integers(1, 5)), int(rng.choice([1, 3, 17, 40]))
        shape = {"1d": (c,), "2d": (b, c), "3d": (b, c, 3), "4d": (2, c, 2, 3)}[kind]
        tshape = {"1d": (), "2d": (b,), "3d": (b, 3), "4d": (2, 2, 3)}[kind]
        dt = rng.choice([np.float32, np.float64])
        x = (rng.standard_normal(shape) * 10 ** rng.uniform(-2, 2, shape)).astype(dt)
        x[rng.random(shape) < 0.1] = -0.0
        ignore = int(rng.choice([-100, 0, c - 1]))
        t = rng.integers(0, c, tshape)
        t = np.where(rng.random(tshape) < 0.3, ignore if ignore >= 0 else -100, t)
        weight = None if rng.random() < 0.5 else rng.choice([0.0, 0.5, 1.0, 3.0], c).astype(dt)
        reduction = str(rng.choice(["mean", "sum", "none"]))
        g = rng.choice([1.0, -0.7, 0.0, -0.0, 3.3], max(int(np.prod(tshape)), 1)).astype(dt)
        results = []
        for T in (torch, engine):
            xt = T.tensor(x, requires_grad=True)
            kw: dict = {"reduction": reduction, "ignore_index": ignore}
            if weight is not None:
                kw["weight"] = T.tensor(weight)
            loss = T.nn.functional.nll_loss(xt, T.tensor(t), **kw)
            loss.backward(T.tensor(g.reshape(tuple(loss.shape)) if loss.ndim else g[0]))
            results.append(
                (tuple(loss.shape), _bits(loss.detach().numpy()), _bits(xt.grad.numpy()))
            )
        assert results[1] == results[0], (kind, reduction, ignore, weight)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_mean_divides_as_numpy_divides(dtype: type) -> None:
    """``loss / total`` through Python floats (``nn._divide``) gives NumPy's quotient bit for
    bit: double rounding of a float32 quotient is exact; past float32's range, at a zero
    total or with a NaN it is NumPy's division itself, and nothing warns."""
    from engine.ops.nn import _divide

    rng = np.random.default_rng(11)
    with np.errstate(all="ignore"):
        losses = (rng.standard_normal(3000) * 10.0 ** rng.integers(-40, 40, 3000)).astype(dtype)
        totals = (rng.random(3000) * 10.0 ** rng.integers(-40, 40, 3000)).astype(dtype)
    edges = [(0, 0), (-0.0, 3), (np.inf, 2), (np.nan, 2), (-np.inf, np.inf), (1, 0), (5e-45, 3)]
    pairs = [*zip(losses, totals, strict=True), *((dtype(a), dtype(b)) for a, b in edges)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = [_divide(a, b) for a, b in pairs]
    with np.errstate(all="ignore"):
        want = [a / b for a, b in pairs]
    assert [(type(g), g.tobytes()) for g in got] == [(type(w), w.tobytes()) for w in want]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_the_gradient_is_numpys_scatter(dtype: type, reduction: str) -> None:
    """The input's gradient, zeros with ``-g / n`` (or ``-g``) at each row's target, written
    by one loop (``cpu_loops.pick_rows``) with the bits of NumPy's expression, for seeds of
    many magnitudes, a negative zero, infinities and NaN."""
    from engine.ops.nn import _nll_grad_fwd

    rng = np.random.default_rng(5)
    seeds = [*(rng.standard_normal(40) * 10.0 ** rng.integers(-40, 40, 40)), -0.0, np.inf, np.nan]
    for b, c in ((64, 10), (3, 1), (1000, 7), (0, 4)):
        a, t = np.zeros((b, c), dtype), (np.arange(b) * 5 + 1) % c
        for seed in seeds:
            g = np.asarray(seed).astype(dtype)
            got = _nll_grad_fwd(np, g, a, t, None, reduction, -100, plain=True)
            want = np.zeros((b, c), dtype)
            with np.errstate(all="ignore"):
                want[np.arange(b), t] = -g / dtype(b) if reduction == "mean" else -g
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (b, c, seed)


@pytest.mark.skipif(not cpu_loops.COMPILED, reason="the loops run only compiled")
def test_the_scatter_declines_a_target_out_of_range() -> None:
    t = np.array([0, 3, 4], np.int64)
    assert cpu_loops.pick_rows(t, 1.0, 4, np.dtype(np.float32)) is None
    assert cpu_loops.pick_rows(t - 1, 1.0, 5, np.dtype(np.float32)) is None
    assert cpu_loops.pick_rows(t.astype(np.int32), 1.0, 5, np.dtype(np.float32)) is None
    assert cpu_loops.pick_rows(t, 1.0, 5, np.dtype(np.float16)) is None
    got = cpu_loops.pick_rows(t, 0.1, 5, np.dtype(np.float32))
    assert got.tobytes() == np.eye(5, dtype=np.float32)[t].__mul__(np.float32(0.1)).tobytes()
