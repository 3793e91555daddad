"""Calls returning several tensors, and ``pow`` of a number: the static importer, the
evaluator and the exporter read them the same way, and PyTorch agrees."""

from __future__ import annotations

import numpy as np
import pytest

from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.pytorch_export import export_script
from gradstudio.interchange.pytorch_import import import_snippet

SNIPPET = """import torch
x = torch.tensor([0.5, -1.0, 2.0, 1.5], requires_grad=True)
first, second = x.chunk(2)
a, b = torch.split(x, [1, 3])
r0, r1 = torch.stack([x, x * 2]).unbind(0)
p = 2 ** x
q = torch.pow(3.0, x)
total = (first * second).sum() + a.sum() * b.sum() + (r0 * r1).sum() + p.sum() + q.sum()
total.backward()
"""

#: recorded from PyTorch 2.13 running SNIPPET
GOLDEN = {
    "grad_fn": {
        "first": "SplitBackward0",
        "a": "SplitWithSizesBackward0",
        "r1": "UnbindBackward0",
        "p": "PowBackward2",
        "q": "PowBackward2",
    },
    "x.grad": [9.383110046386719, -1.2872223854064941, 21.660099029541016, 13.169073104858398],
}


def _facts() -> dict[str, object]:
    result = evaluate(import_snippet(SNIPPET, trusted=True))
    assert result.ok, [e.message for e in result.errors]
    return {label: facts for label, _, facts in result.rows() if facts is not None}


def test_parts_and_number_base_agree_with_golden() -> None:
    facts = _facts()
    for name, grad_fn in GOLDEN["grad_fn"].items():
        assert facts[name].grad_fn.name == grad_fn, name
    np.testing.assert_allclose(facts["x"].grad.array, GOLDEN["x.grad"], rtol=1e-6)


@pytest.mark.torch
def test_parts_and_number_base_agree_with_torch() -> None:
    pytest.importorskip("torch")
    scope: dict[str, object] = {}
    exec(SNIPPET, scope)
    facts = _facts()
    for name in ("first", "second", "a", "b", "r0", "r1", "p", "q", "total"):
        np.testing.assert_allclose(
            facts[name].array, scope[name].detach().numpy(), rtol=1e-6, err_msg=name
        )
        assert facts[name].grad_fn.name == type(scope[name].grad_fn).__name__, name
    np.testing.assert_allclose(facts["x"].grad.array, scope["x"].grad.numpy(), rtol=1e-6)


@pytest.mark.torch
def test_exported_parts_run_under_torch_with_the_same_grad() -> None:
    pytest.importorskip("torch")
    code = export_script(import_snippet(SNIPPET, trusted=True), facts=False)
    assert "torch.pow(2, x)" in code
    exported: dict[str, object] = {}
    exec(code, exported)
    original: dict[str, object] = {}
    exec(SNIPPET, original)
    assert type(exported["p"].grad_fn).__name__ == "PowBackward2"
    np.testing.assert_allclose(exported["x"].grad.numpy(), original["x"].grad.numpy(), rtol=1e-6)


def test_a_part_past_the_end_is_a_clear_error() -> None:
    doc = import_snippet(SNIPPET, trusted=True)
    second = doc.node_by_label("second")
    doc.set_param(second.id, "index", 5)
    result = evaluate(doc)
    [error] = [e for e in result.errors if e.node_id == second.id]
    assert "index 5 is out of range for a list of 2" in error.message


def test_a_recorded_arange_of_one_number_starts_at_zero(tmp_path) -> None:  # noqa: ANN001
    from gradstudio.interchange.program_import.runner import import_program

    program = tmp_path / "arange.py"
    program.write_text(
        "import torch\n"
        "x = torch.arange(6.0, requires_grad=True)\n"
        "first, second = x.chunk(2)\n"
        "(first * second).sum().backward()\n",
        "utf-8",
    )
    result = evaluate(import_program(program))
    facts = {label: f for label, _, f in result.rows() if f is not None}
    # recorded from PyTorch 2.13 running the program
    assert facts["x"].grad.array.tolist() == [3.0, 4.0, 5.0, 0.0, 1.0, 2.0]
