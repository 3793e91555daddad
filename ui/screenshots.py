"""Screenshots of the studio on every example, in both themes (for the README).

``python -m ui.screenshots [folder] [--theme dark|light|both] [--size 1600x1000]
[--shots window,backward]`` opens each example in a fresh window, waits for its
evaluation, selects its most telling node (so the inspector has something to say) and
saves ``window.grab()`` as ``<folder>/<example>_<theme>.png``; then moves the backward
graph into its tab beside the canvas (View > Backward Graph in a Tab), moves the
timeline to the last backward (a gradient on every edge) and saves that tab as
``<example>_backward_<theme>.png``.  Runs offscreen unless a display is set.
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

from ui.app import create_application
from ui.state import StudioState
from ui.themes import apply_theme
from ui.window.examples import ExampleFile, example_files
from ui.window.main_window import MainWindow
from ui.window.settings import StudioSettings

READABLE_ZOOM = 0.62
SHOTS = ("window", "backward")
DEFAULT_FOLDER = Path(__file__).resolve().parents[1] / "docs" / "screenshots"


def _settle(app: QApplication, rounds: int = 5) -> None:
    for _ in range(rounds):
        app.processEvents()


def _wait(window: MainWindow, app: QApplication) -> None:
    if window.runner.busy:
        loop = QEventLoop()
        window.runner.finished.connect(loop.quit)
        QTimer.singleShot(30_000, loop.quit)
        loop.exec()
    _settle(app)


def _pick_node(window: MainWindow) -> str | None:
    """A node worth inspecting: a leaf with a .grad, else the last tensor with a grad_fn."""
    scene = window.canvas.graph_scene
    doc = window.state.document
    best = None
    for node in doc.nodes():
        facts = scene.facts_of(node.id)
        if facts.has_tensor and facts.is_leaf and facts.has_grad:
            return node.id
        if facts.has_tensor and facts.grad_fn:
            best = node.id
    return best


def shoot(
    example: ExampleFile,
    theme_name: str,
    folder: Path,
    size: tuple[int, int],
    settings_dir: Path,
    shots: tuple[str, ...] = SHOTS,
) -> list[Path]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    settings = StudioSettings.at(settings_dir / f"{example.name}_{theme_name}.ini")
    settings.theme = theme_name
    settings.live = False
    apply_theme(app, theme_name)
    window = MainWindow(StudioState(), settings)
    window.resize(*size)
    window.show()
    _settle(app)
    window.open_example(example, ask=False)
    _wait(window, app)
    node_id = _pick_node(window)
    if node_id is not None:
        window.canvas.select_nodes([node_id])
    _settle(app)
    window.canvas.fit_all()
    if window.canvas.zoom < READABLE_ZOOM and node_id is not None:
        # a wide graph fitted whole is too small to read: show the part around the pick
        item = window.canvas.graph_scene.node_item(node_id)
        window.canvas.set_zoom(READABLE_ZOOM)
        window.canvas.centerOn(item.sceneBoundingRect().center())
    _settle(app, 10)
    paths = []
    if "window" in shots:
        paths.append(folder / f"{example.name}_{theme_name}.png")
        window.grab().save(str(paths[-1]))
    if "backward" in shots:
        window.set_backward_big(True)
        evaluation = window.state.evaluation
        ran = [t for t in evaluation.traces if t.executions] if evaluation is not None else []
        if ran:  # just after the last backward: a gradient on every edge
            window.state.playhead.set_position(ran[-1].step)
        _settle(app, 10)
        window.backward_view.view.fit()
        _settle(app, 10)
        paths.append(folder / f"{example.name}_backward_{theme_name}.png")
        window.central_tabs.grab().save(str(paths[-1]))
    window.bridge.set_clean()
    window.close()
    _settle(app)
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screenshots of every example")
    parser.add_argument("folder", nargs="?", default=str(DEFAULT_FOLDER))
    parser.add_argument("--theme", default="both", choices=("dark", "light", "both"))
    parser.add_argument("--size", default="1600x1000")
    parser.add_argument("--only", default="", help="example name prefix")
    parser.add_argument(
        "--shots", default=",".join(SHOTS), help="which pictures: window, backward (comma list)"
    )
    args = parser.parse_args(argv)
    shots = tuple(part.strip() for part in args.shots.split(",") if part.strip())
    unknown = set(shots) - set(SHOTS)
    if unknown:
        parser.error(f"unknown --shots {', '.join(sorted(unknown))}; known: {', '.join(SHOTS)}")
    width, height = (int(v) for v in args.size.split("x"))
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    create_application(["gradstudio-screenshots"])
    themes = ("dark", "light") if args.theme == "both" else (args.theme,)
    with tempfile.TemporaryDirectory() as tmp:
        for example in example_files():
            if args.only and not example.name.startswith(args.only):
                continue
            for theme_name in themes:
                for path in shoot(example, theme_name, folder, (width, height), Path(tmp), shots):
                    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
