"""The instruments as the studio uses them: through the playhead (memory, what changed)
and in a child process (verify, gradcheck)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.playhead import Playhead
from gradstudio.instruments.gradcheck import GradcheckResult
from gradstudio.instruments.memory import memory
from gradstudio.instruments.verify import VerifyReport
from gradstudio.interchange.fileformat import load_document
from gradstudio.interchange.pytorch_import import import_snippet

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "examples"
RIGHT_GY = "gy = grad_out * (x + z + x * z)"
WRONG_GY = "gy = grad_out * (x + z)"


def _node(doc, label: str) -> str:  # type: ignore[no-untyped-def]
    return next(n.id for n in doc.nodes() if n.label == label)


def test_the_playhead_answers_memory_at_its_position() -> None:
    doc = import_snippet(
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = x * x\nz = y.sum()\nz.backward()\n"
    )
    ev = evaluate(doc)
    playhead = Playhead()
    playhead.set_evaluation(ev)
    expected = memory(ev)
    assert [m.total_bytes for m in playhead.memory_steps()] == [m.total_bytes for m in expected]
    assert playhead.memory_steps() is playhead.memory_steps()  # once per evaluation
    last = len(expected) - 1
    assert playhead.memory_now() is not None and playhead.memory_now().step == last
    assert playhead.freed_now() == expected[last - 1].saved_bytes > 0
    playhead.go_to_step(last - 1)
    assert playhead.memory_now().saved_bytes == expected[last - 1].saved_bytes
    assert playhead.freed_now() == 0
    playhead.set_evaluation(None)
    assert playhead.memory_steps() == [] and playhead.memory_now() is None


def test_the_playhead_keeps_the_previous_run_and_diffs_against_it() -> None:
    doc = load_document(EXAMPLES / "001_leaf_grad.gstudio")
    playhead = Playhead()
    playhead.set_evaluation(evaluate(doc))
    assert playhead.previous is None and playhead.changes() == {}
    doc.set_param(_node(doc, "w"), "requires_grad", False)
    playhead.set_evaluation(evaluate(doc))
    changes = playhead.changes()
    assert {c.fact for c in changes[_node(doc, "w")]} == {"requires_grad", "grad"}
    assert playhead.changes() is changes
    same = playhead.evaluation
    playhead.set_evaluation(same)  # showing the same run again keeps the comparison
    assert playhead.changes() == changes
    playhead.set_evaluation(None)  # another document: nothing to compare with
    assert playhead.previous is None and playhead.changes() == {}


def _child(tmp_path: Path, kind: str, doc, *extra: str, env=None) -> dict:  # type: ignore[no-untyped-def]
    from gradstudio.interchange.fileformat import dumps

    source, output = tmp_path / "doc.gstudio", tmp_path / "out.pickle"
    source.write_text(dumps(doc), "utf-8")
    cmd = [sys.executable, "-m", "gradstudio.instruments.studio_child", kind, str(source)]
    subprocess.run([*cmd, str(output), *extra], cwd=ROOT, env=env, timeout=300, check=True)
    with output.open("rb") as f:
        return pickle.load(f)


def test_the_child_gradchecks_a_wrong_backward(tmp_path: Path) -> None:
    doc = load_document(EXAMPLES / "004_custom_function.gstudio")
    d = _node(doc, "d")
    doc.set_param(d, "source", doc.node(d).params["source"].replace(RIGHT_GY, WRONG_GY))
    untrusted = _child(tmp_path, "gradcheck", doc, "--node", d)
    assert "trust" in untrusted["error"]
    result = _child(tmp_path, "gradcheck", doc, "--node", d, "--trusted")["result"]
    assert isinstance(result, GradcheckResult) and not result.passed
    assert [(e.input, e.analytic, e.numerical) for e in result.mismatches] == [
        ("b", pytest.approx(5.0), pytest.approx(9.0))
    ]
    assert _child(tmp_path, "gradcheck", doc, "--node", "nope")["error"]


def test_the_child_verifies_or_says_how_to_install_pytorch(tmp_path: Path) -> None:
    doc = load_document(EXAMPLES / "001_leaf_grad.gstudio")
    fake = tmp_path / "hide" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('hidden for this test')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(fake.parent), str(ROOT)]))
    payload = _child(tmp_path, "verify", doc, env=env)
    assert payload == {
        "unavailable": "PyTorch is not installed; install it with "
        "'pip install torch==2.13.0' to verify"
    }
    pytest.importorskip("torch")
    report = _child(tmp_path, "verify", doc)["result"]
    assert isinstance(report, VerifyReport) and report.agrees
