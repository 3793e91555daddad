"""Run to Import takes a Jupyter notebook: its code cells run in order (shell and magic
lines dropped), each cell is a frame titled with its first comment, and an error names
its cell and line."""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pytest

from gradstudio.cli import main
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.program_import.notebook import read_notebook
from gradstudio.interchange.program_import.runner import import_program
from gradstudio.interchange.pytorch_import import ImportProblem

CELLS = [
    "%matplotlib inline\n!pip install torch\nimport torch",
    "# Make the data\nx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
    "w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)",
    "%%bash\necho this is not Python",
    "# Forward and backward\ny = (x * w).sum()\nfor i in range(2):\n    !echo loop\n"
    "    y = y * 2\ny.backward()",
]


def _notebook(tmp_path: Path, cells: list[str], name: str = "lesson.ipynb") -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Gradients"),
        *map(nbformat.v4.new_code_cell, cells),
    ]
    path = tmp_path / name
    nbformat.write(nb, str(path))
    return path


def test_a_notebook_imports_with_a_frame_per_cell(tmp_path: Path) -> None:
    doc = import_program(_notebook(tmp_path, CELLS))
    cells = sorted((g.meta["cell"], g.title) for g in doc.groups.values() if g.kind == "cell")
    assert cells == [("2", "Make the data"), ("4", "Forward and backward")]
    loops = [g for g in doc.groups.values() if g.kind == "loop"]
    forward = next(g for g in doc.groups.values() if g.title == "Forward and backward")
    assert loops and all(g.parent == forward.id for g in loops)
    result = evaluate(doc)
    assert not result.errors
    facts = {label: f for label, _, f in result.rows() if f is not None}
    # what PyTorch gives: x.grad = 4 w, w.grad = 4 x
    np.testing.assert_array_equal(facts["x"].grad.array, [2.0, -4.0, 8.0])
    np.testing.assert_array_equal(facts["w"].grad.array, [4.0, 8.0, 12.0])


def test_an_error_names_its_cell_and_line(tmp_path: Path) -> None:
    path = _notebook(tmp_path, [*CELLS, "z = y * 2\nz = undefined_name + 1"])
    with pytest.raises(ImportProblem) as err:
        import_program(path)
    assert str(err.value) == "cell 5, line 2: NameError: name 'undefined_name' is not defined"


def test_a_syntax_error_names_its_cell(tmp_path: Path) -> None:
    with pytest.raises(ImportProblem, match=r"^cell 2, line 1: SyntaxError"):
        import_program(_notebook(tmp_path, ["import torch", "x = (1,"]))


def test_a_file_that_is_not_a_notebook_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.ipynb"
    path.write_text("{not json", "utf-8")
    with pytest.raises(ImportProblem, match=r"^broken.ipynb is not a Jupyter notebook: ") as err:
        import_program(path)
    assert "\n" not in str(err.value)


def test_cell_text_reaches_the_script_only_as_the_cells_own_code(tmp_path: Path) -> None:
    """A title is the document's, never code: the marker line names the cell by number."""
    hostile = '# ") ; import os ; os.system("echo owned") ; ("\nimport torch'
    script = read_notebook(_notebook(tmp_path, [hostile]))
    marker, comment, code = script.source.splitlines()
    assert marker == "__gradstudio_cell__(1)"
    assert comment.startswith("#") and code == "import torch"
    assert script.cells[0].title.startswith('") ; import os')
    assert script.where(3) == "cell 1, line 2"


def test_the_cli_reads_a_notebook_without_running_it_too(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = _notebook(tmp_path, [*CELLS[:2], "# Use\ny = (x * w).sum()\ny.backward()"])
    out = tmp_path / "static.gstudio"
    assert main(["import", str(path), "-o", str(out)]) == 0 and out.exists()
    looped = _notebook(tmp_path, CELLS, "looped.ipynb")
    assert main(["import", str(looped), "-o", str(out)]) == 2
    assert (
        "looped.ipynb: cell 4, line 3: GradStudio cannot represent a For" in capsys.readouterr().err
    )
