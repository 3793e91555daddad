"""Saved values that PyTorch keeps as tensors though the engine holds them raw: a Python
number in a tensor's place (``x * 2.0`` saves a "wrapped number"), an op's indices, and
the parameters a node saves as tensors (``nll_loss``'s target).  Read as ``_saved_*``
each is a tensor of PyTorch's dtype before backward, and an error after it; and ``relu``
lets ``-0.0`` and NaN through as ATen's ``clamp_min`` does.  The facts are written out,
so they hold without PyTorch; the oracle test compares every case with it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine

CASES: dict[str, Callable[[Any, Any], Any]] = {
    "x * 2.0": lambda T, x: x * 2.0,
    "2.0 * x": lambda T, x: 2.0 * x,
    "x * 3": lambda T, x: x * 3,
    "x / 3.0": lambda T, x: x / 3.0,
    "x.mul(True)": lambda T, x: x.mul(True),
    "3.0 / x": lambda T, x: 3.0 / x,
    "x.max(0)": lambda T, x: x.max(0)[0],
    "x.sort()": lambda T, x: x.sort(0)[0],
    "x.topk(2)": lambda T, x: x.topk(2)[0],
    "nll_loss": lambda T, x: T.nn.functional.nll_loss(x.reshape(1, 3), T.tensor([1])),
    "cross_entropy": lambda T, x: T.nn.functional.cross_entropy(x.reshape(1, 3), T.tensor([2])),
}
#: PyTorch 2.13's answers: attribute -> (dtype, value) before backward.
EXPECTED: dict[str, dict[str, tuple[str, Any]]] = {
    "x * 2.0": {"_saved_other": ("torch.float64", 2.0)},
    "2.0 * x": {"_saved_other": ("torch.float64", 2.0)},
    "x * 3": {"_saved_other": ("torch.int64", 3)},
    "x / 3.0": {"_saved_other": ("torch.float64", 3.0)},
    "x.mul(True)": {"_saved_other": ("torch.bool", True)},
    "3.0 / x": {"_saved_other": ("torch.float64", 3.0)},
    "x.max(0)": {"_saved_indices": ("torch.int64", 2)},
    "x.sort()": {"_saved_indices": ("torch.int64", [0, 1, 2])},
    "x.topk(2)": {"_saved_indices": ("torch.int64", [2, 1])},
    "nll_loss": {"_saved_target": ("torch.int64", [1])},
    "cross_entropy": {"_saved_target": ("torch.int64", [2])},
}


def _facts(T: Any, case: str) -> dict[str, Any]:
    """Each expected attribute before backward (dtype, value) and after it (the error)."""
    x = T.tensor([1.5, 2.5, 3.5], requires_grad=True)
    y = CASES[case](T, x)
    fn = y.grad_fn
    names = sorted(EXPECTED[case])
    before = {}
    for name in names:
        v = getattr(fn, name)
        before[name] = [str(v.dtype).replace("engine.", "torch."), v.tolist()]
    y.sum().backward()
    after = {}
    for name in names:
        try:
            getattr(fn, name)
            after[name] = "readable"
        except RuntimeError as exc:
            after[name] = str(exc).split(".")[0]
    return {"before": before, "after": after}


@pytest.mark.parametrize("case", CASES)
def test_saved_value_is_a_tensor_then_freed(case: str) -> None:
    facts = _facts(engine, case)
    for name, (dtype, value) in EXPECTED[case].items():
        assert facts["before"][name] == [dtype, value]
        assert facts["after"][name] == (
            "Trying to backward through the graph a second time (or directly access saved "
            "tensors after they have already been freed)"
        )


@pytest.mark.parametrize("case", CASES)
def test_saved_values_match_torch(case: str) -> None:
    torch = pytest.importorskip("torch")
    got, want = _facts(engine, case), _facts(torch, case)
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)


def test_backward_still_reads_the_raw_number() -> None:
    """The formulas see the number itself (the float32 product, not a float64 one)."""
    x = engine.tensor([1.5, 2.5], requires_grad=True)
    (x * 0.1).sum().backward()
    assert x.grad.dtype is engine.float32
    assert x.grad.numpy().tobytes() == np.full(2, 0.1, np.float32).tobytes()


def test_retained_graph_keeps_the_saved_number() -> None:
    x = engine.tensor([1.5, 2.5], requires_grad=True)
    y = x * 2.0
    y.sum().backward(retain_graph=True)
    assert y.grad_fn._saved_other.item() == 2.0
    y.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        _ = y.grad_fn._saved_other


SIGNED = [-0.0, 0.0, float("nan"), -float("nan"), -1.0, 2.0, -float("inf"), float("inf")]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("repeat", [1, 500])  # few elements and many: two kernels
def test_relu_keeps_negative_zero_and_nan_signs(dtype: str, repeat: int) -> None:
    values = np.array(SIGNED * repeat, dtype)
    got = engine.relu(engine.tensor(values)).numpy()
    want = np.where(values < 0, np.zeros((), dtype), values)  # ATen: x < 0 ? 0 : x
    assert got.dtype == values.dtype
    assert got.view(np.uint8).tobytes() == want.view(np.uint8).tobytes()
    assert np.signbit(got[0]) and not np.signbit(got[4])


@pytest.mark.parametrize("repeat", [1, 500])
def test_relu_bits_match_torch(repeat: int) -> None:
    torch = pytest.importorskip("torch")
    for dtype in ("float16", "float32", "float64"):
        values = np.array(SIGNED * repeat, dtype).reshape(-1, 4)
        for layout in (values, values.T):
            got = engine.relu(engine.tensor(np.ascontiguousarray(layout)).t()).numpy()
            want = torch.relu(torch.tensor(np.ascontiguousarray(layout)).t()).numpy()
            assert got.tobytes() == want.tobytes()


def test_relu_of_integers_and_zero_dim() -> None:
    assert engine.relu(engine.tensor([-3, 0, 4])).tolist() == [0, 0, 4]
    r = engine.relu(engine.tensor(-0.0))
    assert r.shape == () and np.signbit(r.numpy())


MODIFIED: dict[str, Callable[[Any, Any], Any]] = {
    "exp": lambda T, w: w.exp(),
    "sigmoid_": lambda T, w: (w * 1).sigmoid_(),
    "elu_": lambda T, w: T.nn.functional.elu(w * 1, inplace=True),
    "leaky_relu_": lambda T, w: T.nn.functional.leaky_relu(w * 1, 0.1, inplace=True),
    "2 ** w": lambda T, w: T.pow(2.0, w),
}
#: PyTorch 2.13 names the op without "Backward" and without an overload number 0.
MODIFIED_NAMES = {
    "exp": "Exp",
    "sigmoid_": "Sigmoid",
    "elu_": "Elu1",
    "leaky_relu_": "LeakyRelu1",
    "2 ** w": "Pow2",
}


def _modified_name(T: Any, case: str) -> str:
    w = T.ones(2, requires_grad=True)
    y = MODIFIED[case](T, w)
    y.add_(1)
    with pytest.raises(RuntimeError) as err:
        y.sum().backward()
    text = str(err.value)
    return text[text.index("which is output 0 of ") + 21 : text.index(", is at version")]


@pytest.mark.parametrize("case", MODIFIED)
def test_a_modified_saved_output_names_its_op_as_pytorch(case: str) -> None:
    assert _modified_name(engine, case) == MODIFIED_NAMES[case]


@pytest.mark.parametrize("case", MODIFIED)
def test_modified_names_match_torch(case: str) -> None:
    torch = pytest.importorskip("torch")
    assert _modified_name(torch, case) == MODIFIED_NAMES[case]
