"""GradStudio entry point.

``python main.py`` opens the studio (``ui.app.main``). With a sub-command as the first
argument (``run``, ``import``, ``export``, ``trust``, ``verify``,
``gradcheck``, or ``-h``/``--help``), it runs the
command line in ``gradstudio.cli`` instead, which needs no display (and no Qt import).
"""

from __future__ import annotations

import sys

#: The first arguments that mean the command line (``gradstudio.cli``'s sub-commands).
CLI_COMMANDS = frozenset(
    {"run", "import", "export", "trust", "verify", "gradcheck", "-h", "--help"}
)


def main(argv: list[str]) -> int:
    """Dispatch to the command line or the GUI; ``argv`` includes the program name."""
    if len(argv) > 1 and argv[1] in CLI_COMMANDS:
        from gradstudio.cli import main as cli_main

        return cli_main(argv[1:])
    from ui.app import main as gui_main

    return gui_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
