"""Where GradStudio's shipped files are: a checkout's ``resources/``, or the copy an
install carries as the ``gradstudio.resources`` package data (``setup.py`` maps one to the
other), so the studio and the command line work from any working directory."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
_CHECKOUT = _PACKAGE.parent / "resources"


def resources() -> Path:
    """The folder holding ``examples/``, ``lessons/``, ``icons/`` and ``styles/``."""
    return _CHECKOUT if _CHECKOUT.is_dir() else _PACKAGE / "resources"


RESOURCES = resources()
EXAMPLES_DIR = RESOURCES / "examples"
ICONS_DIR = RESOURCES / "icons"
STYLES_DIR = RESOURCES / "styles"
LESSONS_DIR = RESOURCES / "lessons"
