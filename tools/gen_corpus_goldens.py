"""Goldens for ``tests/gradstudio/test_corpus_import.py``: what each real program's
variables hold under PyTorch when it ends.

Run with torch installed: ``python tools/gen_corpus_goldens.py [NAME...]`` (all programs of
``tests/programs`` without names). Each program runs under real torch in a child process;
every tensor bound to a top-level variable at the end is written with its shape, dtype,
``requires_grad``, values and ``.grad`` to ``tests/gradstudio/corpus_goldens/NAME.json``.
The test then imports the program by running it on the engine, evaluates the document and
compares the node named for each variable with these facts, so it runs without torch.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "programs"
GOLDENS = ROOT / "tests" / "gradstudio" / "corpus_goldens"

#: Runs in the child: the program under torch, then its variables' facts as JSON.
CHILD = r"""
import contextlib, io, json, runpy, sys, warnings
import torch

def plain(t):
    t = t.detach().cpu()
    if t.dtype in (torch.float16, torch.bfloat16):
        t = t.float()
    return t.tolist() if t.numel() <= 4096 else None

def facts(t):
    grad = None
    if t.is_leaf or t.retains_grad:
        g = t.grad
        grad = None if g is None else plain(g)
    return {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch."),
            "requires_grad": t.requires_grad, "value": plain(t), "grad": grad}

warnings.simplefilter("ignore")
sys.argv = [sys.argv[1]]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        scope = runpy.run_path(sys.argv[0], run_name="__main__")
        error = None
    except BaseException as exc:
        scope, error = {}, type(exc).__name__
out = {"error": error, "tensors": {}}
for name, value in scope.items():
    if isinstance(value, torch.Tensor) and not name.startswith("_"):
        out["tensors"][name] = facts(value)
print(json.dumps(out))
"""


def _run(program: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(program)],
        cwd=str(program.parent),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def golden(program: Path) -> dict:
    """The facts of two runs; a value or gradient that differs between them comes from a
    draw PyTorch seeds anew in each process (``torch.rand`` before any ``manual_seed``):
    it is kept as None with ``varies`` set, and the test compares the rest."""
    runs = [_run(program), _run(program)]
    first, second = (
        json.loads(r.communicate(timeout=300)[0].strip().splitlines()[-1]) for r in runs
    )
    for name, facts in first["tensors"].items():
        other = second["tensors"].get(name, {})
        for fact in ("value", "grad"):
            if facts[fact] != other.get(fact):
                facts[fact] = None
                facts[f"{fact}_varies"] = True
    return first


def main(names: list[str]) -> int:
    GOLDENS.mkdir(exist_ok=True)
    programs = [PROGRAMS / f"{n}.py" for n in names] or sorted(PROGRAMS.glob("*.py"))
    for program in programs:
        data = golden(program)
        target = GOLDENS / f"{program.stem}.json"
        target.write_text(json.dumps(data, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{program.stem}: {len(data['tensors'])} tensors")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
