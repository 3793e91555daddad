"""Call forms PyTorch takes that Run to Import records (issue 26): a Python number as the
first tensor (``torch.remainder(-3, t)``, a 0-d literal as the engine wraps it), NumPy's
``axis``/``keepdims`` names, sort's ``stable``, searchsorted's ``right``,
``unique_consecutive``'s counts and ``histogram``'s edges (outputs of their node), and
clamp's tensor bounds (``ClampBackward0``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.program_import.runner import import_program

PROGRAM = """\
import torch
x = torch.tensor([3, 1, 2, 3, 1, 0])
r = torch.remainder(-3, torch.tensor([5, -2]))
fr = torch.remainder(2.5, torch.tensor([2, 3]))
v, i = torch.sort(x, stable=True)
pos = torch.searchsorted(torch.tensor([1, 3, 5, 7]), torch.tensor([3, 5]), right=True)
u, counts = torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1]), return_counts=True)
hist, edges = torch.histogram(torch.tensor([0.5, 1.0, 2.5, 3.0]), bins=3)
s = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
m = s.mean(axis=1, keepdims=True) + torch.sum(s, axis=0).sum()
lo, hi = torch.tensor([2.0, 2.0, 0.0]), torch.tensor([4.0, 4.0, 1.0])
c = s.clamp(lo, hi)
(m.sum() + c.sum()).backward()
"""
#: recorded from PyTorch 2.13 running PROGRAM: (values, dtype) by the document's label
GOLDEN = {
    "r": ([2, -1], "int64"),
    "fr": ([0.5, 2.5], "float32"),
    "v.values": ([0, 1, 1, 2, 3, 3], "int64"),
    "v.indices": ([5, 1, 4, 2, 0, 3], "int64"),
    "pos": ([2, 3], "int64"),
    "u.output": ([1, 2, 3, 1], "int64"),
    "u.counts": ([2, 2, 1, 1], "int64"),
    "hist.hist": ([2.0, 0.0, 2.0], "float32"),
    "hist.bin_edges": ([0.5, 1.3333332538604736, 2.1666667461395264, 3.0], "float32"),
    "m": ([[17.0], [18.0]], "float32"),
    "c": ([[3.0, 2.0, 1.0], [2.0, 4.0, 1.0]], "float32"),
}
S_GRAD = [[10 / 3, 7 / 3, 7 / 3], [7 / 3, 7 / 3, 7 / 3]]


@pytest.fixture(scope="module")
def facts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    program = tmp_path_factory.mktemp("forms") / "forms.py"
    program.write_text(PROGRAM, "utf-8")
    result = evaluate(import_program(program))
    assert result.ok, [e.message for e in result.errors]
    return {label: f for label, _, f in result.rows() if f is not None}


@pytest.mark.parametrize("label", sorted(GOLDEN))
def test_each_call_form_gives_what_pytorch_gives(facts: dict[str, object], label: str) -> None:
    values, dtype = GOLDEN[label]
    got = facts[label]
    assert got.dtype == dtype  # type: ignore[attr-defined]
    np.testing.assert_allclose(got.array, values, rtol=1e-6)  # type: ignore[attr-defined]


def test_tensor_bounds_make_clamp_s_tensor_node(facts: dict[str, object]) -> None:
    assert facts["c"].grad_fn.name == "ClampBackward0"  # type: ignore[attr-defined]
    np.testing.assert_allclose(facts["s"].grad.array, S_GRAD, rtol=1e-6)  # type: ignore[attr-defined]


def test_an_old_reduction_name_imports_as_the_one_pytorch_reads(tmp_path: Path) -> None:
    """``reduction='elementwise_mean'`` (older tutorials) is ``'mean'`` to PyTorch's
    ``_Reduction.get_enum``; the document holds ``'mean'`` and gives PyTorch's loss."""
    program = tmp_path / "old_reduction.py"
    program.write_text(
        "import torch\n"
        "x = torch.tensor([[1.0, 2.0], [0.5, 3.0]], requires_grad=True)\n"
        "loss = torch.nn.functional.cross_entropy(x, torch.tensor([1, 0]), "
        "reduction='elementwise_mean')\n"
        "loss.backward()\n",
        "utf-8",
    )
    doc = import_program(program)
    params = [n.params.get("reduction") for n in doc.nodes() if "reduction" in n.params]
    assert params == ["mean"]
    result = evaluate(doc)
    assert result.ok, [e.message for e in result.errors]
    loss = {label: f for label, _, f in result.rows() if f is not None}["loss"]
    # PyTorch 2.13 prints tensor(1.4461, grad_fn=<NllLossBackward0>)
    np.testing.assert_allclose(loss.array, 1.4461, atol=1e-4)  # type: ignore[attr-defined]


OMITTED = """\
import torch
import torch.nn.functional as F
x = torch.arange(24.0).reshape(2, 3, 4) / 10
p = F.softmax(x)
q = F.log_softmax(torch.tensor([1.0, 2.0, 4.0]))
h = F.one_hot(torch.tensor([0, 2]))
a, b = torch.unsafe_chunk(torch.arange(8.0).reshape(4, 2), 2)
r = torch.arange(3)
"""


@pytest.mark.filterwarnings("ignore:Implicit dimension choice:UserWarning")
def test_an_argument_left_out_is_what_the_call_passes_not_a_new_node_s_start(
    tmp_path: Path,
) -> None:
    """A node offered in the palette starts where a learner would (softmax over the last
    dim, ``one_hot`` with 3 classes); an imported call that leaves the argument out passes
    PyTorch's default (the implicit dim, 0 for a 3-d input; as many classes as the data
    needs; ``unsafe_chunk``'s dim 0). Values printed by PyTorch 2.13."""
    program = tmp_path / "omitted.py"
    program.write_text(OMITTED, "utf-8")
    result = evaluate(import_program(program))
    assert result.ok, [e.message for e in result.errors]
    got = {label: f.array for label, _, f in result.rows() if f is not None}  # type: ignore[attr-defined]
    np.testing.assert_allclose(got["p"][:, 0, 0], [0.23147520422935486, 0.7685248255729675])
    np.testing.assert_allclose(got["q"], [-3.1698460578918457, -2.1698460578918457, -0.16984604])
    np.testing.assert_array_equal(got["h"], [[1, 0, 0], [0, 0, 1]])
    np.testing.assert_array_equal(got["a"], [[0.0, 1.0], [2.0, 3.0]])
    np.testing.assert_array_equal(got["r"], [0, 1, 2])
