"""Work around PySide6 6.12 dropping a reference to ``None`` on every call that returns it.

PySide6 6.12.0 (the abi3 wheels) returns ``None`` from void methods — ``setPos``,
``update``, ``setText``, a null pointer as ``None`` — without taking a new reference,
which is only harmless where ``None`` is immortal (Python 3.12+).  On 3.10 and 3.11
every such call lowers ``None``'s count by one, and after some thousands of calls the
interpreter aborts with "none_dealloc: deallocating None".  A studio makes that many
calls in seconds (a 4,000-node graph does it while building its scene).

The fix gives ``None`` the large count that 3.12 gives every immortal object, so the
stolen references can never bring it to zero.  It runs once, when ``ui`` is imported,
before any Qt call; on 3.12+ it does nothing.
"""

from __future__ import annotations

import ctypes
import sys

IMMORTAL_REFCOUNT = 1 << 40  # far beyond any count a process can steal


def make_none_immortal() -> bool:
    """Raise the counts of ``None``, ``True`` and ``False`` out of reach.

    Returns True when that was needed (Python < 3.12).  ``True``/``False`` get the
    same treatment: bool-returning overrides and signals show the same lost reference.
    """
    if sys.version_info >= (3, 12):
        return False
    for singleton in (None, True, False):
        count = ctypes.c_ssize_t.from_address(id(singleton))
        if count.value < IMMORTAL_REFCOUNT // 2:
            count.value += IMMORTAL_REFCOUNT
    return True
