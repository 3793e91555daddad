"""NumPy scalars, arrays and ufuncs meeting tensors as they meet PyTorch's: a NumPy scalar on
the left defers to the tensor (``__array_priority__``), so ``np.sqrt(d) * x`` is a tensor with
its node; a NumPy array on the left of an arithmetic operator is refused; a ufunc of a tensor
gives a tensor; NumPy integers are ints in promotion.  PyTorch 2.13's answers written out."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import engine

#: expression -> PyTorch 2.13's repr (``torch.`` removed) or its error's type and first words.
CASES = {
    "np.float64(2) * T.ones(2)": "tensor([2., 2.])",
    "np.float32(2) + T.ones(2)": "tensor([3., 3.])",
    "np.int64(3) - T.ones(2, dtype=T.int64)": "tensor([2, 2])",
    "np.float64(3) / T.ones(2)": "tensor([3., 3.])",
    "np.float64(3) // T.ones(2)": "tensor([3., 3.])",
    "np.float64(3) % T.ones(2)": "tensor([0., 0.])",
    "np.int64(2) ** T.ones(2)": "tensor([2., 2.])",
    "np.float64(0.5) < T.ones(2)": "tensor([True, True])",
    "np.ones(2) == T.ones(2)": "tensor([True, True])",
    "np.sqrt(np.float64(4)) * T.ones(2, requires_grad=True)":
        "tensor([2., 2.], grad_fn=<MulBackward0>)",
    "np.exp(T.zeros(2))": "tensor([1., 1.])",
    "np.isnan(T.ones(2))": "tensor([0, 0], dtype=uint8)",
    "T.arange(np.int64(3))": "tensor([0, 1, 2])",
    "T.arange(0, np.int64(5), 2)": "tensor([0, 2, 4])",
    "T.ones(2, dtype=T.int32) + np.int64(2)": "tensor([3, 3], dtype=int32)",
    "T.full((2,), np.int32(3))": "tensor([3, 3])",
    "T.tensor([1, 2]) * np.bool_(True)": "tensor([1., 2.])",
    "np.array(2.0) * T.ones(2)": "TypeError: unsupported operand type(s) for *",
    "np.ones(2) - T.ones(2)": "TypeError: unsupported operand type(s) for -",
    "np.ones(2) ** T.ones(2)": "TypeError: unsupported operand type(s) for ** or pow()",
    "np.ones((2, 2)) @ T.ones(2)": "TypeError: unsupported operand type(s) for @",
}  # fmt: skip


def _answer(T: object, expression: str) -> str:
    try:
        with warnings.catch_warnings():  # PyTorch's ``__array_wrap__`` has NumPy 1's signature
            warnings.simplefilter("ignore", DeprecationWarning)
            value = eval(expression, {"np": np, "T": T})
    except Exception as exc:  # the error itself is compared
        return f"{type(exc).__name__}: {exc}"
    return repr(value).replace("torch.", "")


@pytest.mark.parametrize("expression", CASES)
def test_numpy_meets_tensors_as_in_pytorch(expression: str) -> None:
    assert _answer(engine, expression).startswith(CASES[expression])


def test_a_numpy_scalar_on_the_left_keeps_the_graph() -> None:
    x = engine.ones(2, requires_grad=True)
    y = (np.float64(3.0) * x).sum()
    y.backward()
    assert y.grad_fn.name() == "SumBackward0" and x.grad.tolist() == [3.0, 3.0]


@pytest.mark.torch
@pytest.mark.parametrize("expression", CASES)
def test_the_table_is_pytorchs(expression: str) -> None:
    torch = pytest.importorskip("torch")
    assert _answer(torch, expression).startswith(CASES[expression])
