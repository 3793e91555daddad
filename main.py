"""GradStudio entry point.

``python main.py [FILE]`` opens the studio (``ui.app.main``), on FILE if given. With a
sub-command as the first argument (``run``, ``import``, ``export``, ``trust``, or
``-h``/``--help``), it runs the command line in ``gradstudio.cli`` instead, which needs
no display (and no Qt import).  An unknown word, or no display for the studio, is one
line on stderr and exit status 2, before Qt is loaded (Qt would abort the process).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: The first arguments that mean the command line (``gradstudio.cli``'s sub-commands).
CLI_COMMANDS = frozenset({"run", "import", "export", "trust", "-h", "--help"})
SUB_COMMANDS = "run, import, export, trust"
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
        f"sub-commands need none: python main.py {{{SUB_COMMANDS.replace(', ', ',')}}} ... "
        "(see python main.py --help)"
    )


def main(argv: list[str]) -> int:
    """Dispatch to the command line or the GUI; ``argv`` includes the program name."""
    if len(argv) > 1 and argv[1] in CLI_COMMANDS:
        from gradstudio.cli import main as cli_main

        return cli_main(argv[1:])
    if len(argv) > 1 and not argv[1].startswith("-") and not looks_like_file(argv[1]):
        print(
            f"gradstudio: error: {argv[1]!r} is neither a sub-command ({SUB_COMMANDS}) nor a "
            "file to open (see 'python main.py --help')",
            file=sys.stderr,
        )
        return 2
    problem = display_problem()
    if problem is not None:
        print(f"gradstudio: error: {problem}", file=sys.stderr)
        return 2
    from ui.app import main as gui_main

    return gui_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
