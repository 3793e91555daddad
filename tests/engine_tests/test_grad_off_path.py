"""``autograd.grad(outputs, inputs)`` computes a node's gradient only for the edges on the
path to ``inputs``, as PyTorch's formulas do where ``should_compute_output`` is false: a
node hook sees None on the other edges (``MmBackward0``'s ``mat2`` when only ``x`` is
asked for); a TensorList's elements (``cat``, ``stack``) are computed together, those
without an edge too. PyTorch 2.13's answers are written out; the oracle test checks them."""

from __future__ import annotations

from typing import Any

import pytest

import engine


def _seen(T: Any) -> dict[str, Any]:
    x = T.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
    w = T.tensor([[0.5, -1.0], [2.0, 1.0], [0.0, 0.25]], requires_grad=True)
    y = (x @ w).tanh().sum()
    mm = y.grad_fn.next_functions[0][0].next_functions[0][0]
    seen: list[Any] = []
    mm.register_hook(lambda gi, go: seen.append([g is None for g in gi]))
    facts: dict[str, Any] = {}
    (g,) = T.autograd.grad(y, x, create_graph=True)
    facts["grad(y, x): mm's edges left None"] = seen[:]
    seen.clear()
    (g2,) = T.autograd.grad(g.sum(), w)
    facts["then grad(g.sum(), w)"] = seen[:]
    facts["its value"] = [[round(v, 5) for v in row] for row in g2.tolist()]
    seen.clear()
    y = (x @ w).tanh().sum()
    y.grad_fn.next_functions[0][0].next_functions[0][0].register_hook(
        lambda gi, go: seen.append([g is None for g in gi])
    )
    y.backward()
    facts["backward(): every edge"] = seen[:]
    for name in ("cat", "stack"):
        seen.clear()
        a, b = T.ones(1, 2), T.ones(1, 2, requires_grad=True)
        c = (b * 2, a, b) if name == "cat" else (a, b)
        out = getattr(T, name)(c, 1)
        out.grad_fn.register_hook(lambda gi, go: seen.append([g is None for g in gi]))
        (out * 3).sum().backward()
        facts[f"{name}: every element, one without an edge too"] = seen[:]
        seen.clear()
        d = T.ones(1, 2, requires_grad=True)
        out = getattr(T, name)((b * 2, d * 3), 0)
        out.grad_fn.register_hook(lambda gi, go: seen.append([g is None for g in gi]))
        T.autograd.grad(out.sum(), b)
        facts[f"{name} under grad(): its elements together"] = seen[:]
    return facts


EXPECTED: dict[str, Any] = {
    "grad(y, x): mm's edges left None": [[False, True]],
    "then grad(g.sum(), w)": [[True, False]],
    "its value": [[0.06868, 1.14543], [-0.27434, 0.8907], [1.09155, 1.56058]],
    "backward(): every edge": [[False, False]],
    "cat: every element, one without an edge too": [[False, False, False]],
    "cat under grad(): its elements together": [[False, False]],
    "stack: every element, one without an edge too": [[False, False]],
    "stack under grad(): its elements together": [[False, False]],
}


@pytest.mark.parametrize("fact", EXPECTED)
def test_the_engine_answers_as_pytorch(fact: str) -> None:
    assert _seen(engine)[fact] == EXPECTED[fact]


@pytest.mark.torch
@pytest.mark.parametrize("fact", EXPECTED)
def test_the_written_answers_are_pytorchs(fact: str) -> None:
    torch = pytest.importorskip("torch")
    assert _seen(torch)[fact] == EXPECTED[fact]
