"""GradStudio entry point.

``python main.py`` opens the studio (``ui.app.main``). With a sub-command as the first
argument (``run``, ``import``, ``export``, or ``-h``/``--help``), it runs the command line
in ``gradstudio.cli`` instead, which needs no display.
"""

from __future__ import annotations

import sys

CLI_COMMANDS = frozenset({"run", "import", "export", "-h", "--help"})


def _fallback_window(argv: list[str]) -> int:
    """Show a placeholder window while ``ui.app`` does not exist yet (temporary)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication(argv)
    label = QLabel("GradStudio — the studio UI is not built yet")
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWindowTitle("GradStudio")
    label.resize(480, 160)
    label.show()
    return app.exec()


def main(argv: list[str]) -> int:
    """Dispatch to the command line or the GUI; ``argv`` includes the program name."""
    if len(argv) > 1 and argv[1] in CLI_COMMANDS:
        from gradstudio.cli import main as cli_main

        return cli_main(argv[1:])
    try:
        from ui.app import main as gui_main
    except ModuleNotFoundError as exc:
        if exc.name not in ("ui", "ui.app"):
            raise  # a module missing inside the UI is a real error: show it
        return _fallback_window(argv)
    return gui_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
