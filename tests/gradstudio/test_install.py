"""Installed like a real tool: the wheel carries what the studio needs and works from any
folder; the desktop entry is written where freedesktop.org says."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from engine import compiled_core as cc
from gradstudio import desktop_entry
from gradstudio.launcher import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # from a copy: setuptools reuses what an earlier build left in the tree's build/
    tree = tmp_path_factory.mktemp("tree") / "gradstudio"
    skip = shutil.ignore_patterns(".*", "build", "dist", "tests", "bench", "docs", "__pycache__")
    shutil.copytree(ROOT, tree, ignore=skip)
    # a pure wheel: the compiled one takes minutes (its extensions are tested below)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(tree),
        ],
        check=True,
        capture_output=True,
        timeout=300,
        env={**os.environ, cc.PURE_ENV: "1"},
    )
    [found] = out.glob("gradstudio-*.whl")
    return found


def _install(wheel: Path, site: Path) -> None:
    """The wheel installed into ``site`` alone (its dependencies are this Python's)."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )


@pytest.mark.slow
def test_the_wheel_carries_examples_lessons_icons_styles_schema_and_commands(wheel: Path) -> None:
    # a wheel that may hold extensions keeps its pure files under .data/purelib
    names = [re.sub(r"^[^/]+\.data/purelib/", "", n) for n in zipfile.ZipFile(wheel).namelist()]
    for shipped in (
        "examples/001_leaf_grad.gstudio",
        "lessons/2_retain_grad.gslesson",
        "icons/gradstudio.svg",
        "styles/studio.qss",
    ):
        assert f"gradstudio/resources/{shipped}" in names
    assert "gradstudio/interchange/schema/gstudio.schema.json" in names
    entry = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry).decode()
    assert "gradstudio = gradstudio.launcher:main" in text
    assert "gradstudio-gui = gradstudio.launcher:gui" in text
    assert not any(n.startswith(("tests/", "bench/")) for n in names)


@pytest.mark.slow
def test_the_installed_package_works_from_another_folder(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    _install(wheel, site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "QT_QPA_PLATFORM": "offscreen"}

    def gradstudio(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "gradstudio", *args],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    where = gradstudio("--help")
    assert where.returncode == 0 and "usage: gradstudio" in where.stdout
    example = site / "gradstudio" / "resources" / "examples" / "001_leaf_grad.gstudio"
    ran = gradstudio("run", str(example))
    assert ran.returncode == 0, ran.stderr
    assert "[5.0]" in ran.stdout
    (elsewhere / "prog.py").write_text(
        "import torch\nw = torch.ones(2, requires_grad=True)\n(w * 3).sum().backward()\n"
    )
    imported = gradstudio("import", "--run", "prog.py", "-o", "x.gstudio")
    assert imported.returncode == 0, imported.stderr
    located = subprocess.run(
        [sys.executable, "-c", "import gradstudio.locations as l; print(l.RESOURCES)"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(located.stdout.strip()) == site / "gradstudio" / "resources"


def test_the_desktop_entry_is_installed_for_the_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    out, err = io.StringIO(), io.StringIO()
    assert desktop_entry.install_desktop_entry(out, err) == 0, err.getvalue()
    entry = (tmp_path / "share" / "applications" / "gradstudio.desktop").read_text()
    assert "MimeType=application/x-gradstudio;" in entry
    exec_line = next(line for line in entry.splitlines() if line.startswith("Exec="))
    assert exec_line.endswith(" %f")
    icon = tmp_path / "share" / "icons" / "hicolor" / "scalable" / "apps" / "gradstudio.svg"
    assert icon.read_text().startswith("<svg")
    mime = (tmp_path / "share" / "mime" / "packages" / "gradstudio.xml").read_text()
    assert '<glob pattern="*.gstudio"/>' in mime


def test_exec_arguments_are_quoted_as_the_spec_asks() -> None:
    assert desktop_entry._quote("/usr/bin/gradstudio-gui") == "/usr/bin/gradstudio-gui"
    assert desktop_entry._quote("/home/a b/$x") == '"/home/a b/\\$x"'


def test_the_command_installs_the_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    assert main(["gradstudio", "--install-desktop-entry"]) == 0
    assert (tmp_path / "share" / "applications" / "gradstudio.desktop").is_file()


@pytest.mark.slow
def test_an_installed_extension_runs_and_pure_still_means_pure(wheel: Path, tmp_path: Path) -> None:
    """A wheel built with a compiler carries each extension beside its ``.py``: the engine
    loads it, and ``GRADSTUDIO_PURE=1`` still keeps every module pure."""
    module = "engine.quiet"
    if cc.state(module) != "fresh":
        pytest.skip("no fresh build of the compiled core to install (make core)")
    site = tmp_path / "site"
    _install(wheel, site)
    built = cc.extension_path(module, cc.source_bytes(module))
    shutil.copyfile(built, site / "engine" / f"quiet{cc.SUFFIX}")
    probe = "import engine; print(sorted(engine.compiled()))"

    def compiled(**env: str) -> str:
        return subprocess.run(
            [sys.executable, "-c", probe],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONPATH": str(site), **env},
        ).stdout.strip()

    assert compiled() == "['engine.quiet']"
    assert compiled(**{cc.PURE_ENV: "1"}) == "[]"
