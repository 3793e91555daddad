"""Verify with PyTorch: every bundled example agrees; a broken engine op is caught."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import engine
from gradstudio.cli import main
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.facts import GradValue, TraceExecution
from gradstudio.instruments.records import StepRecord, records_of
from gradstudio.instruments.verify import compare, format_report, verify
from gradstudio.interchange.fileformat import load_document
from gradstudio.interchange.pytorch_import import import_snippet

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.gstudio"))
LEAF_GRAD = ROOT / "resources" / "examples" / "001_leaf_grad.gstudio"


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.torch
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_bundled_example_agrees_with_pytorch(path: Path) -> None:
    code, out, err = _cli("verify", str(path), "--trust")
    assert code == 0, out + err
    assert "everything agrees" in out
    assert "difference" not in out


@pytest.mark.torch
def test_a_wrong_engine_op_is_reported_on_its_node(monkeypatch: pytest.MonkeyPatch) -> None:
    real = engine.mul
    monkeypatch.setattr(engine, "mul", lambda *a, **k: real(*a, **k) * 1.5)
    code, out, _ = _cli("verify", str(LEAF_GRAD), "--json")
    assert code == 1
    report = json.loads(out)
    assert not report["agrees"]
    marks = {n["label"]: n["differences"] for n in report["nodes"]}
    assert not marks["w"] and not marks["a"]  # before the broken op all agrees
    y_facts = {d["fact"] for d in marks["y"]}
    # the extra ``* 1.5`` puts a MulBackward0 whose edges lead to another MulBackward0
    assert y_facts == {"value", "next_functions"}
    assert any(d["fact"] == "grad" and d["tensor"] == "w" for d in marks["y.backward()"])


def test_without_pytorch_it_says_how_to_install_and_exits_2(tmp_path: Path) -> None:
    fake = tmp_path / "torch"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('hidden for this test')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "verify", str(LEAF_GRAD)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert "pip install torch" in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_compare_lists_each_differing_fact_once() -> None:
    ev = evaluate(load_document(LEAF_GRAD))
    ours = records_of(ev)
    theirs = list(ours)
    y_step = ev.plan.step_of["n5"]
    changed = dict(theirs[y_step].changed)
    (ref,) = changed
    facts = changed[ref]
    assert facts is not None
    changed[ref] = type(facts)(**{**vars(facts), "array": facts.array + 1, "version": 3})
    theirs[y_step] = StepRecord(**{**vars(theirs[y_step]), "changed": changed})
    report = compare(ev.plan, ours, theirs)
    assert not report.agrees
    diffs = report.mark("n5").differences
    assert {(d.tensor, d.fact) for d in diffs} == {("y", "value"), ("y", "_version")}
    # the later steps do not repeat a difference nobody changed again
    assert all(m.agrees for m in report.marks if m.node_id != "n5")


def test_compare_reports_backward_order_and_edge_gradients() -> None:
    ev = evaluate(load_document(LEAF_GRAD))
    ours = records_of(ev)
    step = ev.plan.step_of["n6"]
    trace = ours[step].trace
    assert trace is not None and len(trace) > 2
    swapped = (trace[1], trace[0], *trace[2:])
    theirs = list(ours)
    theirs[step] = StepRecord(**{**vars(ours[step]), "trace": swapped})
    (diff,) = compare(ev.plan, ours, theirs).mark("n6").differences
    assert diff.fact == "backward order"

    first = trace[0]
    target, g = first.outgoing[0]
    assert g is not None
    wrong = GradValue(g.array * 2, g.shape, g.dtype, g.device)
    edited = TraceExecution(
        first.key, first.name, first.incoming, ((target, wrong), *first.outgoing[1:])
    )
    theirs[step] = StepRecord(**{**vars(ours[step]), "trace": (edited, *trace[1:])})
    diffs = compare(ev.plan, ours, theirs).mark("n6").differences
    assert [d.fact for d in diffs] == ["edge 0 gradient"]


ERRORS_AND_WARNINGS = """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
g = y.grad
y.sum().backward()
y.sum().backward()
"""


def _records_with_an_error() -> tuple[Any, list[StepRecord]]:
    ev = evaluate(import_snippet(ERRORS_AND_WARNINGS))
    assert ev.steps[2].warnings and ev.steps[-1].error is not None
    return ev, records_of(ev)


@pytest.mark.torch
def test_errors_and_warnings_are_compared_with_pytorch() -> None:
    report = verify(import_snippet(ERRORS_AND_WARNINGS))
    assert report.agrees, format_report(report)


def test_compare_reports_a_different_error_and_a_missing_warning() -> None:
    ev, ours = _records_with_an_error()
    theirs = list(ours)
    last = ours[-1]
    assert last.error is not None
    theirs[-1] = StepRecord(**{**vars(last), "error": (last.error[0], "another message")})
    theirs[2] = StepRecord(**{**vars(ours[2]), "warnings": ()})
    report = compare(ev.plan, ours, theirs)
    assert [d.fact for d in report.marks[-1].differences] == ["error"]
    (warning,) = report.marks[2].differences
    assert warning.fact == "warnings" and warning.torch == "none"
    assert "another message" in format_report(report)


def test_a_different_dtype_is_one_difference_not_also_a_value() -> None:
    ev = evaluate(load_document(LEAF_GRAD))
    ours = records_of(ev)
    theirs = list(ours)
    changed = dict(theirs[0].changed)
    (ref,) = changed
    facts = changed[ref]
    assert facts is not None and facts.dtype == "float32"
    changed[ref] = type(facts)(**{**vars(facts), "dtype": "float64"})
    theirs[0] = StepRecord(**{**vars(theirs[0]), "changed": changed})
    (diff,) = compare(ev.plan, ours, theirs).marks[0].differences
    assert (diff.tensor, diff.fact, diff.engine, diff.torch) == ("w", "dtype", "float32", "float64")


UNINITIALISED = """
import torch
x = torch.ones(3, requires_grad=True)
e = torch.empty_like(x)
f = e.fill_(2.0)
y = (x * f).sum()
"""


def test_an_uninitialised_tensors_values_are_compared_once_written() -> None:
    """``empty_like``'s values are whatever memory held, under either library: verify
    compares its other facts at its step, and its values once an op writes them."""
    ev = evaluate(import_snippet(UNINITIALISED))
    ours = records_of(ev)
    theirs = list(ours)
    step = next(i for i, s in enumerate(ev.plan.steps) if s.type.uninitialised)
    changed = dict(theirs[step].changed)
    (ref,) = changed
    facts = changed[ref]
    assert facts is not None
    changed[ref] = type(facts)(**{**vars(facts), "array": facts.array + 7})
    theirs[step] = StepRecord(**{**vars(theirs[step]), "changed": changed})
    assert compare(ev.plan, ours, theirs).agrees
    changed[ref] = type(facts)(**{**vars(facts), "array": facts.array + 7, "version": 5})
    theirs[step] = StepRecord(**{**vars(theirs[step]), "changed": changed})
    (diff,) = compare(ev.plan, ours, theirs).marks[step].differences
    assert diff.fact == "_version"
    theirs[step] = ours[step]
    written = step + 1  # ``fill_``: its output is ``e`` itself
    changed = {
        ref: type(f)(**{**vars(f), "array": f.array + 1})
        for ref, f in theirs[written].changed.items()
        if f is not None
    }
    theirs[written] = StepRecord(**{**vars(theirs[written]), "changed": changed})
    diffs = compare(ev.plan, ours, theirs).marks[written].differences
    assert diffs and {d.fact for d in diffs} == {"value"}


def _with_value(ev: Any, step: int, change: Any) -> list[StepRecord]:
    """The engine's records with one step's tensor values changed by ``change``."""
    records = list(records_of(ev))
    changed = dict(records[step].changed)
    (ref,) = changed
    facts = changed[ref]
    assert facts is not None
    changed[ref] = type(facts)(**{**vars(facts), "array": change(facts.array.copy())})
    records[step] = StepRecord(**{**vars(records[step]), "changed": changed})
    return records


def test_a_float32_element_that_cancels_is_judged_by_its_tensor_s_size() -> None:
    """An entry of a product that cancels to near 0 carries the rounding of the large
    terms it added (BLAS's order): it agrees within 2e-5 of the tensor's largest value,
    where elementwise rtol alone would call sgemm's drift a difference; a difference of
    1e-4 of the largest, or 1e-3 of a large element, is still one."""
    ev = evaluate(import_snippet("import torch\nx = torch.tensor([500.0, 0.0, 3.0])\n"))
    ours = records_of(ev)

    def at(i: int, delta: float) -> Any:
        def change(a: Any) -> Any:
            a[i] += delta
            return a

        return change

    assert compare(ev.plan, ours, _with_value(ev, 0, at(1, 5e-3))).agrees
    assert not compare(ev.plan, ours, _with_value(ev, 0, at(1, 5e-2))).agrees
    assert not compare(ev.plan, ours, _with_value(ev, 0, at(0, 0.5))).agrees
