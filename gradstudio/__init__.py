"""GradStudio's headless core: the graph document, its edits, evaluation, files and
PyTorch import/export.  The Qt UI in ``ui/`` only draws what this package holds."""

from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext gradstudio``: the ``%%gradstudio`` cell magic (``ui.notebook``).

    The studio's window is Qt's, so the magic lives in ``ui``; it is imported here only
    when a notebook asks, so that importing the headless core never loads Qt (the
    import-linter contracts name this edge).
    """
    from ui.notebook import load_ipython_extension as load

    load(ipython)


def show(document: Any) -> Any:
    """Open a document or a ``.gstudio`` path in the kernel's studio window
    (``ui.notebook.show``); with no display, its picture inline."""
    from ui.notebook import show as show_in_studio

    return show_in_studio(document)
