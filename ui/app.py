"""Start the studio: the application, the theme, the window on an example graph, evaluated.

``main(argv)`` is what ``python main.py`` (``make run``) calls.  A file path given on
the command line opens instead of the example.  After a crash the autosaved graph
is offered first.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QApplication

from ui.errors import ErrorReporter
from ui.examples import start_example
from ui.main_window import APP_NAME, MainWindow
from ui.settings import APPLICATION, ORGANIZATION, StudioSettings
from ui.state import StudioState
from ui.themes import apply_theme, ui_font


def create_application(argv: list[str]) -> QApplication:
    """The QApplication with the studio's names (``QSettings`` keys come from them)."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
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
    load_panels: bool = True,
) -> MainWindow:
    """The main window on the file named in ``argv`` or the start example (evaluating)."""
    settings = settings or StudioSettings()
    app = QApplication.instance()
    if isinstance(app, QApplication):
        apply_theme(app, settings.theme)
    window = MainWindow(StudioState(), settings, load_panels=load_panels)
    if offer_recovery and window.offer_recovery():
        return window
    args = [a for a in (argv or [])[1:] if not a.startswith("-")]
    if args and Path(args[0]).is_file():
        window.open_file(args[0], ask=False)
    else:
        example = start_example()
        if example is not None:
            window.open_example(example, ask=False)
    return window


def main(argv: list[str] | None = None) -> int:
    """Open the studio and run the event loop; returns the exit status."""
    argv = list(sys.argv if argv is None else argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = create_application(argv)
    reporter = ErrorReporter()
    reporter.install()
    window = create_window(argv)
    reporter.parent = lambda: window
    window.show()
    try:
        return app.exec()
    finally:
        reporter.uninstall()
