"""A custom Function node has one input port per argument of its forward (issue 30): the
document, the file format (version 4, migrating version 3's single ``inputs`` port), the
evaluator, the worker, the importer and the exporter agree on them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gradstudio.document.commands import SetParamCommand
from gradstudio.document.model import Document
from gradstudio.document.undo import UndoStack
from gradstudio.document.values import EditError
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.plan import prepare
from gradstudio.evaluation.results import Evaluation
from gradstudio.evaluation.worker import run_plan
from gradstudio.function_args import (
    args_text,
    check_args,
    forward_parameters,
    named_arguments,
    parse_args_text,
)
from gradstudio.interchange.fileformat import DocumentError, dumps, loads
from gradstudio.interchange.pytorch_export import export_script
from gradstudio.interchange.pytorch_import import import_snippet

V3_004 = Path(__file__).parent / "files" / "004_custom_function_v3.gstudio"

STAR = """class Cat(Function):
    @staticmethod
    def forward(ctx, *xs):
        return xs[0] + xs[1] * 2

    @staticmethod
    def backward(ctx, g):
        return g, g * 2
"""
NEW_STYLE = """class Mul(Function):
    @staticmethod
    def forward(a, b):
        return a * b

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a
"""


def _grad(doc: Document, ev: Evaluation, label: str) -> list[float]:
    node = doc.node_by_label(label)
    assert node is not None
    facts = ev.final.facts(node.id)
    assert facts is not None and facts.grad is not None
    return np.asarray(facts.grad.array).ravel().tolist()


def _v3(**changes) -> dict:  # noqa: ANN003
    data = json.loads(V3_004.read_text())
    d = next(n for n in data["nodes"] if n["id"] == "n3")
    d["params"].update(changes)
    return data


# ------------------------------------------------------------------ the argument list


def test_arguments_read_and_write_as_a_learner_types_them() -> None:
    args = [{"name": "x"}, {"name": "z", "value": 4}, {"name": "m", "value": [1.5, 2]}]
    assert args_text(args) == "x, z=4, m=[1.5, 2]"
    assert parse_args_text("x, z=4, m=[1.5, 2]") == args
    assert parse_args_text("a, *rest") == [{"name": "a"}, {"name": "rest", "variadic": True}]
    assert parse_args_text("") == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([{"input": 0}], "an argument is {'name': n}"),
        ([{"name": "x"}, {"name": "x"}], "argument 'x' is named twice"),
        ([{"name": "1x"}], "is a Python name"),
        ([{"name": "a", "variadic": True}, {"name": "b", "variadic": True}], "at most one"),
        ([{"name": "z", "value": {"a": 1}}], "data holds numbers and lists only"),
    ],
)
def test_a_bad_argument_list_is_refused(value: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_args(value)


def test_forward_is_read_without_running_the_code() -> None:
    code = "import os\nos.system('false')\n" + STAR
    assert [(p.name, p.variadic) for p in forward_parameters(code, "Cat")] == [("xs", True)]
    assert [p.name for p in forward_parameters(NEW_STYLE, "Mul")] == ["a", "b"]  # no ctx
    assert forward_parameters("class Func(", "Func") is None
    assert forward_parameters(STAR, "Other") is None


# --------------------------------------------------------------------- the document


def test_the_palettes_function_has_its_templates_one_port() -> None:
    doc = Document(trusted=True)
    node = doc.new_node("torch.autograd.Function")
    assert node.params["args"] == [{"name": "x"}]
    assert [p.name for p in node.type.inputs] == ["x"]


def test_seed_004_wires_x_and_y_and_passes_z() -> None:
    doc = loads(V3_004.read_bytes())
    doc.set_trusted(True)
    d = doc.node_by_label("d")
    assert [(p.name, p.optional, p.preset) for p in d.type.inputs] == [
        ("x", False, None),
        ("y", False, None),
        ("z", True, "4"),
    ]
    ev = evaluate(doc)
    assert ev.ok
    assert _grad(doc, ev, "a") == [10.0] and _grad(doc, ev, "b") == [9.0]


def test_removing_a_wired_argument_is_refused_by_the_document() -> None:
    doc = loads(V3_004.read_bytes())
    d = doc.node_by_label("d")
    with pytest.raises(EditError, match="input 'y' is connected"):
        doc.set_param(d.id, "args", [{"name": "x"}, {"name": "z", "value": 4}])


def test_new_code_sets_the_ports_and_undo_restores_wires_and_ports() -> None:
    doc = loads(V3_004.read_bytes())
    d = doc.node_by_label("d").id
    stack = UndoStack()
    before = sorted(doc.edges())
    code = doc.node(d).params["source"].replace("x: torch.Tensor, y", "x: torch.Tensor, w")
    stack.push(SetParamCommand(doc, d, "source", code))
    assert doc.node(d).params["args"] == [{"name": "x"}, {"name": "w"}, {"name": "z", "value": 4}]
    wired = {e.dst_port for e in doc.edges() if e.dst == d}
    assert wired == {"x"}  # y's wire went with its port
    stack.undo()
    assert sorted(doc.edges()) == before
    assert [p.name for p in doc.node(d).type.inputs] == ["x", "y", "z"]
    stack.redo()
    assert [p.name for p in doc.node(d).type.inputs] == ["x", "w", "z"]


def test_code_that_does_not_parse_keeps_the_ports() -> None:
    doc = loads(V3_004.read_bytes())
    d = doc.node_by_label("d").id
    stack = UndoStack()
    stack.push(SetParamCommand(doc, d, "source", "class Func(:\n"))
    assert [p.name for p in doc.node(d).type.inputs] == ["x", "y", "z"]
    assert len([e for e in doc.edges() if e.dst == d]) == 2


# ------------------------------------------------------------------- the file format


def test_version_3_migrates_and_saves_as_version_4() -> None:
    doc = loads(V3_004.read_bytes())
    saved = json.loads(dumps(doc))
    assert saved["version"] == 4
    d = next(n for n in saved["nodes"] if n["label"] == "d")
    assert d["params"]["args"] == [{"name": "x"}, {"name": "y"}, {"name": "z", "value": 4}]
    to_d = sorted((e["to"][1], e["from"][0]) for e in saved["edges"] if e["to"][0] == d["id"])
    assert to_d == [("x", "n1"), ("y", "n2")]
    again = loads(dumps(doc))
    assert sorted(again.edges()) == sorted(doc.edges())


def test_version_3_empty_args_and_a_star_forward_spread_in_slot_order() -> None:
    data = _v3(source=STAR, class_name="Cat", args=[])
    doc = loads(json.dumps(data))
    doc.set_trusted(True)
    d = doc.node_by_label("d")
    assert d.params["args"] == [{"name": "xs", "variadic": True}]
    assert [(e.dst_port, e.slot, e.src) for e in doc.inputs_of(d.id, "xs")] == [
        ("xs", 0, "n1"),
        ("xs", 1, "n2"),
    ]
    ev = evaluate(doc)
    assert _grad(doc, ev, "a") == [1.0] and _grad(doc, ev, "b") == [2.0]


def test_version_3_with_code_that_does_not_parse_still_loads() -> None:
    doc = loads(json.dumps(_v3(source="class Func(:\n")))
    d = doc.node_by_label("d")
    assert [p.name for p in d.type.inputs] == ["input0", "input1", "input2"]
    assert {e.dst_port for e in doc.edges() if e.dst == d.id} == {"input0", "input1"}


def test_version_3_passing_one_tensor_twice_wires_it_twice() -> None:
    doc = loads(json.dumps(_v3(args=[{"input": 0}, {"input": 0}, {"value": 4}])))
    d = doc.node_by_label("d")
    wired = sorted((e.dst_port, doc.node(e.src).label) for e in doc.edges() if e.dst == d.id)
    assert wired == [("x", "a"), ("y", "a")]  # b was wired but no argument used it


def test_a_bad_version_3_argument_is_a_document_error() -> None:
    with pytest.raises(DocumentError, match="at nodes/2/params/args"):
        loads(json.dumps(_v3(args=[{"input": -1}])))


def test_named_arguments_fall_back_to_input_names_past_forward() -> None:
    args, where = named_arguments([{"input": 0}, {"value": 2}], 1, "x = 1\n", "Func")
    assert args == [{"name": "input0"}, {"name": "input1", "value": 2}]
    assert where == [[("input0", 0)]]


# ----------------------------------------------------- evaluator, importer, exporter


def test_the_worker_gets_each_nodes_own_ports() -> None:
    doc = loads(V3_004.read_bytes())
    doc.set_trusted(True)
    ev = run_plan(prepare(doc))
    assert ev.ok and _grad(doc, ev, "b") == [9.0]


def test_import_of_a_new_style_function_names_its_ports() -> None:
    code = (
        "import torch\nfrom torch.autograd import Function\n\n"
        + NEW_STYLE
        + "\np = torch.tensor([2.0], requires_grad=True)\n"
        "q = torch.tensor([3.0], requires_grad=True)\n"
        "r = Mul.apply(p, q)\nr.backward()\n"
    )
    doc = import_snippet(code, trusted=True)
    r = doc.node_by_label("r")
    assert r.params["args"] == [{"name": "a"}, {"name": "b"}]
    assert {e.dst_port: doc.node(e.src).label for e in doc.edges() if e.dst == r.id} == {
        "a": "p",
        "b": "q",
    }
    ev = evaluate(doc)
    assert _grad(doc, ev, "p") == [3.0] and _grad(doc, ev, "q") == [2.0]


def test_the_exporter_passes_each_argument_in_order() -> None:
    doc = loads(V3_004.read_bytes())
    script = export_script(doc, facts=False)
    assert "d = Func.apply(a, b, 4)" in script


@pytest.mark.torch
def test_the_exported_script_gives_pytorchs_gradients(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    doc = loads(V3_004.read_bytes())
    a = doc.node_by_label("a").id
    d = doc.node_by_label("d").id
    doc.connect(a, "out", d, "z")  # z = a, a tensor, where the file passes 4
    script = export_script(doc, facts=False)
    assert "d = Func.apply(a, b, a)" in script
    path = tmp_path / "s.py"
    path.write_text(script + "\nprint(a.grad.item(), b.grad.item())\n")
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=True)
    doc.set_trusted(True)
    ev = evaluate(doc)
    theirs = [float(v) for v in out.stdout.split()]
    # gx = y + y * z = 4 (z's gradient is None), gy = x + z + x * z = 3, as PyTorch says
    assert [_grad(doc, ev, "a")[0], _grad(doc, ev, "b")[0]] == theirs == [4.0, 3.0]
