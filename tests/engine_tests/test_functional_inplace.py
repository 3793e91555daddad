"""``F.relu(x, inplace=True)``, as ``nn.ReLU(inplace=True)`` and real models call it:
the same tensor back, its version bumped, ``ReluBackward0`` on it, and PyTorch's errors
for a leaf that requires grad and for booleans."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine


def _facts(T: Any) -> list[Any]:
    F = T.nn.functional
    w = T.tensor([-1.0, 2.0, -0.5], requires_grad=True)
    x = w * 1
    y = F.relu(x, inplace=True)
    facts: list[Any] = [y is x, x._version, type(y.grad_fn).__name__]
    facts.append([type(n).__name__ for n, _ in y.grad_fn.next_functions])
    y.sum().backward()
    facts.append(w.grad.tolist())
    for bad in (w, T.tensor([True])):
        with pytest.raises(RuntimeError) as err:
            F.relu(bad, inplace=True)
        facts.append(str(err.value))
    with T.no_grad():
        z = T.tensor([-1.0, 3.0])
        facts += [F.relu(z, True) is z, z.tolist(), z._version]
    return facts


def test_relu_inplace() -> None:
    assert _facts(engine) == [
        True,
        1,
        "ReluBackward0",
        ["MulBackward0"],
        [0.0, 1.0, 0.0],
        "a leaf Variable that requires grad is being used in an in-place operation.",
        "Boolean inputs not supported for relu",
        True,
        [0.0, 3.0],
        1,
    ]


def test_relu_inplace_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    assert _facts(engine) == _facts(torch)


INPLACE: dict[str, Any] = {
    "leaky_relu": lambda T, x: T.nn.functional.leaky_relu(x, 0.2, inplace=True),
    "leaky_relu negative slope": lambda T, x: T.nn.functional.leaky_relu(x, -0.1, inplace=True),
    "elu": lambda T, x: T.nn.functional.elu(x, 1.5, inplace=True),
    "silu": lambda T, x: T.nn.functional.silu(x, inplace=True),
    "hardtanh": lambda T, x: T.nn.functional.hardtanh(x, -0.5, 0.5, inplace=True),
    "relu6": lambda T, x: T.nn.functional.relu6(x, inplace=True),
    "nn.LeakyReLU": lambda T, x: T.nn.LeakyReLU(0.2, inplace=True)(x),
    "nn.ELU": lambda T, x: T.nn.ELU(inplace=True)(x),
    "nn.SiLU": lambda T, x: T.nn.SiLU(inplace=True)(x),
    "nn.ReLU6": lambda T, x: T.nn.ReLU6(inplace=True)(x),
    "x.mul_(w)": lambda T, x: x.mul_(T.tensor([2.0, 3.0, 4.0, 5.0], dtype=T.float64)),
    "x.clamp_(min=0)": lambda T, x: x.clamp_(min=0.0),
}


def _inplace_facts(T: Any, case: str) -> list[Any]:
    """The graph an in-place activation leaves, its saved tensors (the result, or a
    clone of the overwritten input with ``CloneBackward0``), first and second
    derivatives and the nodes the second one runs through."""
    w = T.tensor([-1.0, 0.3, 2.0, -0.2], dtype=T.float64, requires_grad=True)
    x = w * 1
    y = INPLACE[case](T, x)
    fn = y.grad_fn
    facts: list[Any] = [y is x, x._version, type(fn).__name__]
    facts.append([type(n).__name__ for n, _ in fn.next_functions])
    facts.append(np.round(y.detach().numpy(), 12).tolist())
    for name in ("_saved_result", "_saved_self"):
        saved = getattr(fn, name, None)
        if saved is not None:
            values = np.round(saved.detach().numpy(), 12).tolist()
            facts.append([name, values, type(saved.grad_fn).__name__])
    try:
        (g,) = T.autograd.grad(y.sum(), w, create_graph=True)
    except RuntimeError as exc:
        return [*facts, str(exc)]
    facts.append(np.round(g.detach().numpy(), 12).tolist())
    if g.grad_fn is None:  # a constant gradient (``mul_`` by a constant)
        return [*facts, g.requires_grad]
    facts.append([type(n).__name__ for n, _ in g.grad_fn.next_functions])
    (h,) = T.autograd.grad((g * g).sum(), w)
    facts.append(np.round(h.numpy(), 12).tolist())
    return facts


@pytest.mark.parametrize("case", INPLACE)
def test_inplace_activation_matches_torch(case: str) -> None:
    torch = pytest.importorskip("torch")
    assert _inplace_facts(engine, case) == _inplace_facts(torch, case)


def test_inplace_leaky_relu_saves_its_result() -> None:
    facts = _inplace_facts(engine, "nn.LeakyReLU")
    assert facts[:4] == [True, 1, "LeakyReluBackward1", ["MulBackward0"]]
    assert facts[5] == ["_saved_result", [-0.2, 0.3, 2.0, -0.04], "LeakyReluBackward1"]
    assert facts[6] == [0.2, 1.0, 1.0, 0.2]
    assert facts[7] == ["LeakyReluBackwardBackward0", "NoneType"]


def test_inplace_silu_saves_a_clone_of_its_input() -> None:
    facts = _inplace_facts(engine, "silu")
    assert facts[:4] == [True, 1, "SiluBackward0", ["MulBackward0"]]
    assert facts[5] == ["_saved_self", [-1.0, 0.3, 2.0, -0.2], "CloneBackward0"]


def test_negative_slope_in_place_is_refused_in_backward() -> None:
    facts = _inplace_facts(engine, "leaky_relu negative slope")
    assert facts[-1].startswith("In-place leakyReLu backward calculation is triggered")
