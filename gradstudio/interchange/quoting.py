"""Quoting someone else's text in a message or a terminal table: one safe line.

A file, a label or a schema error can hold anything (ESC sequences that drive the
terminal, NUL, CR that overwrites the line, a 10 MB value); what the studio prints
about them is escaped and bounded.
"""

from __future__ import annotations

import re

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


#: Terminal control sequences: CSI (``ESC [ ... final``), OSC and other string commands
#: (``ESC ] ... BEL`` or ``ESC \\``), and two-byte escapes.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|\x1b[@-Z\\-_]"
)
#: Characters that reorder or hide text (bidi controls, zero-width marks).
_INVISIBLE = dict.fromkeys(
    map(
        ord,
        "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
        "\u2066\u2067\u2068\u2069\ufeff",
    ),
    None,
)


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """Someone else's text (a program's stderr line, an exception message) as one clean,
    short line: terminal escapes and bidi controls removed, line breaks and carriage
    returns folded into spaces, other control characters escaped, cut to ``limit``."""
    text = _ESCAPES.sub("", text[: limit * 64]).translate(_INVISIBLE)
    text = " ".join(text.replace("\r", "\n").split())
    return shorten(printable(text), limit)


def last_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """The last line of a stream's tail that says something, as ``one_line`` makes it.
    A carriage return overwrites a line on a terminal, so only what follows the last one
    counts."""
    for line in reversed(text.splitlines()):
        line = _ESCAPES.sub("", line).rsplit("\r", 1)[-1]
        if line.strip():
            return one_line(line, limit)
    return ""
