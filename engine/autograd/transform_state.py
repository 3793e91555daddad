"""Which function transforms (``engine.func``) are running, innermost last.

Custom ``autograd.Function``s read it: under any transform PyTorch requires the
``setup_context`` style, under ``vmap`` a vmap rule, under ``jvp`` a ``jvp`` staticmethod.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

ACTIVE: list[str] = []


@contextmanager
def running(*kinds: str) -> Iterator[None]:
    """While the body runs, ``kinds`` (``"grad"``, ``"vmap"``, ``"jvp"``) count as active."""
    ACTIVE.extend(kinds)
    try:
        yield
    finally:
        del ACTIVE[len(ACTIVE) - len(kinds) :]
