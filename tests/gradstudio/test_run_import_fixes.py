"""Run to Import's facts agree with PyTorch's where they once did not, and its failures
come as one line, never as an internal error.

The expected gradients were recorded from PyTorch 2.13 running each program.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from gradstudio.evaluation.evaluate import Evaluation, evaluate
from gradstudio.interchange.program_import.notebook import program_of
from gradstudio.interchange.program_import.recorder import write_report
from gradstudio.interchange.program_import.runner import Recording, import_program
from gradstudio.interchange.pytorch_import import ImportProblem

PROGRAMS = Path(__file__).parent / "programs"


def _grads(ev: Evaluation) -> dict[str, list[float]]:
    assert ev.ok, [e.message for e in ev.errors]
    return {
        label: facts.grad.array.tolist()
        for label, _, facts in ev.rows()
        if facts is not None and facts.grad is not None
    }


def test_a_hook_changing_its_gradient_in_place_is_kept() -> None:
    """``grad.mul_(100)`` returning None changes what backward computes (was 100x small)."""
    doc = import_program(PROGRAMS / "hook_in_place.py")
    [hook] = [n for n in doc.nodes() if n.type_id == "gradstudio.hook"]
    assert hook.params["source"].startswith("def scale(grad):")
    assert _grads(evaluate(doc))["x"] == [1800.0, 3600.0]


def test_setting_requires_grad_is_recorded() -> None:
    """``t.requires_grad = True`` after ``.double()``: the leaf requires grad, backward runs."""
    grads = _grads(evaluate(import_program(PROGRAMS / "requires_grad_set.py")))
    assert grads["t"] == [2.0, 4.0, 6.0]
    assert grads["u"] == [2.0, 2.0]


def test_pools_and_convs_take_sizes_per_dim_and_numpy_ints() -> None:
    grads = _grads(evaluate(import_program(PROGRAMS / "pool_sizes.py")))
    assert grads["x"] == [
        [
            [
                [6.25, 8.5, 9.5, 6.25],
                [9.25, 11.5, 11.5, 8.25],
                [8.25, 11.5, 11.5, 8.25],
                [6.25, 9.5, 9.5, 6.25],
            ]
        ]
    ]


def test_hooks_that_only_look_become_hook_nodes_that_fire() -> None:
    """``loss.register_hook(lambda g: seen.append(g))``: its code uses the program's list,
    so a stand-in of it takes its place; the printing one keeps its own code."""
    doc = import_program(PROGRAMS / "observing_hooks.py")
    hooks = {n.label: n for n in doc.nodes() if n.type_id == "gradstudio.hook"}
    assert set(hooks) == {"hook_1", "hook_2"}
    assert "seen.append(g)" in hooks["hook_1"].params["source"]
    assert hooks["hook_2"].params["source"] == 'hook_2 = lambda g: print("y grad", g)\n'
    ev = evaluate(doc)
    assert _grads(ev)["x"] == [18.0, 36.0]
    [step] = [s for s in ev.steps if s.trace is not None]
    assert [h.text for h in step.trace.hooks] == [
        "hook hook_1 fired on SumBackward0, returned None, handed tensor(1.)",
        "hook hook_2 fired on MulBackward0, returned None, handed tensor([ 6., 12.])",
    ]


def test_a_report_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    out = str(tmp_path / "events.json")
    write_report({"events": [object()]}, out)  # not JSON: the error is written instead
    report = json.loads(Path(out).read_text(encoding="utf-8"))
    assert report["error"].startswith("the recording could not be written: TypeError")
    assert not Path(out + ".partial").exists()


def test_a_cut_recording_is_one_line_not_an_internal_error(tmp_path: Path) -> None:
    """A recording cut short (the child stopped while writing) is an ``ImportProblem``."""
    program = tmp_path / "p.py"
    program.write_text("x = 1\n", encoding="utf-8")
    recording = Recording(program)
    recording.proc.wait()
    Path(recording.output).write_text('{"events": [', encoding="utf-8")
    with pytest.raises(ImportProblem, match="the recording could not be read"):
        recording.report()


def _notebook(path: Path, *cells: str) -> Path:
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_markdown_cell("# Autograd")]
    book.cells += [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(book, str(path))
    return path


def test_a_notebook_runs_its_code_cells_in_order_each_a_frame(tmp_path: Path) -> None:
    book = _notebook(
        tmp_path / "intro.ipynb",
        "!pip install torch\n%matplotlib inline\nimport torch",
        "# make the data\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()",
        "%%time\ny.backward()\nif True:\n    !ls\nprint(null := 1)",
    )
    source, cells = program_of(book)
    assert source.splitlines()[:3] == ["pass", "pass", "import torch"]
    assert [c.title for c in cells] == ["cell 1", "make the data", "cell 3"]
    doc = import_program(book)
    groups = sorted((g.kind, g.title, len(g.members)) for g in doc.groups.values())
    assert groups == [("cell", "cell 3", 1), ("cell", "make the data", 3)]  # 3: backward
    assert _grads(evaluate(doc))["x"] == [2.0, 4.0]


def test_a_notebooks_error_is_told_by_cell_and_line(tmp_path: Path) -> None:
    book = _notebook(tmp_path / "bad.ipynb", "import torch", "a = 1\nb = undefined_name")
    with pytest.raises(ImportProblem) as err:
        import_program(book)
    assert str(err.value) == "cell 2, line 2: NameError: name 'undefined_name' is not defined"


def test_a_file_that_is_not_a_notebook_is_refused_in_one_line(tmp_path: Path) -> None:
    book = tmp_path / "broken.ipynb"
    book.write_text("{not json", encoding="utf-8")
    with pytest.raises(ImportProblem, match="the notebook cannot be read"):
        import_program(book)


def test_a_document_too_large_to_load_is_not_written(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    """``import --run`` once wrote a file ``run`` then refused as too large."""
    from gradstudio.interchange import fileformat

    doc = import_program(PROGRAMS / "requires_grad_set.py")
    monkeypatch.setattr(fileformat, "MAX_FILE_BYTES", 1000)
    target = tmp_path / "big.gstudio"
    with pytest.raises(fileformat.DocumentError, match="more than a GradStudio document may"):
        fileformat.save_document(doc, target)
    assert not target.exists()


def test_float32_literals_are_written_short_and_read_back_exactly() -> None:
    import numpy as np

    from gradstudio.interchange.program_import.recorder import short_values

    values = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    short = short_values(values)
    assert np.array_equal(np.asarray(short, dtype=np.float64).astype(np.float32), values)
    assert len(repr(short)) < 0.7 * len(repr(values.tolist()))
    assert short_values(np.array([0.1], dtype=np.float32)) == [0.1]
