"""Gradcheck a node, memory per step, and what an edit changed."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from gradstudio.cli import main
from gradstudio.document.model import Document
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.instruments.diff import diff
from gradstudio.instruments.gradcheck import CannotGradcheck, gradcheck
from gradstudio.instruments.memory import freed_by, memory
from gradstudio.interchange.fileformat import load_document, save_document
from gradstudio.interchange.pytorch_import import import_snippet
from gradstudio.interchange.trust import TrustStore

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"
RIGHT_GY = "gy = grad_out * (x + z + x * z)"
WRONG_GY = "gy = grad_out * (x + z)"


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _custom_function(wrong: bool = False) -> Document:
    doc = load_document(EXAMPLES / "004_custom_function.gstudio")
    doc.set_trusted(True)
    if wrong:
        node = next(n for n in doc.nodes() if n.label == "d")
        source = node.params["source"]
        assert RIGHT_GY in source
        doc.set_param(node.id, "source", source.replace(RIGHT_GY, WRONG_GY))
    return doc


def _node(doc: Document, label: str) -> str:
    return next(n.id for n in doc.nodes() if n.label == label)


# ---------------------------------------------------------------------- gradcheck


def test_gradcheck_passes_a_right_backward() -> None:
    result = gradcheck(_custom_function(), "d")
    assert result.passed and result.max_error < 1e-6
    # a = 1, b = 2, z = 4: d/da = b + b z = 10, d/db = a + z + a z = 9
    np.testing.assert_allclose(result.analytic, [[10.0, 9.0]])
    np.testing.assert_allclose(result.numerical, [[10.0, 9.0]], rtol=1e-6)
    assert [c.name for c in result.columns] == ["a", "b"]


def test_gradcheck_flags_a_wrong_gy_with_the_entry_that_differs() -> None:
    result = gradcheck(_custom_function(wrong=True), "d")
    assert not result.passed
    (entry,) = result.mismatches
    assert (entry.output, entry.input, entry.input_index) == ("d", "b", ())
    assert entry.analytic == pytest.approx(5.0) and entry.numerical == pytest.approx(9.0)
    assert result.worst == entry and result.max_error == pytest.approx(4.0)


def test_gradcheck_command_exit_codes(tmp_path: Path) -> None:
    right, wrong = tmp_path / "right.gstudio", tmp_path / "wrong.gstudio"
    store = TrustStore(tmp_path / "t.json")
    save_document(_custom_function(), right, store)
    save_document(_custom_function(wrong=True), wrong, store)
    code, out, _ = _cli("gradcheck", str(right), "--node", "d", "--trust")
    assert code == 0 and "passed" in out
    code, out, _ = _cli("gradcheck", str(wrong), "--node", "d", "--trust")
    assert code == 1 and "d(d)/d(b): analytic 5, numerical 9" in out
    code, _, err = _cli("gradcheck", str(wrong), "--node", "d")
    assert code == 2 and "not trusted" in err
    code, _, err = _cli("gradcheck", str(right), "--node", "nope", "--trust")
    assert code == 2 and "no node is labelled 'nope'" in err


def test_gradcheck_an_op_node_in_its_context() -> None:
    doc = load_document(EXAMPLES / "003_linear_addmm.gstudio")
    result = gradcheck(doc, "out")
    assert result.passed
    assert result.analytic.shape == (
        sum(a.size for a in result.rows),
        sum(a.size for a in result.columns),
    )
    with pytest.raises(CannotGradcheck, match="not an op"):
        gradcheck(doc, "x")


# ------------------------------------------------------------------------- memory

SNIPPET = """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.retain_grad()
z = (y * y).sum()
z.backward({retain})
"""


def test_backward_frees_saved_tensors_and_only_leaves_keep_grad() -> None:
    doc = load_document(EXAMPLES / "001_leaf_grad.gstudio")
    ev = evaluate(doc)
    steps = memory(ev)
    before, after = steps[-2], steps[-1]  # y = a * b, then y.backward()
    assert [s.name for s in before.saved] == ["MulBackward0"]
    assert before.saved_bytes == 8 and before.grad_bytes == 0  # a and b, float32 [1]
    assert after.saved_bytes == 0 and after.saved[0].freed == 2
    assert freed_by(steps, after.step) == 8
    assert {g.label for g in after.grads} == {"w", "x"} and after.retained_grad_bytes == 0
    assert after.values_bytes == 5 * 4


@pytest.mark.parametrize("retain", [False, True])
def test_retain_graph_keeps_saved_tensors_and_retain_grad_keeps_grad(retain: bool) -> None:
    doc = import_snippet(SNIPPET.format(retain="retain_graph=True" if retain else ""))
    steps = memory(evaluate(doc))
    last = steps[-1]
    assert freed_by(steps, last.step) == (0 if retain else steps[-2].saved_bytes)
    assert (last.saved_bytes > 0) == retain
    assert last.retained_grad_bytes == 8  # y.grad, float32 [2]
    assert {g.label for g in last.grads if not g.retained} == {"x"}


def test_a_view_shares_its_bases_storage() -> None:
    doc = import_snippet(
        "import torch\nx = torch.zeros(4, 4)\nv = x[0]\nt = x.t()\nc = x[0].clone()\n"
    )
    last = memory(evaluate(doc))[-1]
    assert {v.label: v.bytes for v in last.values} == {"x": 64, "v": 0, "t": 0, "x[0]": 0, "c": 16}
    assert last.values_bytes == 80


VIEWS_AND_REUSE = """import torch
x = torch.ones(3, requires_grad=True)
v = x[0]
y = x * 2
y.retain_grad()
x2 = x
w = y.t()
z = (y * w).sum()
z.backward(retain_graph=True)
z.backward()
"""


@pytest.mark.parametrize(
    "source",
    [*sorted((EXAMPLES).glob("*.gstudio")), VIEWS_AND_REUSE, SNIPPET.format(retain="")],
    ids=lambda s: s.name if isinstance(s, Path) else str(len(s)),
)
def test_running_totals_agree_with_the_itemised_picture_at_every_step(
    source: Path | str,
) -> None:
    """The totals kept per step (what the strip draws) are the sums of the items the
    inspector lists, worked out afresh from the facts at that step."""
    doc = load_document(source) if isinstance(source, Path) else import_snippet(source)
    steps = memory(evaluate(doc))
    assert steps
    for m in steps:
        assert m.values_bytes == sum(v.bytes for v in m.values)
        assert m.saved_bytes == sum(s.bytes for s in m.saved)
        assert m.saved_private_bytes == sum(s.private_bytes for s in m.saved)
        assert m.grad_bytes == sum(g.bytes for g in m.grads)
        assert m.retained_grad_bytes == sum(g.bytes for g in m.grads if g.retained)
        assert (m.saved_count, m.grad_count) == (len(m.saved), len(m.grads))
    for n in (0, 1, 2):
        fresh = memory(evaluate(doc))  # asked for the head before the whole
        for m, again in zip(steps, fresh, strict=True):
            assert again.head(n) == (m.saved[:n], m.grads[:n])


# --------------------------------------------------------------------------- diff


def test_diff_of_flipping_requires_grad() -> None:
    doc = load_document(EXAMPLES / "001_leaf_grad.gstudio")
    before = evaluate(doc)
    assert diff(before, evaluate(doc)) == {}
    w = _node(doc, "w")
    doc.set_param(w, "requires_grad", False)
    changes = diff(before, evaluate(doc))
    facts = {(c.tensor, c.fact, str(c.before), str(c.after)) for cs in changes.values() for c in cs}
    assert facts == {
        ("w", "requires_grad", "True", "False"),
        ("w", "grad", "[5.0]", "None"),
        ("b", "requires_grad", "True", "False"),
        ("b", "is_leaf", "False", "True"),
        ("b", "grad_fn", "AddBackward0", "None"),
    }


def test_diff_of_wrapping_a_step_in_no_grad_shows_the_error_it_causes() -> None:
    doc = import_snippet(
        "import torch\nx = torch.tensor([1.0], requires_grad=True)\ny = x * 2\ny.backward()\n"
    )
    before = evaluate(doc)
    doc.set_param(_node(doc, "y"), "no_grad", True)
    changes = diff(before, evaluate(doc))
    y = {c.fact: (c.before, c.after) for c in changes[_node(doc, "y")]}
    assert y["grad_fn"] == ("MulBackward0", None) and y["requires_grad"] == (True, False)
    assert changes[_node(doc, "x")][0].fact == "grad"
    backward = next(n.id for n in doc.nodes() if n.type.id == "Tensor.backward")
    (error,) = changes[backward]
    assert error.before is None and "does not require grad" in error.after
