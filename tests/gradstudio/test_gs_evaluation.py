"""Evaluation with a timeline: snapshots after every step, traces, errors, cancelling."""

from __future__ import annotations

import threading

import pytest

import engine
from gradstudio.document.commands import SetParamCommand
from gradstudio.document.model import Document
from gradstudio.document.undo import UndoStack
from gradstudio.evaluation.evaluate import LiveEvaluation, evaluate
from gradstudio.evaluation.facts import waiting_text
from gradstudio.evaluation.plan import prepare
from gradstudio.interchange.pytorch_import import import_snippet
from tests.gradstudio.snippets import SEED_001


def _id(doc: Document, label: str) -> str:
    node = doc.node_by_label(label)
    assert node is not None, label
    return node.id


def test_seed_001_facts() -> None:
    doc = import_snippet(SEED_001)
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    final = ev.final
    w = final.facts(_id(doc, "w"))
    a = final.facts(_id(doc, "a"))
    assert w is not None and a is not None
    assert w.grad is not None and w.grad.value == [5.0]
    assert w.is_leaf and w.grad_fn is None
    assert not a.is_leaf and a.grad_fn_name == "AddBackward0"
    assert a.grad is None and a.grad_access_warns
    assert [n.name if n else None for n in a.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    assert a.grad_fn.next_functions[0] is not None
    acc = final.grad_fn(a.grad_fn.next_functions[0].key)
    assert acc.variable is not None and acc.variable.node_id == _id(doc, "w")
    b = final.facts(_id(doc, "b"))
    assert b is not None and b.grad_fn is not None and b.grad_fn.next_functions[1] is None


def test_snapshots_form_a_timeline() -> None:
    doc = import_snippet(SEED_001)
    ev = evaluate(doc)
    w, y = _id(doc, "w"), _id(doc, "y")
    before_backward = ev.snapshot(doc.step_of(y))
    assert before_backward.facts(w).grad is None
    assert ev.snapshot(0).facts(y) is None
    assert [ref.node_id for ref, _ in ev.snapshot(0).items()] == [w]  # only w after step 0
    saved = {s.name: s.kind for s in before_backward.facts(y).grad_fn.saved}
    assert saved == {"self": "tensor", "other": "tensor"}
    after = {s.name: s.kind for s in ev.final.facts(y).grad_fn.saved}
    assert after == {"self": "freed", "other": "freed"}


def test_backward_trace_records_order_and_edge_gradients() -> None:
    doc = import_snippet(SEED_001)
    ev = evaluate(doc)
    (trace,) = ev.traces
    names = [e.name for e in trace.executions]
    assert names[0] == "MulBackward0" and names.count("AccumulateGrad") == 2
    mul = trace.executions[0]
    assert mul.incoming[0] is not None and mul.incoming[0].value == [1.0]
    assert [(n.name, g.value) for n, g in mul.outgoing] == [
        ("AddBackward0", [2.0]),
        ("AddBackward0", [3.0]),
    ]
    add_b = next(
        e for e in trace.executions if e.name == "AddBackward0" and e.outgoing[1][0] is None
    )
    assert add_b.outgoing[1] == (None, None)


def test_error_keeps_earlier_results_and_stops() -> None:
    doc = import_snippet(SEED_001 + "y.backward()\nz = y * 2\n")
    ev = evaluate(doc)
    (error,) = ev.errors
    assert error.node_id == doc.order[-2]
    assert "second time" in error.message
    assert "retain_graph=True" in error.fix and error.title.startswith("Backward ran twice")
    assert ev.steps[-1].status == "not run"
    assert ev.result_for(_id(doc, "y")).status == "ok"
    assert ev.final.facts(_id(doc, "w")).grad.value == [5.0]


def test_inplace_step_updates_other_tensors_sharing_storage() -> None:
    doc = import_snippet(
        "import torch\na = torch.tensor(1., requires_grad=True)\nb = a * 2\n"
        "d = b.detach()\nd.zero_()\n"
    )
    ev = evaluate(doc)
    b, d = _id(doc, "b"), _id(doc, "d")
    step = doc.order[-1]
    assert ev.snapshot(doc.step_of(step) - 1).facts(b).value == 2.0
    assert ev.final.facts(b).value == 0.0 and ev.final.facts(b).version == 1
    assert ev.final.facts(d).version == 1
    assert ev.result_for(step).changed  # the timeline knows what this step changed


def test_untrusted_custom_function_does_not_run() -> None:
    marker = threading.Event()
    engine.gradstudio_test_marker = marker  # type: ignore[attr-defined]
    doc = import_snippet(
        "import torch\nfrom torch.autograd import Function\n"
        "class Boom(Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        torch.gradstudio_test_marker.set()\n"
        "        return x * 1\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g\n"
        "x = torch.tensor([1.], requires_grad=True)\ny = Boom.apply(x)\n"
    )
    assert not doc.trusted
    ev = evaluate(doc)
    (error,) = ev.errors
    assert error.exc_type == "NotTrustedError" and "trust" in error.fix.lower()
    assert not marker.is_set()
    doc.set_trusted(True)
    assert evaluate(doc).ok and marker.is_set()
    del engine.gradstudio_test_marker  # type: ignore[attr-defined]


def test_custom_function_error_shows_its_line() -> None:
    doc = import_snippet(
        "import torch\nfrom torch.autograd import Function\n"
        "class Bad(Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return x * undefined_name\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g\n"
        "x = torch.tensor([1.], requires_grad=True)\ny = Bad.apply(x)\n",
        trusted=True,
    )
    (error,) = evaluate(doc).errors
    assert error.exc_type == "NameError" and error.traceback and "line 4" in error.traceback


def test_unconnected_input_waits_instead_of_failing() -> None:
    doc = Document()
    node = doc.new_node("torch.mul", label="m")
    doc.add_node(node)
    ev = evaluate(doc)
    assert not ev.errors and ev.ok
    (result,) = ev.waiting
    assert result.node_id == node.id and result.missing == ("input", "other")
    assert waiting_text(result.missing, result.waits_for) == "connect inputs `input`, `other`"


def test_a_number_on_a_scalar_port_is_no_missing_input() -> None:
    doc = import_snippet("import torch\nx = torch.ones(2)\ny = x * 2\n")
    ev = evaluate(doc)
    assert not ev.waiting and ev.ok
    y = doc.node_by_label("y")
    assert y is not None
    doc.disconnect(doc.inputs_of(y.id, "input")[0])
    (result,) = evaluate(doc).waiting
    assert result.missing == ("input",)


def test_steps_downstream_of_a_waiting_node_wait_for_it_and_others_still_run() -> None:
    doc = import_snippet(
        "import torch\nx = torch.ones(2, requires_grad=True)\nw = torch.ones(2) * 3\n"
        "y = x.exp()\nz = y.sum()\nz.backward()\n"
    )
    m = doc.new_node("torch.mul", label="mul")
    doc.add_node(m, step=0)
    y = doc.node_by_label("y")
    assert y is not None
    doc.disconnect(doc.inputs_of(y.id, "input")[0])
    doc.connect(m.id, "out", y.id, "input")
    ev = evaluate(doc)
    assert ev.ok and not ev.errors
    waits = {doc.node(r.node_id).label: (r.missing, r.waits_for) for r in ev.waiting}
    assert waits["mul"] == (("input", "other"), "")
    assert waits["y"] == ((), "mul") and waits["z"] == ((), "mul")
    backward = [r for r in ev.waiting if doc.node(r.node_id).type.id not in ("torch.mul",)]
    assert all(r.waits_for == "mul" for r in backward)
    w = doc.node_by_label("w")
    assert w is not None and ev.result_for(w.id).status == "ok"  # independent: it ran
    assert ev.final.facts(w.id) is not None


def test_no_grad_steps_record_nothing() -> None:
    doc = import_snippet(
        "import torch\nx = torch.ones(2, requires_grad=True)\n"
        "with torch.no_grad():\n    y = x * 2\n"
    )
    y = evaluate(doc).final.facts(_id(doc, "y"))
    assert y is not None and not y.requires_grad and y.grad_fn is None


def test_cuda_without_gpu_is_an_error_on_the_first_node() -> None:
    if engine.cuda.is_available():
        pytest.skip("this machine has a GPU")
    doc = import_snippet(SEED_001)
    ev = evaluate(doc, device="cuda")
    (error,) = ev.errors
    assert error.node_id == doc.order[0]
    assert error.title == "No usable GPU", error.message


def test_cancel_and_progress() -> None:
    doc = import_snippet(SEED_001)
    seen: list[tuple[int, int]] = []
    ev = prepare(doc).run(progress=lambda step, total: seen.append((step, total)))
    assert seen[0] == (0, 6) and seen[-1] == (6, 6)
    calls = iter([False, False, True])
    ev = prepare(doc).run(cancel=lambda: next(calls))
    assert ev.cancelled and not ev.ok
    assert [s.status for s in ev.steps[:3]] == ["ok", "ok", "not run"]


def test_plan_is_independent_of_later_edits() -> None:
    doc = import_snippet(SEED_001)
    plan = prepare(doc)
    doc.set_param(_id(doc, "w"), "data", [10.0])
    assert plan.run().final.facts(_id(doc, "w")).grad.value == [5.0]


def test_live_evaluation_goes_stale_on_relevant_edits_only() -> None:
    doc = import_snippet(SEED_001)
    live = LiveEvaluation(doc)
    first = live.refresh()
    doc.move_node(_id(doc, "w"), 100, 100)
    assert live.refresh() is first
    UndoStack().push(SetParamCommand(doc, _id(doc, "w"), "data", [3.0]))
    assert live.stale
    assert live.refresh().final.facts(_id(doc, "w")).grad.value == [9.0]
    live.close()


def test_autograd_grad_and_list_items() -> None:
    doc = import_snippet(
        "import torch\nx = torch.tensor([3.], requires_grad=True)\n"
        "y = torch.tensor([4.], requires_grad=True)\nz = x * y\n"
        "gx, gy = torch.autograd.grad(z, [x, y])\n"
    )
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    assert ev.final.facts(_id(doc, "gx")).value == [4.0]
    assert ev.final.facts(_id(doc, "gy")).value == [3.0]
    assert [label for label, _, _ in ev.rows()][-4:] == [
        "torch.autograd.grad(z, [x, y])[0]",
        "torch.autograd.grad(z, [x, y])[1]",
        "gx",
        "gy",
    ]


def test_to_json_shape() -> None:
    data = evaluate(import_snippet(SEED_001)).to_json()
    row = data["nodes"][0]
    assert row["label"] == "w" and row["grad"] == [5.0] and row["value"] == [1.0]
    assert set(row) >= {
        "shape",
        "dtype",
        "device",
        "requires_grad",
        "is_leaf",
        "grad_fn",
        "retains_grad",
        "version",
    }
    assert data["errors"] == []


SEED_000 = """\
import torch
a = torch.rand(10, requires_grad=True)
b = torch.rand(10, requires_grad=True).cuda()
c = torch.rand(10, requires_grad=True) + 2
d = torch.rand(10).cuda()
e = torch.rand(10).cuda().requires_grad_()
f = torch.rand(10, requires_grad=True, device="cuda")
"""


@pytest.mark.cuda
def test_seed_000_verbatim_on_a_gpu() -> None:
    doc = import_snippet(SEED_000)
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    leaf = {label: ev.final.facts(_id(doc, label)).is_leaf for label in "abcdef"}
    assert leaf == {"a": True, "b": False, "c": False, "d": True, "e": True, "f": True}
    assert ev.final.facts(_id(doc, "f")).device == "cuda:0"
    assert ev.final.facts(_id(doc, "b")).grad_fn_name == "ToCopyBackward0"


def test_seed_000_verbatim_without_a_gpu_reports_on_the_first_cuda_node() -> None:
    if engine.cuda.is_available():
        pytest.skip("this machine has a GPU")
    doc = import_snippet(SEED_000)
    (error,) = evaluate(doc).errors
    assert doc.node(error.node_id).type_id == "Tensor.to"
    assert error.step == 2 and error.title == "No usable GPU"


def test_warnings_are_recorded_on_their_node_with_an_explanation() -> None:
    doc = import_snippet(
        "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n"
        "y.sum().backward()\ng = y.grad\n"
    )
    ev = evaluate(doc)
    assert ev.ok
    (warning,) = ev.result_for(_id(doc, "g")).warnings
    assert warning.category == "UserWarning" and "not a leaf" in warning.message
    assert warning.explanation is not None
    assert warning.explanation.startswith("Only leaves get .grad")
    assert ev.final.facts(_id(doc, "g")) is None  # .grad of a non-leaf is None


def test_reset_replaces_the_document_and_announces_it() -> None:
    from gradstudio.document.events import DocumentReset

    doc = Document()
    events = []
    doc.subscribe(events.append)
    doc.reset(import_snippet(SEED_001))
    assert events == [DocumentReset()] and len(doc) == 6
    assert evaluate(doc).ok
