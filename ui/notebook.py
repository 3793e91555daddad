"""GradStudio in a Jupyter kernel: the ``%%gradstudio`` cell magic and ``gradstudio.show``.

It follows the conventions napari and pyqtgraph established for Qt in a kernel:

- the kernel's own event loop runs the window: IPython's ``%gui qt`` is turned on when the
  kernel has none, so the studio stays live while cells run; ``exec()`` is never called,
  and the ``QApplication`` is never quit, since the kernel owns it;
- one studio window per kernel, shown again and reused;
- with no display (a remote kernel), one line says so and the graph is shown inline, as
  the PNG the studio exports.

``%%gradstudio`` runs its cell through Run to Import, with the dialog's consent, limits
and Cancel; the recorded graph opens in the window and the cell returns at once.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import tempfile
import time
from pathlib import Path
from typing import Any, NoReturn

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from gradstudio.document.model import Document
from gradstudio.interchange.fileformat import load_document
from gradstudio.interchange.program_import.runner import KEEP_ITERATIONS, import_program
from gradstudio.interchange.pytorch_import import ImportProblem
from gradstudio.launcher import display_problem
from ui.app import create_application, create_window
from ui.window.export_image import export_png
from ui.window.main_window import MainWindow

#: How long an inline picture waits for its graph's evaluation, in seconds.
INLINE_WAIT_S = 60.0
_QT_LOOPS = ("qt", "qt5", "qt6")


class _Kernel:
    """What this kernel holds: its one window and the folder its cells are written to."""

    window: MainWindow | None = None
    folder: tempfile.TemporaryDirectory[str] | None = None
    cells = 0


def _ipython() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _event_loop(shell: Any) -> None:
    """Turn on the kernel's Qt event loop (``%gui qt``) unless it already runs one.  A
    shell without a kernel (IPython embedded in a test) cannot: its host runs Qt."""
    if shell is None or getattr(shell, "active_eventloop", None) in _QT_LOOPS:
        return
    with contextlib.suppress(NotImplementedError, ImportError, RuntimeError, ValueError):
        shell.enable_gui("qt")


def studio_window(shell: Any = None, visible: bool = True) -> MainWindow:
    """The kernel's studio window, made on first use and reused after."""
    if visible:
        _event_loop(shell if shell is not None else _ipython())
    create_application(["gradstudio"])
    window = _Kernel.window
    if window is None or not _alive(window):
        window = create_window(["gradstudio"], offer_recovery=False, open_document=False)
        _Kernel.window = window
    if visible:
        window.show()
        window.raise_()
        window.activateWindow()
    return window


def _alive(window: MainWindow) -> bool:
    try:
        window.objectName()
    except RuntimeError:  # its C++ side was deleted (the user closed it for good)
        return False
    return True


def _inline(doc: Document) -> Any:
    """The graph as a PNG for the notebook, after its evaluation (bounded wait)."""
    from IPython.display import Image

    window = studio_window(visible=False)
    window.set_document(doc)
    deadline = time.monotonic() + INLINE_WAIT_S
    while window.runner.busy and time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.01)
    QCoreApplication.processEvents()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "graph.png"
        export_png(window.canvas.graph_scene, path, scale=1.0)
        return Image(data=path.read_bytes(), format="png")


def _headless_platform() -> None:
    """No display: Qt renders off screen (set before the application exists)."""
    if QApplication.instance() is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def show(document: Document | str | Path) -> Any:
    """Open a document (or a ``.gstudio`` path) in the kernel's studio window; with no
    display, its picture inline."""
    doc = document if isinstance(document, Document) else None
    problem = display_problem()
    if problem is not None:
        print(f"gradstudio: {problem}; the graph is shown below as a picture")
        _headless_platform()
        return _inline(doc if doc is not None else load_document(document))
    window = studio_window()
    if doc is not None:
        if window.maybe_save():
            window.set_document(doc)
    else:
        window.open_file(str(document))
    return None


def _cell_file(cell: str) -> Path:
    if _Kernel.folder is None:
        _Kernel.folder = tempfile.TemporaryDirectory(prefix="gradstudio-cells-")
    _Kernel.cells += 1
    path = Path(_Kernel.folder.name) / f"cell_{_Kernel.cells}.py"
    path.write_text(cell, "utf-8")
    return path


class _Options(argparse.ArgumentParser):
    """The magic's options; a mistake is a message, never ``SystemExit`` in the kernel."""

    def error(self, message: str) -> NoReturn:
        raise ValueError(message)


def _arguments(line: str) -> argparse.Namespace:
    parser = _Options(prog="%%gradstudio", add_help=False)
    parser.add_argument("--keep-iterations", type=int, default=None)
    parser.add_argument("--isolate", action="store_true")
    return parser.parse_args(shlex.split(line))


def run_cell(line: str, cell: str, shell: Any = None) -> Any:
    """``%%gradstudio``: record the cell's program and show its graph."""
    try:
        args = _arguments(line)
    except (argparse.ArgumentError, ValueError) as exc:
        print(f"%%gradstudio: {exc} (options: --keep-iterations K, --isolate)")
        return None
    path = _cell_file(cell)
    problem = display_problem()
    if problem is not None:
        print(f"gradstudio: {problem}; the graph is shown below as a picture")
        _headless_platform()
        try:
            keep = KEEP_ITERATIONS if args.keep_iterations is None else args.keep_iterations
            doc = import_program(path, keep=max(0, keep), isolate=args.isolate)
        except ImportProblem as exc:
            print(f"gradstudio: error: {exc}")
            return None
        return _inline(doc)
    window = studio_window(shell)
    window.import_program(str(path))
    dialog = window.program_dialog
    if dialog is not None:
        if args.keep_iterations is not None:
            dialog.keep = max(0, args.keep_iterations)
        if args.isolate and dialog.isolate.isEnabled():
            dialog.isolate.setChecked(True)
    return None


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext gradstudio``: register ``%%gradstudio`` on this shell."""
    from IPython.core.magic import Magics, cell_magic, magics_class

    @magics_class
    class GradStudioMagics(Magics):
        @cell_magic
        def gradstudio(self, line: str, cell: str) -> Any:
            """Run the cell through GradStudio's Run to Import and show its graph."""
            return run_cell(line, cell, self.shell)

    shell.register_magics(GradStudioMagics)
