"""Second derivatives through ops whose backward has a special case for exact zeros
(``cumprod``: PyTorch switches to a differentiable O(n²) formula under grad mode).

Every op-matrix sample marked ``zeros`` (slices with none, one and two zeros) must pass
``gradgradcheck``, and ``cumprod``'s first-order gradient must be built from the same
nodes as PyTorch's (a chain of ``CopySlices`` fed by ``SumBackward1``)."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.ops.core import all_samples, apply_op
from tests.engine_tests.test_op_matrix import build

ZEROS = [
    pytest.param(op, s, id=f"{op.name}-{i}")
    for i, (op, s) in enumerate(all_samples())
    if s.zeros and op.grad_fn is not None
]


def test_the_matrix_has_samples_with_zeros() -> None:
    assert {p.values[0].name for p in ZEROS} >= {"cumprod"}


@pytest.mark.parametrize(("op", "sample"), ZEROS)
def test_gradgradcheck_with_zeros(op: Any, sample: Any) -> None:
    inputs, params = build(op, sample, "cpu")
    assert engine.autograd.gradgradcheck(lambda *xs: apply_op(op, xs, params), inputs)


def test_cumprod_gradient_with_zeros_is_a_graph() -> None:
    x = engine.tensor([[2.0, 0.0, 3.0], [0.0, 1.5, 0.0]], dtype=engine.float64, requires_grad=True)
    (g,) = engine.autograd.grad(x.cumprod(1).sum(), x, create_graph=True)
    assert g.grad_fn is not None
    assert g.grad_fn.name() == "torch::autograd::CopySlices"
    names = [n.name() for n, _ in g.grad_fn.next_functions if n is not None]
    assert names == ["torch::autograd::CopySlices", "SumBackward1"]
    (h,) = engine.autograd.grad(g.sum(), x)
    assert h.tolist() == [[4.0, 6.0, 2.0], [2.5, 1.0, 1.5]]  # torch 2.13
