"""Reductions and masking with PyTorch's bits, found by differential testing: a
float32 ``cumsum`` accumulates in double, a one-output ``var``/``std`` is ATen's
``std_var_all_cpu``, and ``where``/``masked_fill``/``clamp`` (tensor bounds) give a
masked-out gradient as ``+0.0`` (``where(pred, grad, 0)``), not ``grad * 0``.  PyTorch
2.13's answers are written out; a live oracle covers random cases."""

from __future__ import annotations

import numpy as np
import pytest

import engine


def _data(n: int, dt: type = np.float32) -> np.ndarray:
    """Values of many magnitudes, so that the order of the additions shows in the bits."""
    i = np.arange(n)
    return (((i * 0.37) % 1.9 - 0.8) * 10.0 ** ((i % 7) - 3)).astype(dt)


def _hex(t: engine.Tensor) -> list[str]:
    return [float(v).hex() for v in np.asarray(t.detach().numpy(), np.float64).reshape(-1)]


def test_float32_cumsum_accumulates_in_double() -> None:
    out = engine.tensor(_data(40)).cumsum(0)
    assert _hex(out)[-3:] == [
        "0x1.87f3460000000p+9",
        "0x1.87ee260000000p+9",
        "0x1.89948c0000000p+9",
    ]


#: correction: PyTorch 2.13's var and std of ``_data(40)`` in float32.
VAR_STD = {
    0: ("0x1.0373f80000000p+15", "0x1.6c78de0000000p+7"),
    1: ("0x1.0a1b0c0000000p+15", "0x1.711d820000000p+7"),
    2: ("0x1.111bc20000000p+15", "0x1.75f0c60000000p+7"),
}


@pytest.mark.parametrize("correction", list(VAR_STD))
def test_one_output_var_and_std_are_std_var_all_cpu(correction: int) -> None:
    x = engine.tensor(_data(40))
    var, std = VAR_STD[correction]
    assert _hex(x.var(correction=correction)) == [var]
    assert _hex(x.std(correction=correction)) == [std]


def test_one_output_over_a_dim_and_float64() -> None:
    x = engine.tensor(_data(40))
    assert _hex(x.reshape(8, 5).var()) == ["0x1.0a1b0c0000000p+15"]
    assert _hex(x.reshape(40, 1).var(0)) == ["0x1.0a1b0c0000000p+15"]
    std = x.reshape(40, 1).std(0, keepdim=True)
    assert tuple(std.shape) == (1, 1)
    assert _hex(std) == ["0x1.711d820000000p+7"]
    assert _hex(engine.tensor(_data(40, np.float64)).var()) == ["0x1.0a1b0b63ce6b0p+15"]


def _masking_inputs() -> tuple:
    a = engine.tensor([1.0, -2.0, 3.0, 0.5], requires_grad=True)
    b = engine.tensor([0.0, 1.0, -1.0, 2.0], requires_grad=True)
    m = engine.tensor([True, False, True, False])
    return a, b, m, engine.tensor([-1.0, -2.0, -3.0, -4.0])


def test_where_gives_positive_zeros_where_masked_out() -> None:
    a, b, m, g = _masking_inputs()
    engine.where(m, a, b).backward(g)
    assert _hex(a.grad) == [
        "-0x1.0000000000000p+0",
        "0x0.0p+0",
        "-0x1.8000000000000p+1",
        "0x0.0p+0",
    ]
    assert _hex(b.grad) == [
        "0x0.0p+0",
        "-0x1.0000000000000p+1",
        "0x0.0p+0",
        "-0x1.0000000000000p+2",
    ]


def test_masked_fill_gives_positive_zeros_where_filled() -> None:
    a, _, m, g = _masking_inputs()
    a.masked_fill(m, 0.5).backward(g)
    assert _hex(a.grad) == [
        "0x0.0p+0",
        "-0x1.0000000000000p+1",
        "0x0.0p+0",
        "-0x1.0000000000000p+2",
    ]


def test_clamp_with_tensor_bounds_gives_positive_zeros() -> None:
    a, _, _, g = _masking_inputs()
    lo = engine.zeros(4, requires_grad=True)
    hi = engine.full((4,), 2.0, requires_grad=True)
    a.clamp(lo, hi).backward(g)
    assert _hex(a.grad) == [
        "-0x1.0000000000000p+0",
        "0x0.0p+0",
        "0x0.0p+0",
        "-0x1.0000000000000p+2",
    ]
    assert _hex(lo.grad) == ["0x0.0p+0", "-0x1.0000000000000p+1", "0x0.0p+0", "0x0.0p+0"]
    assert _hex(hi.grad) == ["0x0.0p+0", "0x0.0p+0", "-0x1.8000000000000p+1", "0x0.0p+0"]
    a.grad = lo.grad = None
    a.clamp(min=lo).backward(g)
    expected = "-0x1.0000000000000p+0 0x0.0p+0 -0x1.8000000000000p+1 -0x1.0000000000000p+2"
    assert _hex(a.grad) == expected.split()
    assert _hex(lo.grad) == ["0x0.0p+0", "-0x1.0000000000000p+1", "0x0.0p+0", "0x0.0p+0"]


# -- the live oracle ------------------------------------------------------------------------
def _run(lib: object, name: str, x: np.ndarray, extra: np.ndarray, g: np.ndarray) -> tuple:
    a = lib.tensor(x, requires_grad=True)
    b = lib.tensor(extra, requires_grad=True)
    mask = lib.tensor(extra > 0)
    calls = {
        "cumsum0": lambda: a.cumsum(0),
        "cumsum1": lambda: a.cumsum(1),
        "var": lambda: a.var() * b.sum(),
        "std0": lambda: a.std(correction=0) * b.sum(),
        "where": lambda: lib.where(mask, a, b),
        "masked_fill": lambda: a.masked_fill(mask, -1.5) + b,
        "clamp": lambda: a.clamp(b, b + 1),
    }
    out = calls[name]()
    out.backward(lib.tensor(g) if out.dim() else None)
    return (
        type(out.grad_fn).__name__,
        out.detach().numpy().tobytes(),
        a.grad.numpy().tobytes(),
        None if b.grad is None else b.grad.numpy().tobytes(),
    )


@pytest.mark.torch
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize(
    "name", ["cumsum0", "cumsum1", "var", "std0", "where", "masked_fill", "clamp"]
)
def test_reductions_and_masks_agree_with_torch(name: str, dt: type) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (the live oracle)")
    rng = np.random.default_rng(13)
    x = (rng.standard_normal((30, 7)) * 10.0 ** rng.integers(-3, 4, (30, 7))).astype(dt)
    extra = rng.standard_normal((30, 7)).astype(dt)
    g = rng.standard_normal((30, 7)).astype(dt)
    assert _run(engine, name, x, extra, g) == _run(torch, name, x, extra, g)
