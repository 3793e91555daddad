"""``engine.nn``: ``functional`` and ``init`` (the parameter initialisers)."""

from engine.nn import functional, init

__all__ = ["functional", "init"]
