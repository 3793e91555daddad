"""``engine.nn``: only ``functional`` is part of the contract."""

from engine.nn import functional

__all__ = ["functional"]
