"""Screenshots of the instruments for the README: ``python -m ui.instruments.screenshots``.

Writes ``instrument_{verify,gradcheck,memory,changes,minimap}.png`` into
``docs/screenshots/`` (or the folder given), in the dark theme, offscreen unless a
display is set.  Verify needs PyTorch installed (else it shows the install hint).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, Qt, QTimer, SignalInstance
from PySide6.QtWidgets import QApplication, QWidget

from gradstudio.document.commands import SetParamCommand
from gradstudio.document.model import Document
from gradstudio.interchange.fileformat import load_document
from gradstudio.interchange.pytorch_import import import_snippet
from gradstudio.locations import EXAMPLES_DIR
from ui.app import create_application
from ui.screenshots import DEFAULT_FOLDER, _settle, _wait
from ui.state import StudioState
from ui.themes import apply_theme
from ui.window.main_window import MainWindow
from ui.window.settings import StudioSettings

EXAMPLES = EXAMPLES_DIR
MEMORY_SNIPPET = """\
import torch
x = torch.randn(64, 32, requires_grad=True)
w = torch.randn(32, 16, requires_grad=True)
h = x @ w
h.retain_grad()
a = torch.tanh(h)
loss = (a * a).sum()
loss.backward()
"""


def _wait_for(signal: SignalInstance, seconds: float = 120.0) -> None:
    loop = QEventLoop()
    signal.connect(loop.quit)
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


def _window(app: QApplication, tmp: Path, name: str, doc: Document) -> MainWindow:
    settings = StudioSettings.at(tmp / f"{name}.ini")
    settings.theme = "dark"
    settings.live = False
    apply_theme(app, "dark")
    window = MainWindow(StudioState(), settings)
    window.resize(1600, 1000)
    window.show()
    _settle(app)
    window.set_document(doc)
    _wait(window, app)
    window.canvas.fit_all()
    _settle(app, 10)
    return window


def _node(doc: Document, label: str) -> str:
    return next(n.id for n in doc.nodes() if n.label == label)


def _trusted(name: str) -> Document:
    doc = load_document(EXAMPLES / name)
    doc.set_trusted(True)
    return doc


def verify(app: QApplication, window_of: Callable[..., MainWindow]) -> QWidget:
    doc = _trusted("001_leaf_grad.gstudio")
    window = window_of("verify", doc)
    window.state.select([_node(doc, "y")])
    window.instruments.act_verify.trigger()
    _wait_for(window.instruments.verifier.job.done)
    _settle(app, 10)
    return window


def gradcheck(app: QApplication, window_of: Callable[..., MainWindow]) -> QWidget:
    doc = _trusted("004_custom_function.gstudio")
    d = _node(doc, "d")
    source = doc.node(d).params["source"]
    doc.set_param(d, "source", source.replace("(x + z + x * z)", "(x + z)"))
    window = window_of("gradcheck", doc)
    dialog = window.instruments.check(d)
    _wait_for(dialog.finished_check)
    dialog.resize(820, 520)
    _settle(app, 10)
    return dialog


def memory(app: QApplication, window_of: Callable[..., MainWindow]) -> QWidget:
    doc = import_snippet(MEMORY_SNIPPET)
    window = window_of("memory", doc)
    window.resizeDocks([window.docks["timeline"]], [190], Qt.Orientation.Vertical)
    window.state.select([])  # the inspector's first page: the breakdown near the top
    _settle(app, 10)
    return window


def changes(app: QApplication, window_of: Callable[..., MainWindow]) -> QWidget:
    doc = _trusted("001_leaf_grad.gstudio")
    window = window_of("changes", doc)
    w = _node(doc, "w")
    window.bridge.push(lambda: SetParamCommand(doc, w, "requires_grad", False))
    window.run_graph()
    _wait(window, app)
    window.instruments.changes_dock.raise_()
    _settle(app, 10)
    return window


def minimap(app: QApplication, window_of: Callable[..., MainWindow]) -> QWidget:
    doc = load_document(EXAMPLES / "005_mlp_training_step.gstudio")
    window = window_of("minimap", doc)
    window.canvas.zoom_reset()
    window.instruments.act_minimap.trigger()
    _settle(app, 10)
    return window


SHOTS = {
    "verify": verify,
    "gradcheck": gradcheck,
    "memory": memory,
    "changes": changes,
    "minimap": minimap,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screenshots of the instruments")
    parser.add_argument("folder", nargs="?", default=str(DEFAULT_FOLDER))
    parser.add_argument("--only", default="", help="one of " + ", ".join(SHOTS))
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    app = create_application(["gradstudio-screenshots"])
    with tempfile.TemporaryDirectory() as tmp:
        for name, shot in SHOTS.items():
            if args.only and name != args.only:
                continue
            windows: list[MainWindow] = []

            def window_of(
                key: str, doc: Document, opened: list[MainWindow] = windows
            ) -> MainWindow:
                opened.append(_window(app, Path(tmp), key, doc))
                return opened[-1]

            widget = shot(app, window_of)
            path = folder / f"instrument_{name}.png"
            widget.grab().save(str(path))
            print(path)
            for window in windows:
                window.bridge.set_clean()
                window.close()
            _settle(app)
    return 0


if __name__ == "__main__":
    sys.exit(main())
