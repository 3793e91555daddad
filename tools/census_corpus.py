"""Build the census corpus: real learner programs, as their authors wrote them, run as
``tests/programs/real_*.py`` against the goldens PyTorch printed for them.

    .venv/bin/python tools/census_corpus.py           # write every program from the mirrors
    .venv/bin/python tools/census_corpus.py NAME ...  # some of them

The programs are other people's code, which stays out of this repository: what is kept is
``tools/census/corpus.json`` (for each program its repository, commit, path and license, and
our adaptations: the notebook cells taken (with the values they display printed, where
asked), the lines dropped (plots, downloads, files), and
the few literal replacements that shrink data and steps so a pure-Python run takes seconds),
the goldens ``tests/programs/real_*.out`` recorded under PyTorch, and this builder. It reads
each file out of the git snapshot fetched under ``/work/.mirror/OWNER+NAME/repo`` (``fetch
github:OWNER/NAME``); the programs it writes are ignored by git. Every program opens with its
source.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tools" / "census" / "corpus.json"
PROGRAMS = ROOT / "tests" / "programs"
MIRRORS = Path("/work/.mirror")
MAX_LINES = 80
_MAGIC = re.compile(r"^\s*[%!]")
#: A string standing alone as a statement (a docstring): prose, not code.
_DOCSTRING = re.compile(r'^[ \t]*("""|\'\'\')[\s\S]*?\1[ \t]*$', re.M)


def mirror(repo: str) -> Path:
    return MIRRORS / repo.replace("/", "+") / "repo"


def source_text(entry: dict[str, Any]) -> str:
    """The file at the recorded commit; a notebook's chosen code cells, joined."""
    out = subprocess.run(
        ["git", f"--git-dir={mirror(entry['repo'])}", "show", f"{entry['commit']}:{entry['path']}"],
        capture_output=True,
        text=True,
        check=True,
    )
    text = out.stdout
    if not entry["path"].endswith(".ipynb"):
        return text
    cells = [c for c in json.loads(text)["cells"] if c.get("cell_type") == "code"]
    chosen = entry.get("cells", range(len(cells)))
    chunks = []
    for i in chosen:
        src = cells[i]["source"]
        src = "".join(src) if isinstance(src, list) else src
        chunks.append(displayed(src) if entry.get("display") else src)
    return "\n".join(chunks) + "\n"


def displayed(cell: str) -> str:
    """A cell whose last line is an expression prints its repr, as the notebook shows it
    (a trailing ``;`` hides it there, and here)."""
    code = "\n".join(line for line in cell.splitlines() if not _MAGIC.match(line))
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    last = tree.body[-1] if tree.body else None
    if not isinstance(last, ast.Expr) or code.rstrip().endswith(";"):
        return code
    call = last.value
    if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "print":
        return code
    lines = code.splitlines()
    head, tail = lines[: last.lineno - 1], lines[last.lineno - 1 :]
    return "\n".join([*head, "print(repr(" + "\n".join(tail).strip() + "))"])


def adapt(entry: dict[str, Any], text: str) -> str:
    """Our adaptations, each checked to still apply to the recorded file."""
    for old, new in entry.get("replace", []):
        if old not in text:
            raise ValueError(f"{entry['name']}: {old!r} is not in {entry['path']}")
        text = text.replace(old, new)
    text = _DOCSTRING.sub("", text)
    drops = [re.compile(p) for p in entry.get("drop", [])]
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if _MAGIC.match(line) or any(d.search(line) for d in drops):
            continue
        if not stripped or (stripped.startswith("#") and not stripped.startswith("#!")):
            continue  # blank and comment-only lines: the 80-line budget is for code
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


def header(entry: dict[str, Any]) -> str:
    url = f"https://github.com/{entry['repo']}/blob/{entry['commit']}/{entry['path']}"
    return (
        f"# Source: {url.replace(' ', '%20')}\n"
        f"# License: {entry['license']}. Written by its authors, not by us; built by "
        f"tools/census_corpus.py from the fetched snapshot (not committed); adapted: "
        f"{entry['adapted']}.\n"
    )


def build(entry: dict[str, Any]) -> Path:
    body = adapt(entry, source_text(entry))
    program = header(entry) + body
    n = len(program.splitlines())
    if n > MAX_LINES:
        raise ValueError(f"{entry['name']}: {n} lines, more than {MAX_LINES}")
    path = PROGRAMS / f"{entry['name']}.py"
    path.write_text(program)
    return path


def main() -> None:
    entries = json.loads(CORPUS.read_text())["programs"]
    wanted = set(sys.argv[1:])
    failed = 0
    for entry in entries:
        if wanted and entry["name"] not in wanted:
            continue
        if not mirror(entry["repo"]).exists():
            print(f"skip {entry['name']}: fetch github:{entry['repo']} first", file=sys.stderr)
            failed += 1
            continue
        path = build(entry)
        print(f"built {path.relative_to(ROOT)} ({len(path.read_text().splitlines())} lines)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
