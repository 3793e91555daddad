"""A custom Function whose forward returns several tensors (issue 26): its node has one
output port per tensor (``out0``, ``out1``...), backward takes one gradient per output,
and the static importer, Run to Import, the evaluator, the exporter and the file format
agree, as PyTorch does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gradstudio.document.commands import SetParamCommand
from gradstudio.document.model import Document
from gradstudio.document.undo import UndoStack
from gradstudio.document.values import EditError
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.function_args import forward_returns
from gradstudio.interchange.fileformat import dumps, loads
from gradstudio.interchange.program_import.runner import import_program
from gradstudio.interchange.pytorch_export import export_script
from gradstudio.interchange.pytorch_import import import_snippet

CLASSES = """import torch
from torch.autograd import Function


class MySplit(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clone() * 2, x.clone() * 3

    @staticmethod
    def backward(ctx, grad_a, grad_b):
        (x,) = ctx.saved_tensors
        return grad_a * 2 + grad_b * 3 * x


class SortIdx(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    def backward(ctx, g, g_idx):
        (idx,) = ctx.saved_tensors
        return torch.zeros_like(g).index_put((idx,), g)


"""
PROGRAM = (
    CLASSES
    + """x = torch.tensor([0.5, -1.0, 2.0, 1.5], requires_grad=True)
a, b = MySplit.apply(x)
v, i = SortIdx.apply(x * a)
total = (a * b).sum() + (v * torch.tensor([1.0, 10.0, 100.0, 1000.0])).sum()
total.backward()
"""
)
#: recorded from PyTorch 2.13 running PROGRAM
GOLDEN = {
    "x.grad": [6.5, -40.0, 8036.0, 622.5],
    "i": [0, 1, 3, 2],
    "grad_fn": {"a": "MySplitBackward", "v": "SortIdxBackward"},
}


def _facts(doc: Document) -> dict[str, object]:
    result = evaluate(doc)
    assert result.ok, [e.message for e in result.errors]
    return {label: facts for label, _, facts in result.rows() if facts is not None}


def _check(facts: dict[str, object], a: str, v: str, i: str) -> None:
    assert facts[a].grad_fn.name == GOLDEN["grad_fn"]["a"]  # type: ignore[attr-defined]
    assert facts[v].grad_fn.name == GOLDEN["grad_fn"]["v"]  # type: ignore[attr-defined]
    assert facts[i].array.tolist() == GOLDEN["i"]  # type: ignore[attr-defined]
    assert not facts[i].requires_grad  # type: ignore[attr-defined]
    np.testing.assert_allclose(facts["x"].grad.array, GOLDEN["x.grad"], rtol=1e-6)  # type: ignore[attr-defined]


def _function_node(doc: Document, class_name: str):  # noqa: ANN202
    return next(n for n in doc.nodes() if n.params.get("class_name") == class_name)


def test_the_forward_returns_are_read_from_the_code() -> None:
    assert forward_returns(CLASSES, "MySplit") == 2
    assert forward_returns(CLASSES, "SortIdx") == 2
    assert forward_returns(CLASSES, "Missing") is None
    assert forward_returns("class F:\n    def forward(ctx, x):\n        return x\n", "F") == 1


def test_the_static_import_gives_one_port_per_returned_tensor() -> None:
    doc = import_snippet(PROGRAM, trusted=True)
    node = _function_node(doc, "MySplit")
    assert [p.name for p in node.type.outputs] == ["out0", "out1"]
    assert node.params["outputs"] == 2
    a, v = "MySplit.apply(x)", "SortIdx.apply(x * a)"  # the static importer's labels
    _check(_facts(doc), f"{a}.out0", f"{v}.out0", f"{v}.out1")


def test_run_to_import_records_each_returned_tensor_as_its_port(tmp_path: Path) -> None:
    program = tmp_path / "split.py"
    program.write_text(PROGRAM, "utf-8")
    doc = import_program(program)
    assert _function_node(doc, "SortIdx").params["outputs"] == 2
    _check(_facts(doc), "a.out0", "v.out0", "v.out1")


def test_the_file_format_keeps_the_outputs_and_their_edges() -> None:
    doc = import_snippet(PROGRAM, trusted=True)
    again = loads(dumps(doc))
    again.set_trusted(True)
    node = _function_node(again, "MySplit")
    assert [p.name for p in node.type.outputs] == ["out0", "out1"]
    assert {e.src_port for e in again.edges_of(node.id) if e.src == node.id} == {"out0", "out1"}
    a, v = "MySplit.apply(x)", "SortIdx.apply(x * a)"
    _check(_facts(again), f"{a}.out0", f"{v}.out0", f"{v}.out1")


@pytest.mark.torch
def test_the_exported_script_runs_under_torch_with_the_same_grad() -> None:
    pytest.importorskip("torch")
    code = export_script(import_snippet(PROGRAM, trusted=True), facts=False)
    exported: dict[str, object] = {}
    exec(code, exported)
    original: dict[str, object] = {}
    exec(PROGRAM, original)
    np.testing.assert_array_equal(exported["x"].grad.numpy(), original["x"].grad.numpy())  # type: ignore[attr-defined]


def test_outputs_that_do_not_match_the_forward_are_a_clear_error() -> None:
    doc = import_snippet(PROGRAM, trusted=True)
    node = _function_node(doc, "SortIdx")
    for edge in [e for e in doc.edges_of(node.id) if e.src == node.id]:
        doc.disconnect(edge)
    doc.set_param(node.id, "outputs", 3)
    result = evaluate(doc)
    message = next(e.message for e in result.errors if e.node_id == node.id)
    assert "SortIdx.forward returned a tuple of 2, but the node has 3 outputs" in message
    with pytest.raises(EditError, match="between 1 and 32"):
        doc.set_param(node.id, "outputs", 0)


def test_fewer_outputs_disconnect_the_dropped_port_and_undo_brings_it_back() -> None:
    doc = import_snippet(PROGRAM, trusted=True)
    node = _function_node(doc, "MySplit")
    with pytest.raises(EditError, match="output 'out0' is connected"):
        doc.set_param(node.id, "outputs", 1)
    before = sorted((e.dst, e.dst_port) for e in doc.edges_of(node.id) if e.src == node.id)
    stack = UndoStack()
    stack.push(SetParamCommand(doc, node.id, "outputs", 1))
    node = doc.node(node.id)
    assert [p.name for p in node.type.outputs] == ["out"]
    assert not [e for e in doc.edges_of(node.id) if e.src == node.id]
    stack.undo()
    after = sorted((e.dst, e.dst_port) for e in doc.edges_of(node.id) if e.src == node.id)
    assert after == before
