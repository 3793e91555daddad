"""Screenshots of Run to Import for the README: ``python -m ui.window.screenshots``.

Writes ``program_dialog.png`` (the dialog asking before it runs a program),
``imported_loop.png`` (the recorded graph as it opens in a 1280×720 window: the last
iteration's loss and backward, readable) and ``groups_module.png`` (the recorded graph's
module frames, one collapsed) into
``docs/screenshots/`` (or the folder given), in the dark theme, offscreen unless a
display is set.  The program is ``tests/gradstudio/programs/module_sgd.py``; it runs in
its child process, as it does in the studio.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from gradstudio.document.model import Document
from ui.app import create_application
from ui.screenshots import DEFAULT_FOLDER, _settle, _wait
from ui.state import StudioState
from ui.themes import apply_theme
from ui.window.main_window import MainWindow
from ui.window.settings import StudioSettings

PROGRAM = (
    Path(__file__).resolve().parents[2] / "tests" / "gradstudio" / "programs" / "module_sgd.py"
)


def _module_group(doc: Document, path: str, within: str | None = None) -> str:
    """The first module group recorded for ``path`` (``model.fc1``), inside ``within``,
    that is on show (no collapsed group around it: a loop opens at its last iteration)."""

    def shown(gid: str | None) -> bool:
        while gid is not None:
            gid = doc.group(gid).parent
            if gid is not None and doc.group(gid).collapsed:
                return False
        return True

    for gid in doc.groups:
        group = doc.group(gid)
        found = group.kind == "module" and group.meta.get("path") == path
        if found and (within is None or group.parent == within) and shown(gid):
            return gid
    raise LookupError(f"no module group {path!r}")


def shoot(app: QApplication, folder: Path, settings: StudioSettings) -> list[Path]:
    apply_theme(app, "dark")
    window = MainWindow(StudioState(), settings)
    window.resize(1600, 1000)
    window.show()
    _settle(app)
    window.import_program(str(PROGRAM))
    dialog = window.program_dialog
    assert dialog is not None
    _settle(app, 10)
    written = [folder / "program_dialog.png"]
    dialog.grab().save(str(written[0]))
    loop = QEventLoop()
    dialog.finished.connect(loop.quit)
    QTimer.singleShot(60_000, loop.quit)
    dialog.run_button.click()
    loop.exec()
    _wait(window, app)
    # as the import opens on a 1280×720 screen: its last iteration, at a zoom that reads
    window.resize(1280, 720)
    _settle(app, 10)
    window.canvas.home_view()
    _settle(app, 10)
    written.append(folder / "imported_loop.png")
    window.grab().save(str(written[-1]))
    window.resize(1600, 1000)
    _settle(app, 10)
    doc = window.state.document
    model = _module_group(doc, "model")
    fc1 = _module_group(doc, "model.fc1", model)
    window.canvas.set_collapsed(fc1, True)
    _settle(app, 10)
    groups = window.canvas.graph_scene.groups
    groups.ensure()
    frame = groups.frame(model)
    assert frame is not None
    window.canvas.fit_rect(frame.scene_rect().adjusted(-60.0, -60.0, 60.0, 60.0))
    _settle(app, 10)
    written.append(folder / "groups_module.png")
    window.grab().save(str(written[-1]))
    window.bridge.set_clean()
    window.close()
    _settle(app)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screenshots of Run to Import and groups")
    parser.add_argument("folder", nargs="?", default=str(DEFAULT_FOLDER))
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    app = create_application(["gradstudio-screenshots"])
    with tempfile.TemporaryDirectory() as tmp:
        settings = StudioSettings.at(Path(tmp) / "shots.ini")
        settings.theme = "dark"
        settings.live = False
        for path in shoot(app, folder, settings):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
