"""Quoting someone else's text in a message or a terminal table: one safe line.

A file, a label or a schema error can hold anything (ESC sequences that drive the
terminal, NUL, CR that overwrites the line, a 10 MB value); what the studio prints
about them is escaped and bounded.
"""

from __future__ import annotations

#: A message quotes at most this much of the file: one line, even for a 10 MB value.
MAX_MESSAGE = 300


def shorten(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` cut to ``limit`` characters (with an ellipsis saying so)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def printable(text: str) -> str:
    """``text`` with control characters (ESC, NUL, CR, line breaks, ...) and lone
    surrogates escaped as Python writes them (``\\x1b``), so it stays one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
