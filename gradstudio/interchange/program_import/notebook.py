"""A Jupyter notebook as the program Run to Import runs: its code cells, in order.

The notebook is read with ``nbformat`` (a file that is not a notebook is refused in one
line).  Each code cell becomes a stretch of one script, opened by a call of
``CELL_MARKER(n)`` that the recorder answers by starting the cell's frame, so every cell
is a frame of the document.  Shell (``!ls``) and magic (``%matplotlib``) lines are not
Python: each becomes ``pass`` at its indentation, so line numbers and blocks stay; a
cell magic other than the timing ones (``%%bash``) drops its whole cell.  A line of the
script is told back to the user as "cell 3, line 2".

The cells' text never enters the marker line: a cell is named by its number only, and
its title (its first comment, or "cell 3") is set on the document afterwards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from gradstudio.document.groups import MAX_TITLE
from gradstudio.interchange.program_import.frames import CELL_MARKER
from gradstudio.interchange.pytorch_import import ImportProblem
from gradstudio.interchange.quoting import one_line

#: Cell magics whose body is the cell's Python, run as such.
_PYTHON_CELL_MAGICS = ("%%time", "%%timeit", "%%capture")
_SHELL_OR_MAGIC = re.compile(r"^(\s*)[!%]")


@dataclass(frozen=True)
class Cell:
    """A code cell: its number among the code cells, its title, and where it sits in the
    script (its marker line; its own lines follow)."""

    number: int
    title: str
    marker: int
    lines: int


@dataclass(frozen=True)
class NotebookScript:
    """The script a notebook runs as, and its cells."""

    source: str
    cells: tuple[Cell, ...]

    def where(self, line: int) -> str:
        """Line ``line`` of the script as the notebook's user sees it."""
        for cell in reversed(self.cells):
            if line >= cell.marker:
                inside = line - cell.marker
                return f"cell {cell.number}" + (f", line {inside}" if inside else "")
        return f"line {line}"

    def without_markers(self) -> str:
        """The cells' code alone (each marker line left blank, so lines stay where they
        are): what the importer that reads code without running it takes."""
        marker = f"{CELL_MARKER}("
        return "".join(
            "\n" if line.startswith(marker) else line
            for line in self.source.splitlines(keepends=True)
        )

    def titles(self) -> dict[str, str]:
        """Each cell's title by its number (as text, the frames' ``meta["cell"]``)."""
        return {str(c.number): c.title for c in self.cells}


def is_notebook(path: str | Path) -> bool:
    return str(path).lower().endswith(".ipynb")


def _title(number: int, lines: list[str]) -> str:
    for line in lines:
        text = line.strip()
        if text.startswith("#"):
            comment = one_line(text.lstrip("#").strip(), MAX_TITLE)
            if comment:
                return comment
        elif text:
            break
    return f"cell {number}"


def _python_lines(lines: list[str]) -> list[str] | None:
    """The cell's lines with shell and magic lines made ``pass``; None for a cell that
    is not Python (a cell magic such as ``%%bash``)."""
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith("%%") and first.split()[0] not in _PYTHON_CELL_MAGICS:
        return None
    out = []
    for line in lines:
        found = _SHELL_OR_MAGIC.match(line)
        out.append(f"{found.group(1)}pass" if found else line)
    return out


def read_notebook(path: str | Path) -> NotebookScript:
    """The notebook at ``path`` as a script, or ``ImportProblem`` saying why not."""
    try:
        notebook = nbformat.read(str(path), as_version=4)
    except OSError as exc:
        raise ImportProblem(f"cannot read {Path(path).name}: {exc.strerror or exc}") from None
    except Exception as exc:  # nbformat raises JSON, schema and version errors alike
        raise ImportProblem(f"{Path(path).name} is not a Jupyter notebook: {exc}") from None
    script: list[str] = []
    cells: list[Cell] = []
    number = 0
    for cell in notebook.cells:
        if cell.get("cell_type") != "code":
            continue
        number += 1
        lines = str(cell.get("source", "")).splitlines()
        python = _python_lines(lines)
        if python is None:
            continue
        script.append(f"{CELL_MARKER}({number})")
        cells.append(Cell(number, _title(number, lines), len(script), len(python)))
        script.extend(python)
    return NotebookScript("\n".join(script) + "\n", tuple(cells))


def located(problem: ImportProblem, notebook: NotebookScript) -> ImportProblem:
    """``problem``, its line told as the notebook's cell and line."""
    if problem.lineno is None:
        return problem
    return ImportProblem(f"{notebook.where(problem.lineno)}: {problem.message}")
