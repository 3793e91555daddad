"""Importing the studio's packages changes nothing in the process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_ui_leaves_none_and_the_collector_alone() -> None:
    probe = (
        "import gc, sys\n"
        "before = (sys.getrefcount(None), gc.get_threshold())\n"
        "import ui, ui.canvas.view, ui.window.main_window\n"
        "after = (sys.getrefcount(None), gc.get_threshold())\n"
        "print(after[0] < 1 << 39, before[1] == after[1])  # not made immortal, thresholds kept\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.split() == ["True", "True"]


def test_import_gradstudio_loads_no_qt() -> None:
    probe = "import sys, gradstudio, gradstudio.cli\nprint('PySide6' in sys.modules)\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "False"
