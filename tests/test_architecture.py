"""The layering rules: ui > gradstudio > engine, and no Qt below ui."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QT_PACKAGES = ("PySide6", "shiboken6")
QT_LINE = re.compile(
    r"^\s*(?:import|from)\s+(?:[\w.]+\s*,\s*)*(?:PySide6|shiboken6)\b"
    r"|(?:import_module|__import__)\(\s*['\"](?:PySide6|shiboken6)\b",
    re.MULTILINE,
)


def _lint_imports() -> str | None:
    here = Path(sys.executable).parent / "lint-imports"
    return str(here) if here.exists() else shutil.which("lint-imports")


def test_import_linter_contracts_are_kept() -> None:
    exe = _lint_imports()
    if exe is None:
        pytest.fail("lint-imports is not installed (pip install -e '.[dev]')")
    proc = subprocess.run(
        [exe, "--no-logo", "--no-cache", "--config", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, f"import-linter contracts broken:\n{proc.stdout}\n{proc.stderr}"


def _dynamic_import(call: ast.Call) -> str | None:
    """The module named by ``__import__("x")`` / ``importlib.import_module("x")``, if any."""
    func = call.func
    func_name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if func_name not in ("__import__", "import_module") or not call.args:
        return None
    first = call.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def _qt_imports(path: Path) -> list[str]:
    """Lines of ``path`` that import PySide6/shiboken6 (by AST; by regex if it won't parse)."""
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError:
        return [m.group(0).strip() for m in QT_LINE.finditer(text)]
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and (name := _dynamic_import(node)):
            names = [name]
        if any(name.split(".")[0] in QT_PACKAGES for name in names):
            found.append(f"line {node.lineno}: {ast.get_source_segment(text, node)}")
    return found


@pytest.mark.parametrize("package", ["engine", "gradstudio"])
def test_no_qt_imports_in_sources(package: str) -> None:
    base = ROOT / package
    offenders = {
        str(path.relative_to(ROOT)): hits
        for path in sorted(base.rglob("*.py"))
        if (hits := _qt_imports(path))
    }
    assert not offenders, f"{package}/ must not import Qt: {offenders}"


def test_no_two_test_files_share_a_basename() -> None:
    """pytest imports test modules by basename (no packages): a second
    ``test_function_ports.py`` under another folder stopped the whole suite's collection."""
    names = [p.name for p in Path(__file__).parent.rglob("test_*.py")]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []
