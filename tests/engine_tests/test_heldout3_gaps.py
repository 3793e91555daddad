"""Gaps a third held-out census of public learner programs found (PyTorchZeroToAll,
Kind-PyTorch-Tutorial, ...), each pinned by what PyTorch 2.13 gives: the expected warnings
written out so the suite runs without torch, and a live comparison marked ``torch``."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import engine

SOFTMAX_TEXT = (
    "Implicit dimension choice for {} has been deprecated. Change the call to include dim=X "
    "as an argument."
)
VOLATILE_TEXT = "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."


def _caught(call: Any) -> list[tuple[str, str, int]]:
    """(category, message, line) of each warning ``call`` raises, where it points."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return [(w.category.__name__, str(w.message), w.lineno) for w in seen]


def _implicit_softmax(lib: Any) -> list[tuple[str, str, int]]:
    """F.softmax and F.log_softmax called without dim, as PyTorchZeroToAll's CNNs do; the
    warning names the function and points at the caller's line (``_stacklevel`` 3)."""
    x = lib.randn(2, 3)
    f = lib.nn.functional
    return _caught(lambda: (f.softmax(x), f.log_softmax(x)))


def _line_of_lambda() -> int:
    return _implicit_softmax.__code__.co_firstlineno + 5


def test_implicit_softmax_dim_names_the_function_and_the_callers_line() -> None:
    line = _line_of_lambda()
    assert _implicit_softmax(engine) == [
        ("UserWarning", SOFTMAX_TEXT.format("softmax"), line),
        ("UserWarning", SOFTMAX_TEXT.format("log_softmax"), line),
    ]


def _volatile(lib: Any) -> list[tuple[str, str, int]]:
    """``Variable(x, volatile=True)``, the pre-0.4 spelling of no_grad (PyTorchZeroToAll)."""
    x = lib.zeros(2)
    return _caught(lambda: lib.autograd.Variable(x, volatile=True))


def test_variable_volatile_warns_at_the_callers_line() -> None:
    line = _volatile.__code__.co_firstlineno + 3
    assert _volatile(engine) == [("UserWarning", VOLATILE_TEXT, line)]
    assert _caught(lambda: engine.autograd.Variable(engine.zeros(2))) == []


@pytest.mark.torch
def test_against_torch() -> None:
    torch = pytest.importorskip("torch")
    assert _implicit_softmax(engine) == _implicit_softmax(torch)
    assert _volatile(engine) == _volatile(torch)


def _sizes(lib: Any) -> list[tuple[int, ...]]:
    """A one-element integer tensor in a size, as PyTorchZeroToAll pads a batch with
    ``torch.zeros((len(seqs), seq_lengths.max())).long()``."""
    n = lib.tensor(3)
    return [
        tuple(lib.zeros((2, n)).shape),
        tuple(lib.zeros(2, n).shape),
        tuple(lib.ones(n).shape),
        tuple(lib.empty((1, lib.tensor([2]))).shape),
        tuple(lib.zeros((len([1, 2]), lib.tensor([4, 1]).max())).long().shape),
    ]


def test_one_element_integer_tensor_is_a_size() -> None:
    assert _sizes(engine) == [(2, 3), (2, 3), (3,), (1, 2), (2, 4)]
    assert engine.zeros(2, engine.tensor(3)).dtype == engine.float32
    with pytest.raises(TypeError):
        engine.zeros((2, engine.tensor(2.5)))


@pytest.mark.torch
def test_sizes_against_torch() -> None:
    torch = pytest.importorskip("torch")
    assert _sizes(engine) == _sizes(torch)


ELEMENTWISE_MEAN_TEXT = (
    "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead."
)


def _elementwise_mean(lib: Any) -> tuple[list[float], list[str]]:
    """vinhkhuc/PyTorch-Mini-Tutorials' ``CrossEntropyLoss(reduction='elementwise_mean')``:
    the old name of ``'mean'`` (``_Reduction.get_enum``), with a warning at each call."""
    x = lib.tensor([[1.0, 2.0], [0.5, 3.0]], dtype=lib.float64)
    y = lib.tensor([1, 0])
    f = lib.nn.functional
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        values = [
            f.cross_entropy(x, y, reduction="elementwise_mean").item(),
            f.nll_loss(x, y, reduction="elementwise_mean").item(),
            f.mse_loss(x, x * 2, reduction="elementwise_mean").item(),
            lib.nn.CrossEntropyLoss(reduction="elementwise_mean")(x, y).item(),
        ]
    return values, [str(w.message) for w in seen]


def test_elementwise_mean_is_mean_with_a_warning() -> None:
    values, messages = _elementwise_mean(engine)
    x = engine.tensor([[1.0, 2.0], [0.5, 3.0]], dtype=engine.float64)
    y = engine.tensor([1, 0])
    f = engine.nn.functional
    assert values == [
        f.cross_entropy(x, y).item(),
        f.nll_loss(x, y).item(),
        f.mse_loss(x, x * 2).item(),
        f.cross_entropy(x, y).item(),
    ]
    assert messages == [ELEMENTWISE_MEAN_TEXT] * 4


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss", "mse_loss", "l1_loss"])
def test_an_unknown_reduction_is_refused_as_pytorch_refuses_it(loss: str) -> None:
    x = engine.tensor([[1.0, 2.0], [0.5, 3.0]])
    target = engine.tensor([1, 0]) if "nll" in loss or "entropy" in loss else x
    with pytest.raises(ValueError, match=r"^bogus is not a valid value for reduction$"):
        getattr(engine.nn.functional, loss)(x, target, reduction="bogus")


@pytest.mark.torch
def test_elementwise_mean_agrees_with_torch() -> None:
    torch = pytest.importorskip("torch")
    assert _elementwise_mean(engine) == _elementwise_mean(torch)
