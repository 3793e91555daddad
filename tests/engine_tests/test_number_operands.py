"""A Python number in tensor arithmetic reaches NumPy as a cached 0-d array of the
tensor's dtype (``kernel_dtypes.number_operand``): the bits must be those of the
Python number itself, forward and backward, and PyTorch's where the engine already
agreed with it (float32, float64; float16 differs in ATen's float opmath)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine
from engine.ops.kernel_dtypes import number_operand

NUMBERS = (1.0001, 0.001, -0.0, 0.0, float("nan"), float("inf"), -float("inf"), 1e300, -1e-300)
NUMBERS += (3, -7, 2**31, 2**60, 1e-50, 65504.0, 65520.0, 0.1, 1 / 3)
EXPRS: dict[str, Callable[[Any, Any], Any]] = {
    "x*k": lambda x, k: x * k,
    "k*x": lambda x, k: k * x,
    "x+k": lambda x, k: x + k,
    "x-k": lambda x, k: x - k,
    "k-x": lambda x, k: k - x,
    "x/k": lambda x, k: x / k,
    "mul": lambda x, k: x.mul(k),
    "div": lambda x, k: x.div(k),
    "add": lambda x, k: x.add(k),
    "sub": lambda x, k: x.sub(k),
}
DTYPES = ("float16", "float32", "float64")


def _values() -> list[float]:
    rng = np.random.default_rng(7)
    parts = [rng.standard_normal(6) * s for s in (1e-3, 1.0, 1e3)]
    return [*np.concatenate(parts).tolist(), 0.0, -0.0, float("inf"), -float("inf"), 1e30]


def _run(lib: Any, dtype: str, expr: str, k: Any) -> tuple[bytes, bytes]:
    x = lib.tensor(_values(), dtype=getattr(lib, dtype), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's overflow warnings are not the point here
        y = EXPRS[expr](x, k)
        y.sum().backward()
    return y.detach().numpy().tobytes(), x.grad.numpy().tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", NUMBERS, ids=repr)
def test_operand_rounds_as_the_number(dtype: str, k: Any) -> None:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        a = np.asarray(_values(), dtype)
        operand = number_operand(k, a.dtype)
        for ufunc in (np.multiply, np.add, np.subtract, np.true_divide):
            assert ufunc(a, operand).tobytes() == ufunc(a, k).tobytes()
            assert ufunc(operand, a).tobytes() == ufunc(k, a).tobytes()


def test_operand_keeps_what_the_cache_cannot_tell_apart() -> None:
    f32 = np.dtype(np.float32)
    assert type(number_operand(-0.0, f32)) is float  # a key equal to 0.0's
    assert type(number_operand(float("nan"), f32)) is float
    assert type(number_operand(1e300, f32)) is float  # NumPy warns at the op, as before
    assert type(number_operand(2**1030, f32)) is int  # NumPy raises at the op, as before
    assert number_operand(1.5, f32) is number_operand(1.5, f32)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ("float32", "float64"))
@pytest.mark.parametrize("expr", EXPRS)
def test_scalar_arithmetic_matches_pytorch(dtype: str, expr: str) -> None:
    torch = pytest.importorskip("torch")
    for k in NUMBERS:
        assert _run(engine, dtype, expr, k) == _run(torch, dtype, expr, k), k
