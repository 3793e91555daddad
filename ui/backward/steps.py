"""Work done in steps: a generator that yields between chunks, so that a view can
spread a big graph's work over idle ticks and the window keeps answering."""

from __future__ import annotations

from collections.abc import Generator
from typing import TypeVar

T = TypeVar("T")


def finish(steps: Generator[None, None, T]) -> T:
    """Run a generator of steps to its end, at once; what it returns."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value
