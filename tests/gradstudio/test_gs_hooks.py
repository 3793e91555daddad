"""Hook nodes: hooks that change gradients come in (by running and by reading), run only
in trusted documents, export back, and the backward replay says when each fired."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

from gradstudio.document.clipboard import copy_nodes
from gradstudio.document.commands import PasteCommand
from gradstudio.document.model import Document
from gradstudio.document.undo import UndoStack
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.playhead import Playhead
from gradstudio.evaluation.results import Evaluation
from gradstudio.interchange.fileformat import dumps, loads
from gradstudio.interchange.program_import.runner import import_program
from gradstudio.interchange.pytorch_export import export_script
from gradstudio.interchange.pytorch_import import ImportProblem, import_snippet

PROGRAMS = Path(__file__).parent / "programs"
TUTORIAL = PROGRAMS / "hooks_tutorial.py"
#: the tutorial without its looking hook (which uses the program's list ``seen``)
SNIPPET = TUTORIAL.read_text("utf-8").replace(
    "seen = []\nx.register_hook(lambda grad: seen.append(grad))\n", ""
)

#: recorded from PyTorch 2.13 running hooks_tutorial.py
GOLDEN_GRADS = {
    "x": [1.8243606090545654, 1.1516326665878296, 0.9502129554748535],
    "w": [1.0, -1.0, 0.14936119318008423],
}
#: PyTorch's order: Exp's pre-hook, the tensor hook on y then MulBackward0's post-hook,
#: then w's tensor hook as its AccumulateGrad runs
GOLDEN_FIRINGS = [
    ("hook", "ExpBackward0"),
    ("double", "MulBackward0"),
    ("hook_2", "MulBackward0"),
    ("clip", "AccumulateGrad"),
]


def _grads(ev: Evaluation) -> dict[str, list[float]]:
    assert ev.ok, [e.message for e in ev.errors]
    return {
        label: facts.grad.array.tolist()
        for label, _, facts in ev.rows()
        if facts is not None and facts.grad is not None
    }


def _backward(ev: Evaluation):  # noqa: ANN202
    [step] = [s for s in ev.steps if s.trace is not None]
    return step


def test_recorded_hooks_become_nodes_holding_their_code() -> None:
    doc = import_program(TUTORIAL)
    hooks = {n.label: n for n in doc.nodes() if n.type_id == "gradstudio.hook"}
    assert set(hooks) == {"double", "hook", "hook_2", "clip"}  # the looking hook is left out
    assert hooks["double"].params["source"] == "def double(grad):\n    return grad * 2\n"
    assert hooks["hook"].params["on"] == "grad_fn_pre"
    assert hooks["hook_2"].params["source"].startswith("hook_2 = lambda grad_inputs,")
    [edge] = doc.inputs_of(hooks["double"].id, "tensor")
    assert doc.node(edge.src).label == "y"
    assert doc.trusted  # the user consented to running the program


def test_recorded_hooks_agree_with_golden() -> None:
    ev = evaluate(import_program(TUTORIAL))
    grads = _grads(ev)
    for name, expected in GOLDEN_GRADS.items():
        np.testing.assert_allclose(grads[name], expected, rtol=1e-6)
    trace = _backward(ev).trace
    assert [(h.name, h.on) for h in trace.hooks] == GOLDEN_FIRINGS
    names = [ex.name for ex in trace.executions]
    for firing in trace.hooks:  # each firing sits at the grad_fn it fired on
        assert names[firing.before] == firing.on
    assert trace.hooks[1].returned.startswith("tensor([1.6487, 0.6065, 0.0498]")


@pytest.mark.torch
def test_recorded_hooks_agree_with_torch() -> None:
    pytest.importorskip("torch")
    scope = runpy.run_path(str(TUTORIAL))
    grads = _grads(evaluate(import_program(TUTORIAL)))
    for name in ("x", "w"):
        np.testing.assert_allclose(grads[name], scope[name].grad.numpy(), rtol=1e-6)


@pytest.mark.torch
def test_exported_hooks_run_under_torch_with_the_same_grads() -> None:
    pytest.importorskip("torch")
    code = export_script(import_program(TUTORIAL), facts=False)
    assert "def double(grad):" in code and "y.register_hook(double)" in code
    assert "z.grad_fn.register_prehook(hook)" in code
    exported = runpy.run_path(str(TUTORIAL))  # the program itself ...
    mine: dict[str, object] = {}
    exec(code, mine)  # ... and its export, both under PyTorch
    for name in ("x", "w"):
        np.testing.assert_allclose(mine[name].grad.numpy(), exported[name].grad.numpy())


def test_the_static_importer_reads_defs_and_lambdas_as_hook_nodes() -> None:
    doc = import_snippet(SNIPPET, trusted=True)
    recorded = import_program(TUTORIAL)
    kinds = sorted(
        (n.label, n.params["on"], n.params["source"])
        for n in doc.nodes()
        if n.type_id == "gradstudio.hook"
    )
    assert kinds == sorted(
        (n.label, n.params["on"], n.params["source"])
        for n in recorded.nodes()
        if n.type_id == "gradstudio.hook"
    )
    grads = _grads(evaluate(doc))
    np.testing.assert_allclose(grads["x"], GOLDEN_GRADS["x"], rtol=1e-6)
    again = import_snippet(export_script(doc, facts=False), trusted=True)
    np.testing.assert_allclose(_grads(evaluate(again))["w"], GOLDEN_GRADS["w"], rtol=1e-6)


def test_the_replay_says_when_each_hook_fired_and_what_it_returned() -> None:
    ev = evaluate(import_program(TUTORIAL))
    playhead = Playhead()
    playhead.set_evaluation(ev)
    playhead.go_to_step(_backward(ev).step)
    assert playhead.caption().replay.endswith("4 hook calls")
    names = [ex.name for ex in _backward(ev).trace.executions]
    playhead.go_to_replay(names.index("MulBackward0") + 1)
    text = playhead.caption().replay
    assert "grad_fn 3 / 5: MulBackward0" in text
    assert "hook double fired on MulBackward0, returned tensor([1.6487, 0.6065, 0.0498]" in text
    assert "hook hook_2 fired on MulBackward0" in text
    assert "clip" not in text
    playhead.go_to_replay(1)
    assert playhead.hooks_now() == ()


def test_a_hook_using_the_programs_names_is_refused_at_its_line(tmp_path: Path) -> None:
    program = tmp_path / "scaled.py"
    program.write_text(
        "import torch\n"
        "scale = 3.0\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = x * 2\n"
        "y.register_hook(lambda grad: grad * scale)\n"
        "y.sum().backward()\n",
        "utf-8",
    )
    with pytest.raises(ImportProblem, match="uses scale from the program") as info:
        import_program(program)
    assert info.value.lineno == 5


def test_a_post_hook_returning_the_wrong_count_fails_as_in_torch() -> None:
    code = (
        "import torch\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "w = torch.ones(2, requires_grad=True)\n"
        "y = x * w\n"
        "y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0],))\n"
        "y.sum().backward()\n"
    )
    ev = evaluate(import_snippet(code, trusted=True))
    [error] = ev.errors
    # PyTorch 2.13's message
    assert error.message == (
        "hook '<lambda>' has returned an incorrect number of values (got 1, but expected 2)"
    )


# -- trust: a hook's code is code ----------------------------------------------------


def _hostile(marker: Path) -> str:
    return (
        "import torch\n"
        "def mark(grad):\n"
        f"    open({str(marker)!r}, 'w').close()\n"
        "    return grad\n"
        "x = torch.tensor([1.0], requires_grad=True)\n"
        "y = x * 2\n"
        "y.register_hook(mark)\n"
        "y.sum().backward()\n"
    )


def _runs_hook(doc: Document, marker: Path) -> bool:
    marker.unlink(missing_ok=True)
    ev = evaluate(doc)
    ran = marker.exists()
    assert ran or "NotTrustedError" in [e.exc_type for e in ev.errors]
    return ran


def test_hook_code_runs_only_in_trusted_documents(tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    trusted = import_snippet(_hostile(marker), trusted=True)
    assert _runs_hook(trusted, marker)  # so the checks below can fail
    assert trusted.has_code()
    assert not _runs_hook(import_snippet(_hostile(marker)), marker)
    assert not _runs_hook(loads(dumps(trusted)), marker)
    assert not marker.exists()


def test_pasting_a_hook_makes_the_document_untrusted(tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    source = import_snippet(_hostile(marker), trusted=True)
    doc = Document(trusted=True)
    UndoStack().push(PasteCommand(doc, copy_nodes(source, list(source.order))))
    assert not doc.trusted
    assert not _runs_hook(doc, marker)


def test_the_static_importer_refuses_a_hook_using_the_programs_names() -> None:
    code = (
        "import torch\n"
        "seen = []\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "x.register_hook(lambda grad: seen.append(grad))\n"
    )
    with pytest.raises(ImportProblem, match="uses seen from the program") as info:
        import_snippet(code)
    assert info.value.lineno == 4


def test_module_forward_hooks_come_in_as_the_ops_they_run() -> None:
    """A forward (pre-)hook runs inside the module's call: its ops are recorded there."""
    doc = import_program(PROGRAMS / "module_forward_hooks.py")
    assert [n.type_id for n in doc.nodes()].count("torch.mul") == 1  # output * 2
    facts = {label: f for label, _, f in evaluate(doc).rows() if f is not None}
    # recorded from PyTorch 2.13 running the program
    np.testing.assert_allclose(
        facts["x"].grad.array, [[-0.85843425989151, 0.1746937334537506, -0.6407291889190674]]
    )
    np.testing.assert_allclose(float(facts["out"].array), -3.561807155609131, rtol=1e-6)


@pytest.mark.torch
def test_module_forward_hooks_agree_with_torch() -> None:
    pytest.importorskip("torch")
    scope = runpy.run_path(str(PROGRAMS / "module_forward_hooks.py"))
    facts = {
        label: f
        for label, _, f in evaluate(import_program(PROGRAMS / "module_forward_hooks.py")).rows()
        if f is not None
    }
    np.testing.assert_allclose(facts["x"].grad.array, scope["x"].grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(facts["out"].array, scope["out"].detach().numpy(), rtol=1e-6)


def test_saved_tensors_hooks_that_look_import_and_agree_with_golden() -> None:
    facts = {
        label: f
        for label, _, f in evaluate(import_program(PROGRAMS / "saved_tensors_hooks.py")).rows()
        if f is not None
    }
    # recorded from PyTorch 2.13 running the program
    np.testing.assert_allclose(
        facts["a"].grad.array, [5.436563491821289, 218.39259338378906, 48618.50390625], rtol=1e-6
    )


@pytest.mark.torch
def test_saved_tensors_hooks_that_look_agree_with_torch() -> None:
    pytest.importorskip("torch")
    scope = runpy.run_path(str(PROGRAMS / "saved_tensors_hooks.py"))
    facts = {
        label: f
        for label, _, f in evaluate(import_program(PROGRAMS / "saved_tensors_hooks.py")).rows()
        if f is not None
    }
    np.testing.assert_allclose(facts["a"].grad.array, scope["a"].grad.numpy(), rtol=1e-6)


def test_saved_tensors_hooks_that_change_what_backward_reads_are_refused(
    tmp_path: Path,
) -> None:
    program = tmp_path / "doubling.py"
    source = (PROGRAMS / "saved_tensors_hooks.py").read_text("utf-8")
    program.write_text(
        source.replace("    return x\n\n\na =", "    return x * 2\n\n\na ="), "utf-8"
    )
    assert program.read_text("utf-8") != source
    with pytest.raises(ImportProblem, match="saved_tensors_hooks used here change") as info:
        import_program(program)
    assert (
        info.value.lineno
        == source.splitlines().index("with torch.autograd.graph.saved_tensors_hooks(pack, unpack):")
        + 1
    )


def test_a_post_accumulate_hook_changing_grad_in_place_becomes_a_node() -> None:
    """It returns None, yet changes ``.grad``: the recorder sees the change, not the return."""
    doc = import_program(PROGRAMS / "post_accumulate_hook.py")
    [hook] = [n for n in doc.nodes() if n.type_id == "gradstudio.hook"]
    assert hook.params["on"] == "post_accumulate_grad"
    ev = evaluate(doc)
    # recorded from PyTorch 2.13 running the program
    assert _grads(ev)["w"] == [1.0, 2.0]
    assert [h.text for h in _backward(ev).trace.hooks] == [
        "hook halve fired on AccumulateGrad, returned None"
    ]


@pytest.mark.torch
def test_a_post_accumulate_hook_exports_and_agrees_with_torch() -> None:
    pytest.importorskip("torch")
    scope = runpy.run_path(str(PROGRAMS / "post_accumulate_hook.py"))
    doc = import_program(PROGRAMS / "post_accumulate_hook.py")
    exported: dict[str, object] = {}
    exec(export_script(doc, facts=False), exported)
    np.testing.assert_array_equal(exported["w"].grad.numpy(), scope["w"].grad.numpy())
    np.testing.assert_array_equal(_grads(evaluate(doc))["w"], scope["w"].grad.numpy())
