"""A failing graph — or a bug in the studio — shows a dialog; it never takes the app down.

Qt calls Python slots from C++, and an exception escaping a slot ends in
``sys.excepthook``; PySide's default prints it and, in some versions, aborts.  The
studio installs a hook that logs the traceback and shows it in a dialog, and
keeps the document open so nothing is lost.
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable
from types import TracebackType

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

log = logging.getLogger("gradstudio.ui")

ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], None]


def show_error(parent: QWidget | None, title: str, text: str, details: str = "") -> None:
    """A modal error box with the full text under "Show Details…"."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle(title)
    box.setText(text)
    if details:
        box.setDetailedText(details)
    box.exec()


class ErrorReporter:
    """The ``sys.excepthook`` of the studio: log, then tell the user (one dialog at a time)."""

    def __init__(
        self,
        parent: Callable[[], QWidget | None] = lambda: None,
        show: Callable[[QWidget | None, str, str, str], None] = show_error,
    ) -> None:
        self.parent = parent
        self.show = show
        self.showing = False
        self.reported: list[str] = []
        self.previous: ExceptHook | None = None

    def __call__(
        self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            QApplication.quit()
            return
        details = "".join(traceback.format_exception(exc_type, exc, tb))
        log.error("unexpected error:\n%s", details)
        self.reported.append(details)
        if self.showing or QApplication.instance() is None:
            sys.stderr.write(details)
            return
        text = (
            "Something went wrong inside GradStudio. Your document is still open; "
            "save it under a new name to be safe.\n\n"
            f"{exc_type.__name__}: {exc}"
        )
        # show it from the event loop, never from inside the failing call
        QTimer.singleShot(0, lambda: self._show(text, details))

    def _show(self, text: str, details: str) -> None:
        self.showing = True
        try:
            self.show(self.parent(), "GradStudio — unexpected error", text, details)
        finally:
            self.showing = False

    def install(self) -> None:
        self.previous = sys.excepthook
        sys.excepthook = self

    def uninstall(self) -> None:
        if self.previous is not None:
            sys.excepthook = self.previous
            self.previous = None
