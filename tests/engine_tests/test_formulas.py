"""Each declared formula, evaluated with numbers, equals the backward it describes.

The formulas are what the studio's Explain view shows a learner, so a wrong one must
fail here: for every op with a ``formula`` and every sample of it, the engine's own
backward (with a random incoming gradient) is compared with the formula's gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine
from engine.autograd.graph import AccumulateGrad
from engine.ops import formula
from engine.ops.core import OPS, OpDef, Sample, apply_op

CASES = [
    pytest.param(op, s, id=f"{op.name}-{i}")
    for op in OPS.values()
    if op.formula
    for i, s in enumerate(op.samples)
]
SEEN = {"AddBackward0", "MulBackward0", "AddmmBackward0", "SumBackward0", "TBackward0"}


def _inputs(sample: Sample, rng: np.random.Generator) -> list[np.ndarray]:
    low = 0.5 if sample.positive else -2.0
    return [rng.uniform(low, 2.0, size=shape) for shape in sample.inputs]


@pytest.mark.parametrize(("op", "sample"), CASES)
def test_formula_matches_backward(op: OpDef, sample: Sample) -> None:
    rng = np.random.default_rng(3)
    arrays = _inputs(sample, rng)
    tensors = [engine.tensor(a, dtype=engine.float64, requires_grad=True) for a in arrays]
    out = apply_op(op, tuple(tensors), dict(sample.params))
    grad = rng.standard_normal(out.shape)
    out.backward(engine.tensor(grad, dtype=engine.float64))
    env: dict[str, Any] = dict(zip(op.inputs, arrays, strict=True))
    env.update(sample.params, result=out.detach().numpy())
    assert set(op.formula) <= set(op.inputs)
    for name, t in zip(op.inputs, tensors, strict=True):
        if name not in op.formula:
            continue
        expected = formula.gradient(op.formula[name], env, grad, tuple(t.shape))
        np.testing.assert_allclose(t.grad.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_a_wrong_formula_fails() -> None:
    """The check above can fail: mul's rule with the operands swapped does not match."""
    x, y = np.array([2.0, 3.0]), np.array([5.0, 7.0])
    wrong = formula.gradient("self", {"self": x, "other": y}, np.ones(2), (2,))
    right = formula.gradient(OPS["mul"].formula["self"], {"self": x, "other": y}, np.ones(2), (2,))
    assert not np.allclose(wrong, right)
    np.testing.assert_array_equal(right, y)


def test_accumulate_grad_formula() -> None:
    w = engine.tensor([1.0, 2.0], requires_grad=True)
    (w * 3).sum().backward()
    old = w.grad.numpy().copy()
    (w * w).sum().backward()
    env = {"old": old, "grad": 2 * np.array([1.0, 2.0])}
    np.testing.assert_allclose(w.grad.numpy(), formula.evaluate(AccumulateGrad.formula, env))


def test_ops_the_examples_use_have_formulas() -> None:
    declared = {op.grad_fn for op in OPS.values() if op.formula}
    assert declared >= SEEN


def test_rendered_with_labels() -> None:
    text = formula.rule_text(OPS["mul"].formula["self"], "y", "a", {"other": "b", "self": "a"})
    assert text == "∂y/∂a = b"
    assert formula.rule_text("grad @ mat2.T", "o", "x", {"mat2": "w"}) == "grad_x = grad @ w.T"
    # rendering leaves the formula as declared: it still evaluates over its own names
    env = {"mat2": np.eye(2), "grad": np.ones((1, 2))}
    np.testing.assert_array_equal(formula.evaluate("grad @ mat2.T", env), np.ones((1, 2)))


@pytest.mark.parametrize("bad", ["__import__('os')", "self.__class__", "a if b else c", "x[0]"])
def test_outside_the_language_refused(bad: str) -> None:
    with pytest.raises(formula.FormulaError):
        formula.parse(bad)
