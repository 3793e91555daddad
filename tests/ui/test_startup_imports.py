"""Startup stays lean: what the window does not need is not imported before it shows.

Run in a fresh interpreter (the test session has imported everything long ago): the
studio's window is built the way ``ui.app.main`` builds it, then the modules loaded
so far are checked, and so is their order (headless layers before PySide6, whose
import hook reads the source of every module imported after it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import gc, json, sys
from ui.app import create_application, create_window
from ui.window.settings import StudioSettings
app = create_application(["gradstudio"])
frozen = gc.get_freeze_count()
window = create_window(["gradstudio"], StudioSettings.at(sys.argv[1]), open_document=False)
window.show()
app.processEvents()
shown = list(sys.modules)
from gradstudio.interchange.fileformat import load_document
from ui.window.examples import start_example
load_document(start_example().path)
loaded = list(sys.modules)
window.bridge.set_clean()
window.close()
print(json.dumps({"shown": shown, "loaded": loaded, "frozen": frozen}))
"""

#: Needed only later: to word an invalid file's errors, to load a file, to edit a
#: custom Function's code, to export an image, to draw random numbers, to explain errors.
NOT_BEFORE_SHOWN = (
    "jsonschema",
    "fastjsonschema",
    "ui.inspector.code_editor",
    "ui.window.export_image",
    "numpy.random",
    "gradstudio.evaluation.explain",
)


@pytest.fixture(scope="module")
def startup(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    ini = tmp_path_factory.mktemp("startup") / "settings.ini"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ini)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", NOT_BEFORE_SHOWN)
def test_not_imported_before_the_window_shows(startup: dict[str, Any], name: str) -> None:
    assert name not in startup["shown"]


def test_a_valid_file_loads_without_jsonschema(startup: dict[str, Any]) -> None:
    assert "fastjsonschema" in startup["loaded"]
    assert "jsonschema" not in startup["loaded"]


@pytest.mark.parametrize("name", ["numpy", "networkx", "engine", "gradstudio.document.model"])
def test_headless_layers_are_imported_before_pyside6(startup: dict[str, Any], name: str) -> None:
    order = startup["shown"]
    assert order.index(name) < order.index("PySide6")


def test_startup_objects_are_frozen_out_of_the_collector(startup: dict[str, Any]) -> None:
    """``create_application`` freezes what the imports made (full collections skip it)."""
    assert startup["frozen"] > 10_000
