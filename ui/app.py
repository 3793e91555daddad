"""Start the studio: the application, the theme, the window on an example graph, evaluated.

``main(argv)`` is what ``python main.py`` (``make run``) calls.  A file path given on
the command line opens instead of the example.  After a crash the autosaved graph
is offered first.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

# The headless layers first, before anything imports PySide6: from then on PySide6
# 6.12 reads the source of every newly imported module (``inspect.getsource``, its
# PYSIDE-2029 ``__feature__`` check), which for numpy's, networkx's and the engine's
# hundreds of modules cost 0.15 s of startup.  The window needs all of them anyway:
# the engine for the catalogue (palette, Document), networkx for the document,
# numpy for the evaluation and the canvas.
import engine  # noqa: F401
import gradstudio.document.commands
import gradstudio.evaluation.evaluate
import gradstudio.interchange.fileformat  # noqa: F401

# isort: split
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from ui.errors import ErrorReporter
from ui.gc_policy import freeze_startup_objects, tune_collector
from ui.none_refcount import make_none_immortal
from ui.state import StudioState
from ui.themes import apply_theme, ui_font
from ui.window.examples import start_example
from ui.window.main_window import APP_NAME, MainWindow
from ui.window.settings import APPLICATION, ORGANIZATION, StudioSettings


def prepare_process() -> None:
    """The process-wide settings the studio needs before its first Qt call: ``None``
    made immortal against PySide6's lost references (``ui.none_refcount``) and the
    collector's thresholds (``ui.gc_policy``).  Idempotent."""
    make_none_immortal()
    tune_collector()


def create_application(argv: list[str]) -> QApplication:
    """The QApplication with the studio's names (``QSettings`` keys come from them).

    Made once per process, which is also when the startup objects are frozen out of
    the garbage collector (``ui.gc_policy``).
    """
    prepare_process()
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
    freeze_startup_objects()
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    QApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
    )
    app = QApplication(argv)
    app.setApplicationDisplayName(APP_NAME)
    app.setFont(ui_font())
    return app


def create_window(
    argv: list[str] | None = None,
    settings: StudioSettings | None = None,
    offer_recovery: bool = True,
    open_document: bool = True,
) -> MainWindow:
    """The main window; with ``open_document``, on the file in ``argv`` or the start example."""
    settings = settings or StudioSettings()
    app = QApplication.instance()
    if isinstance(app, QApplication):
        apply_theme(app, settings.theme)
    window = MainWindow(StudioState(), settings)
    if open_document:
        open_initial(window, argv or [], offer_recovery)
    return window


def open_initial(window: MainWindow, argv: list[str], offer_recovery: bool = True) -> None:
    """What a fresh window shows: restored work, the file named in ``argv``, or an example."""
    if offer_recovery and window.offer_recovery():
        return
    args = [a for a in argv[1:] if not a.startswith("-")]
    if args and Path(args[0]).is_file():
        window.open_file(args[0], ask=False)
        return
    example = start_example()
    if example is not None:
        window.open_example(example, ask=False)


def main(argv: list[str] | None = None) -> int:
    """Open the studio and run the event loop; returns the exit status.

    The window is shown and painted before the first graph is loaded, so the studio
    appears at once; the graph (and its evaluation, in the background) follows.
    """
    argv = list(sys.argv if argv is None else argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = create_application(argv)
    reporter = ErrorReporter()
    reporter.install()
    window = create_window(argv, open_document=False)
    reporter.parent = lambda: window
    window.show()
    QApplication.processEvents()
    open_initial(window, argv)
    try:
        return app.exec()
    finally:
        reporter.uninstall()
        release_clipboard()


def release_clipboard() -> None:
    """Drop clipboard data we own before Qt shuts down on the offscreen platform.

    PySide6 6.12's offscreen clipboard crashes the interpreter at exit when it
    still holds a QMimeData (reproduced with a five-line script); a real
    windowing system keeps or hands over the data itself, so it is left alone.
    """
    app = QApplication.instance()
    if app is not None and QGuiApplication.platformName() == "offscreen":
        QGuiApplication.clipboard().clear()
