"""The ``gradstudio`` command: the command line (``gradstudio.cli``), or the studio with no
sub-command.  ``main.py`` in a checkout, the ``gradstudio`` and ``gradstudio-gui`` commands
an install makes and ``python -m gradstudio`` all come here.

With a sub-command as the first argument (``run``, ``import``, ``export``, ``trust``,
``verify``, ``gradcheck``, ``explain``, or ``-h``/``--help``), it runs the command line,
which needs no display (and no Qt import).  An unknown word, or no display for the studio,
is one line on stderr and exit status 2, before Qt is loaded (Qt would abort the process).
This module is the one place the headless core reaches up to the studio (``ui.app``), and
only to start it: the import-linter contracts name that edge.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: The first arguments that mean the command line (``gradstudio.cli``'s sub-commands).
CLI_COMMANDS = frozenset(
    {"run", "import", "export", "trust", "verify", "gradcheck", "explain", "-h", "--help"}
)
SUB_COMMANDS = "run, import, export, trust, verify, gradcheck, explain"
#: Qt platform plugins that need no display server.
HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc", "eglfs", "linuxfb")


def looks_like_file(arg: str) -> bool:
    """A document to open: an existing path, or a name ending in ``.gstudio``."""
    return arg.endswith(".gstudio") or Path(arg).exists()


def display_problem() -> str | None:
    """Why the studio cannot show a window here, or None when it can."""
    if not sys.platform.startswith("linux"):
        return None
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform:
        return None  # the user chose a platform plugin; Qt reports its own trouble
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return (
        "no display to open the studio on (DISPLAY and WAYLAND_DISPLAY are unset); the "
        f"sub-commands need none: gradstudio {{{SUB_COMMANDS.replace(', ', ',')}}} ... "
        "(see gradstudio --help)"
    )


def main(argv: list[str] | None = None) -> int:
    """Dispatch to the command line or the GUI; ``argv`` includes the program name."""
    argv = list(sys.argv if argv is None else argv)
    if argv[1:2] == ["--install-desktop-entry"]:
        from gradstudio.desktop_entry import install_desktop_entry

        return install_desktop_entry(sys.stdout, sys.stderr)
    if len(argv) > 1 and argv[1] in CLI_COMMANDS:
        # the command line's modules (the explainer, the importer) load only for a
        # sub-command: the studio's window shows before they are imported
        from gradstudio.cli import main as cli_main

        return cli_main(argv[1:])
    if len(argv) > 1 and not argv[1].startswith("-") and not looks_like_file(argv[1]):
        print(
            f"gradstudio: error: {argv[1]!r} is neither a sub-command ({SUB_COMMANDS}) nor a "
            "file to open (see 'gradstudio --help')",
            file=sys.stderr,
        )
        return 2
    problem = display_problem()
    if problem is not None:
        print(f"gradstudio: error: {problem}", file=sys.stderr)
        return 2
    from ui.app import main as gui_main

    return gui_main(argv)


def gui() -> int:
    """``gradstudio-gui``: the studio itself (a GUI script: no console on Windows)."""
    return main([sys.argv[0], *(a for a in sys.argv[1:] if a not in CLI_COMMANDS)])
