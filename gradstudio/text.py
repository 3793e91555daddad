"""How the studio writes a fact as text, in one place: a shape as PyTorch prints a tuple,
and anyone's text made safe for a Qt rich-text label."""

from __future__ import annotations

import html
from collections.abc import Iterable

from gradstudio.interchange.quoting import printable


def shape_text(shape: Iterable[int], empty: str = "()") -> str:
    """``(2, 3)``, ``(3,)`` (a Python tuple of one), and ``empty`` for a 0-d tensor."""
    dims = tuple(int(d) for d in shape)
    if not dims:
        return empty
    return "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"


def html_text(text: str) -> str:
    """``text`` for a rich-text label: one printable line, ``&``, ``<`` and ``>`` escaped."""
    return html.escape(printable(text), quote=False)
