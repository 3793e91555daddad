"""The compiled core: only a build of the source as it is now is ever loaded, pure Python
is always the fallback, and the engine behaves the same either way."""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import engine
from engine import build
from engine import compiled_core as cc
from engine.autograd import engine_run

#: These tests load both modes themselves.
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fake_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout with one listed module, ``engine.hot``, and an empty build folder."""
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "hot.py").write_text("X = 1\n")
    monkeypatch.setattr(cc, "ROOT", tmp_path)
    monkeypatch.setattr(cc, "BUILD_DIR", tmp_path / "build" / "cython")
    monkeypatch.setattr(cc, "MODULES", ("engine.hot",))
    monkeypatch.setattr(cc, "_compiled", {})
    monkeypatch.setattr(cc, "_stale", [])
    return tmp_path


def _fake_build(tree: Path) -> Path:
    ext = cc.extension_path("engine.hot", (tree / "engine" / "hot.py").read_bytes())
    ext.parent.mkdir(parents=True, exist_ok=True)
    ext.write_bytes(b"")
    return ext


def test_state_follows_the_source(fake_tree: Path) -> None:
    assert cc.state("engine.hot") == "missing"
    _fake_build(fake_tree)
    assert cc.state("engine.hot") == "fresh"
    (fake_tree / "engine" / "hot.py").write_text("X = 2\n")
    assert cc.state("engine.hot") == "stale"


def test_the_hook_finds_a_fresh_build(fake_tree: Path, capsys: pytest.CaptureFixture) -> None:
    ext = _fake_build(fake_tree)
    spec = cc.CompiledCoreFinder().find_spec("engine.hot", None)
    assert spec is not None and spec.origin == str(ext)
    assert isinstance(spec.loader, importlib.machinery.ExtensionFileLoader)
    assert cc.compiled() == {"engine.hot": str(ext)}
    assert capsys.readouterr().err == ""


def test_a_stale_build_falls_back_with_one_line(
    fake_tree: Path, capsys: pytest.CaptureFixture
) -> None:
    _fake_build(fake_tree)
    (fake_tree / "engine" / "hot.py").write_text("X = 2\n")
    finder = cc.CompiledCoreFinder()
    assert finder.find_spec("engine.hot", None) is None
    assert finder.find_spec("engine.hot", None) is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "engine.hot" in err and "engine.build" in err
    assert cc.compiled() == {}


def test_a_missing_build_falls_back_silently(
    fake_tree: Path, capsys: pytest.CaptureFixture
) -> None:
    finder = cc.CompiledCoreFinder()
    assert finder.find_spec("engine.hot", None) is None
    assert finder.find_spec("engine.other", None) is None
    assert capsys.readouterr().err == ""


def test_build_says_why_it_is_pure_and_fails_loudly_where_it_could_build(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(build, "status", lambda: {m: "missing" for m in cc.MODULES})
    monkeypatch.setattr(cc, "missing_tools", lambda: "no C compiler")
    assert build.main([]) == 0
    assert "pure Python: no C compiler" in capsys.readouterr().out

    def broken(modules: list[str], jobs: int) -> list[str]:
        raise RuntimeError("gcc exploded")

    monkeypatch.setattr(cc, "missing_tools", lambda: None)
    monkeypatch.setattr(build, "build", broken)
    assert build.main([]) == 1  # a compiler was there: the failure is an error, on stderr
    said = capsys.readouterr()
    assert "ERROR" in said.err and "gcc exploded" in said.err


def test_status_lists_every_module(capsys: pytest.CaptureFixture) -> None:
    assert build.main(["--status"]) == 0
    lines = capsys.readouterr().out.splitlines()
    listed = {line.split()[1]: line.split()[0] for line in lines if not line.startswith("(")}
    assert listed.keys() == set(cc.MODULES)
    assert set(listed.values()) <= {"fresh", "stale", "missing"}


def test_fresh_builds_are_the_ones_running() -> None:
    """In this process (``GRADSTUDIO_PURE`` aside) a module runs compiled exactly when
    its build is fresh."""
    expected = set() if cc.pure_forced() else {m for m in cc.MODULES if cc.state(m) == "fresh"}
    assert set(engine.compiled()) == expected
    for m in cc.MODULES:
        assert sys.modules[m].__file__.endswith(".py") == (m not in expected)


def test_pure_is_forced_by_the_environment() -> None:
    code = (
        "import sys, engine\n"
        "from engine import compiled_core as cc\n"
        "assert engine.compiled() == {}, engine.compiled()\n"
        "assert all(sys.modules[m].__file__.endswith('.py') for m in cc.MODULES)\n"
        "print(engine.autograd.engine_run.SOLE_HOLDER)\n"
    )
    env = {**os.environ, cc.PURE_ENV: "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3"
    assert out.stderr == ""


def test_the_sole_holder_count_matches_how_the_module_runs() -> None:
    expected = 2 if "engine.autograd.engine_run" in engine.compiled() else 3
    counted = engine_run.SOLE_HOLDER
    assert counted == expected


def test_warnings_point_at_the_callers_line() -> None:
    """Compiled functions have no frames; the warning still names this file and line."""
    x = engine.ones(2, requires_grad=True)
    y = x * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        y.grad  # the non-leaf .grad warning
        float(engine.ones(1, requires_grad=True))
        (x * x).sum().backward(create_graph=True)
    assert len(caught) == 3
    assert [w.filename for w in caught] == [__file__] * 3
    assert [w.lineno for w in caught] == [line, line + 1, line + 2]


def test_editing_the_declarations_makes_the_build_stale(fake_tree: Path) -> None:
    """A module's ``.pxd`` types its loops: a build of an older one is never loaded."""
    (fake_tree / "engine" / "hot.pxd").write_text("cpdef int f(int x)\n")
    ext = cc.extension_path("engine.hot", cc.source_bytes("engine.hot"))
    ext.parent.mkdir(parents=True, exist_ok=True)
    ext.write_bytes(b"")
    assert cc.state("engine.hot") == "fresh"
    (fake_tree / "engine" / "hot.pxd").write_text("cpdef long f(long x)\n")
    assert cc.state("engine.hot") == "stale"
    assert cc.CompiledCoreFinder().find_spec("engine.hot", None) is None
