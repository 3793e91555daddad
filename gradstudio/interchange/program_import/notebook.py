"""A Jupyter notebook as the one program its code cells make, run in order.

Shell (``!pip install ...``) and magic (``%matplotlib inline``, ``%%time``) lines are
IPython's, not Python's: each becomes ``pass`` at its indentation, so every cell keeps its
line numbers and an error is told as the cell and line a reader sees. Each cell is a
frame of the document, titled with its first comment or its number.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import nbformat

from gradstudio.interchange.pytorch_import import ImportProblem

SUFFIX = ".ipynb"
MAX_TITLE = 60


@dataclass(frozen=True)
class Cell:
    """One code cell: its number among the code cells, its title and its lines in the
    program (first and last, 1-based, inclusive)."""

    number: int
    title: str
    first: int
    last: int


def is_notebook(path: str | Path) -> bool:
    return str(path).lower().endswith(SUFFIX)


def _python_line(line: str) -> str:
    text = line.lstrip()
    if text.startswith(("!", "%")):
        return line[: len(line) - len(text)] + "pass"
    return line


def _title(lines: list[str], number: int) -> str:
    for line in lines:
        text = line.strip()
        if text.startswith("#") and text.lstrip("#").strip():
            return text.lstrip("#").strip()[:MAX_TITLE]
    return f"cell {number}"


def program_of(path: str | Path) -> tuple[str, list[Cell]]:
    """The notebook's code cells as one Python source, and where each cell lies in it."""
    try:
        book = nbformat.read(str(path), as_version=4)
    except Exception as exc:  # nbformat raises JSON, schema and reader errors alike
        raise ImportProblem(f"the notebook cannot be read: {exc}") from None
    lines: list[str] = []
    cells: list[Cell] = []
    for cell in book.cells:
        if cell.get("cell_type") != "code":
            continue
        body = [_python_line(line) for line in str(cell.get("source", "")).splitlines()]
        if not body:
            continue
        number = len(cells) + 1
        cells.append(Cell(number, _title(body, number), len(lines) + 1, len(lines) + len(body)))
        lines.extend(body)
    return "\n".join(lines) + "\n", cells


def write_program(path: str | Path, folder: str) -> tuple[str, str]:
    """Write the notebook's program and its cells into ``folder``: their two paths."""
    source, cells = program_of(path)
    program = str(Path(folder) / f"{Path(path).stem}.py")
    Path(program).write_text(source, encoding="utf-8")
    layout = str(Path(folder) / "cells.json")
    Path(layout).write_text(json.dumps([asdict(c) for c in cells]), encoding="utf-8")
    return program, layout


def read_cells(layout: str) -> list[Cell]:
    return [Cell(**c) for c in json.loads(Path(layout).read_text(encoding="utf-8"))]


def cell_at(cells: list[Cell], line: int) -> Cell | None:
    return next((c for c in cells if c.first <= line <= c.last), None)


def where(cells: list[Cell], line: int | None) -> str:
    """``cell 3, line 2`` for a line of the program, as a reader of the notebook finds it."""
    cell = None if line is None else cell_at(cells, line)
    if cell is None or line is None:
        return ""
    return f"cell {cell.number}, line {line - cell.first + 1}"
