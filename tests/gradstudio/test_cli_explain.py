"""``main.py explain FILE --node LABEL [--step N]``: the Explain view's text, and one-line
errors (exit code 2) for a label or a step that names nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.gradstudio.cli_run import run_cli

ROOT = Path(__file__).resolve().parents[2]


def test_explains_seed_001(seed_file: Path) -> None:
    code, out, err = run_cli("explain", str(seed_file), "--node", "w")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == (
        "w.grad = 5 = a-path (MulBackward0: ∂y/∂a = b = 2) · (AddBackward0: ∂a/∂w = 1) "
        "+ b-path (MulBackward0: ∂y/∂b = a = 3) · (AddBackward0: ∂b/∂w = 1)"
    )


def test_at_a_step_and_inside_a_replay(seed_file: Path) -> None:
    code, out, _ = run_cli("explain", str(seed_file), "--node", "w", "--step", "2")
    assert code == 0 and out == "w.grad = None: no backward has run by step 2\n"
    code, out, _ = run_cli("explain", str(seed_file), "--node", "w", "--step", "6", "--replay", "1")
    assert code == 0 and "grad_fn 1 of 5: MulBackward0 receives 1" in out


def test_non_leaf_offers_the_fix(seed_file: Path) -> None:
    code, out, _ = run_cli("explain", str(seed_file), "--node", "b")
    assert code == 0
    assert "Fix: call b.retain_grad() before backward" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--node", "nope"), "error: no tensor labelled 'nope' (tensors: a, b, w, x, y)"),
        (("--node", "w", "--step", "7"), "gradstudio: error: no step 7: the document has 6 steps"),
        (("--node", "w", "--step", "0"), "expected a step number from 1, got '0'"),
    ],
)
def test_clear_errors(seed_file: Path, args: tuple[str, ...], message: str) -> None:
    code, out, err = run_cli("explain", str(seed_file), *args)
    assert code == 2 and out == ""
    assert message in err and len(err.splitlines()) == 1


def test_through_main_py(seed_file: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "explain", str(seed_file), "--node", "x"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("x.grad = 2 = a-path")
