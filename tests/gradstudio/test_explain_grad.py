"""Explain a gradient: the paths, each grad_fn's rule with numbers, the sums where they
meet, checked against the engine's facts and against PyTorch (goldens without torch)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gradstudio.evaluation.explain_grad import CannotExplain, explain_gradient, find_ref
from gradstudio.evaluation.explain_grad_paths import MAX_PATHS
from gradstudio.evaluation.explain_grad_rules import number
from gradstudio.evaluation.plan import prepare
from gradstudio.evaluation.results import Evaluation
from gradstudio.interchange.examples import EXAMPLES, build
from gradstudio.interchange.pytorch_import import import_snippet

SEED_001 = (
    "w.grad = 5 = a-path (MulBackward0: ∂y/∂a = b = 2) · (AddBackward0: ∂a/∂w = 1) "
    "+ b-path (MulBackward0: ∂y/∂b = a = 3) · (AddBackward0: ∂b/∂w = 1)"
)
HOOKED = """\
import torch
x = torch.tensor([2.0, 3.0], requires_grad=True)
y = x * x
y.register_hook(lambda g: g * 10)
z = y.sum()
z.backward(create_graph=True)
"""
LINEAR = """\
import torch
x = torch.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=torch.float64, requires_grad=True)
w = torch.tensor([[0.5, -1.0], [2.0, 1.5], [1.0, 1.0]], dtype=torch.float64, requires_grad=True)
h = torch.tanh(x @ w.t())
loss = (h * h).mean() + torch.exp(x).sum() / 4
loss.backward()
"""
#: What PyTorch 2.13 reports for LINEAR's leaves (``torch`` run on it, below).
LINEAR_GRADS = {
    "x": [[0.6557028675639464, 1.9051493233797412], [5.048788987615197, 0.10617424897777557]],
    "w": [
        [-0.02828582848263446, -0.11778962278427939],
        [0.0005539178523059344, -4.342070546603466e-05],
        [0.0713817594407302, -0.016158283116838035],
    ],
}


def _example(name: str) -> Evaluation:
    return prepare(build(next(e for e in EXAMPLES if e.name == name))).run()


def _evaluate(source: str) -> Evaluation:
    doc = import_snippet(source, "snippet.py")
    doc.set_trusted(True)
    return prepare(doc).run()


def _explain(ev: Evaluation, label: str, **kw: Any) -> Any:
    return explain_gradient(ev, find_ref(ev, label), **kw)


@pytest.fixture(scope="module")
def seed() -> Evaluation:
    return _example("001_leaf_grad")


def test_seed_001_headline(seed: Evaluation) -> None:
    ex = _explain(seed, "w")
    assert ex.headline == SEED_001
    assert [p.name for p in ex.paths] == ["a-path", "b-path"]
    assert [float(p.share.item()) for p in ex.paths] == [2.0, 3.0]
    text = ex.text()
    assert "paths meet at w's AccumulateGrad: 3 (from AddBackward0 of b) + 2" in text
    assert "the paths add up: 2 (a-path) + 3 (b-path) = 5" in text


def test_edge_gradients_are_the_engines(seed: Evaluation) -> None:
    ex = _explain(seed, "w")
    trace = seed.traces[-1]
    sent = {(e.key, slot): g for e in trace.executions for slot, (_, g) in enumerate(e.outgoing)}
    for path in ex.paths:
        for hop in path.hops:
            assert hop.gradient is sent[(hop.key, hop.slot)]
    grad = seed.final.facts(find_ref(seed, "w").node_id).grad
    assert np.array_equal(sum(p.share for p in ex.paths), grad.array)


def test_non_leaf_without_retain_grad(seed: Evaluation) -> None:
    ex = _explain(seed, "a")
    assert ex.fix == "retain_grad"
    assert ex.headline.startswith("a.grad = None: a is not a leaf (it was made by AddBackward0)")
    assert "The gradient 2 reached a" in ex.headline
    assert "Fix: call a.retain_grad() before backward" in ex.text()


def test_retained_non_leaf_has_its_grad() -> None:
    ev = _evaluate(EXAMPLES[1].code.replace("y = ", "a.retain_grad()\ny = "))
    ex = _explain(ev, "a")
    assert ex.fix is None
    assert ex.headline == "a.grad = 2 = a-path (MulBackward0: ∂y/∂a = b = 2)"


def test_before_any_backward_and_bad_steps(seed: Evaluation) -> None:
    assert _explain(seed, "w", step=2).headline == "w.grad = None: no backward has run by step 3"
    with pytest.raises(CannotExplain, match="no step 99: the document has 6 steps"):
        _explain(seed, "w", step=98)
    with pytest.raises(CannotExplain, match="no tensor labelled 'nope'"):
        find_ref(seed, "nope")


def test_replay_follows_the_running_grad_fn(seed: Evaluation) -> None:
    last = len(seed.steps) - 1
    first = _explain(seed, "w", step=last, replay=1)
    assert first.now[0] == "grad_fn 1 of 5: MulBackward0 receives 1"
    assert "MulBackward0: ∂y/∂a = b = 2; sends 2 to a" in first.now
    assert "gradient has not arrived yet" in first.headline
    done = _explain(seed, "w", step=last, replay=4)
    assert "AccumulateGrad: .grad = old + grad = 0 (None) + 5" in done.now
    assert done.headline.startswith("w.grad = 5")


def test_hook_and_create_graph() -> None:
    ev = _evaluate(HOOKED)
    ex = _explain(ev, "x")
    text = ex.text()
    assert ex.headline.startswith("x.grad = [40, 60]")
    assert "a hook changed the gradient reaching MulBackward0 of y: [1, 1] → [10, 10]" in text
    assert "create_graph=True" in text
    assert [p.name for p in ex.paths] == [
        "y-path (as self of MulBackward0)",
        "y-path (as other of MulBackward0)",
    ]
    assert np.array_equal(sum(p.share for p in ex.paths), [40.0, 60.0])


def test_custom_function_shows_backward_and_saved() -> None:
    ev = _example("004_custom_function")
    ex = _explain(ev, "a")
    rule = ex.paths[0].hops[0].rule
    assert rule.startswith("FuncBackward: your backward(ctx, 1) returned (10, 9)")
    assert "saved: x = a = 1, y = b = 2, out = d = 18" in rule


def test_accumulation_across_backwards() -> None:
    ev = _example("006_clone_accumulates")
    ex = _explain(ev, "a")
    assert ex.headline == (
        "a.grad = 4 = 2 (its .grad before) + b-path (CloneBackward0: ∂b_clone/∂b = 1) "
        "· (MulBackward0: ∂b/∂a = 2)"
    )
    assert "a.grad was 2 before this backward, so 2 + 2 = 4" in ex.text()


def _leaf_grads(ev: Evaluation) -> dict[str, np.ndarray]:
    return {
        label: facts.grad.array
        for label, _, facts in ev.rows()
        if facts is not None and facts.is_leaf and facts.grad is not None
    }


def test_shares_add_up_to_pytorchs_gradient() -> None:
    """Every path's share by the declared formulas sums to the engine's .grad, which is
    PyTorch's (``LINEAR_GRADS``, checked against torch itself below)."""
    ev = _evaluate(LINEAR)
    grads = _leaf_grads(ev)
    for label, expected in LINEAR_GRADS.items():
        np.testing.assert_allclose(grads[label], expected, rtol=1e-12)
        ex = _explain(ev, label)
        assert all(p.share is not None for p in ex.paths), ex.text()
        np.testing.assert_allclose(sum(p.share for p in ex.paths), expected, rtol=1e-9)
        assert ex.headline.startswith(f"{label}.grad = [")


def test_goldens_are_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    space: dict[str, Any] = {}
    exec(compile(LINEAR, "linear", "exec"), {"torch": torch}, space)  # our own snippet
    for label, expected in LINEAR_GRADS.items():
        np.testing.assert_allclose(space[label].grad.numpy(), expected, rtol=1e-12)


def test_many_paths_are_capped() -> None:
    """y = y + y twelve times: 4096 paths reach x; the first are shown, the sum is the
    engine's."""
    source = "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x * 1\n"
    source += "y = y + y\n" * 12 + "y.backward()\n"
    ex = _explain(_evaluate(source), "x")
    assert ex.headline.startswith("x.grad = 4096 = ")
    assert len(ex.paths) == MAX_PATHS
    assert f"(the first {MAX_PATHS} paths; more reach x)" in ex.details


def test_numbers_are_written_flat_and_a_matrix_says_its_shape() -> None:
    assert number(np.array([[1.0, 2.5], [3.0, -1.0]])) == "[1, 2.5, 3, -1] (shape (2, 2))"
    assert number(np.array([1.0, 2.0, 3.0])) == "[1, 2, 3]"
    assert number(np.float32(0.5)) == "0.5"
