"""The command line run in-process, as the CLI tests call it."""

from __future__ import annotations

import io

from gradstudio.cli import main


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``main.py ARGV...``: the exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()
