"""The seed blog posts' PyTorch examples, run against ``engine`` with their printed results.

The seeds are what learners bring to the studio; their printed expectations
(``tensor([5.])``, ``tensor(2.)`` then ``tensor(4.)``, ``AddmmBackward0``...) are
asserted here directly, on top of the fact-by-fact comparison of
``test_conformance.py``.  The snippets themselves live in the conformance corpus.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from tests.conformance.scenarios import SCENARIOS
from tests.oracle import Execution, execute


@pytest.fixture(scope="module")
def tm() -> ModuleType:
    """The module under test, bound to ``torch`` in the seeds."""
    import engine

    return engine


def run_seed(name: str, module: ModuleType) -> Execution:
    """Run a seed scenario; it must finish without an exception."""
    result = execute(SCENARIOS[name].source, module)
    assert result.exception is None, f"{name} raised {result.exception}"
    return result


def values(t: Any) -> Any:
    return t.detach().tolist()


# -- seed 000: Tensor.is_leaf (CPU analogue of the `.cuda()` lines) -------------


def test_seed000_is_leaf(tm: ModuleType) -> None:
    ns = run_seed("seed000_is_leaf_cpu", tm).namespace
    assert ns["a"].is_leaf is True
    assert ns["b"].is_leaf is False  # created by the cast operation
    assert ns["c"].is_leaf is False  # created by the addition
    assert ns["d"].is_leaf is True  # does not require grad
    assert ns["e"].is_leaf is True  # requires grad, no operation created it
    assert ns["f"].is_leaf is True
    assert ns["b"].grad_fn.name() == "ToCopyBackward0"
    assert ns["c"].grad_fn.name() == "AddBackward0"


# -- seed 001: leaf tensors and w.grad ------------------------------------------


def test_seed001_values(tm: ModuleType) -> None:
    ns = run_seed("seed001_leaf_add_mul", tm).namespace
    assert (ns["a"].requires_grad, ns["b"].requires_grad, ns["y"].requires_grad) == (
        True,
        True,
        True,
    )
    assert values(ns["w"].grad) == [5.0]
    assert ns["w"].is_leaf and ns["x"].is_leaf and not ns["y"].is_leaf


def test_seed001_prints(tm: ModuleType) -> None:
    out = run_seed("seed001_leaf_add_mul", tm).stdout.splitlines()
    assert out == ["tensor([1.], requires_grad=True)", "True True True", "tensor([5.])"]


# -- seed 002: torch.tensor / torch.Tensor / detach / .data / clone ------------


def test_seed002_constructors(tm: ModuleType) -> None:
    ns = run_seed("seed002_tensor_vs_Tensor", tm).namespace
    assert str(ns["b"].dtype) == "torch.float64" and ns["b"].requires_grad
    assert tuple(ns["u1"].shape) == (3,)
    assert tuple(ns["u2"].shape) == (3, 1)
    assert values(ns["c"]) == [3.0, 1.0]
    assert str(ns["c"].dtype) == "torch.float32"


def test_seed002_detach_and_data_share_values(tm: ModuleType) -> None:
    ns = run_seed("seed002_data_detach_clone", tm).namespace
    assert values(ns["b"]) == 0.0
    assert values(ns["b_data"]) == 0.0
    assert values(ns["b_detach"]) == 0.0
    assert values(ns["b_clone"]) == 2.0
    assert ns["b_clone"].grad_fn.name() == "CloneBackward0"


def test_seed002_detach_and_data_prints(tm: ModuleType) -> None:
    out = run_seed("seed002_data_detach_clone", tm).stdout.splitlines()
    assert out == [
        "tensor(2., grad_fn=<MulBackward0>) tensor(2.) tensor(2.) "
        "tensor(2., grad_fn=<CloneBackward0>)",
        "tensor(0., grad_fn=<MulBackward0>) tensor(0.) tensor(0.) "
        "tensor(2., grad_fn=<CloneBackward0>)",
    ]


def test_seed002_detach_does_not_affect_grad(tm: ModuleType) -> None:
    result = run_seed("seed002_detach_zero_then_backward", tm)
    assert values(result.namespace["g1"]) == 2.0
    assert values(result.namespace["a"].grad) == 0.0
    assert result.stdout.splitlines() == ["tensor(2.)", "tensor(0.)"]


def test_seed002_clone_accumulates(tm: ModuleType) -> None:
    result = run_seed("seed002_clone_backward", tm)
    assert values(result.namespace["g1"]) == 2.0
    assert values(result.namespace["a"].grad) == 4.0
    assert result.stdout.splitlines() == ["tensor(2.)", "tensor(4.)"]


# -- seed 003: grad_fn of a linear layer ---------------------------------------


def test_seed003_linear_is_addmm(tm: ModuleType) -> None:
    ns = run_seed("seed003_linear_addmm", tm).namespace
    assert ns["name"] == "AddmmBackward0"
    assert values(ns["weight"].grad) == [[5.0, 7.0, 9.0], [5.0, 7.0, 9.0]]
    assert values(ns["bias"].grad) == [2.0, 2.0]


# -- seed 004: custom Function with save_for_backward --------------------------


def test_seed004_forward(tm: ModuleType) -> None:
    ns = run_seed("seed004_save_for_backward_forward", tm).namespace
    d = ns["d"]
    assert values(d) == 18.0  # x*y + y*z + x*y*z = 2 + 8 + 8
    assert str(d.dtype) == "torch.float64"
    assert d.grad_fn.name() == "FuncBackward"


def test_seed004_backward(tm: ModuleType) -> None:
    ns = run_seed("seed004_save_for_backward_backward", tm).namespace
    assert values(ns["a"].grad) == 10.0  # grad_out * (y + y*z) = 2 + 8
    assert values(ns["b"].grad) == 9.0  # grad_out * (x + z + x*z) = 1 + 4 + 4
    assert ns["name"] == "FuncBackward"
