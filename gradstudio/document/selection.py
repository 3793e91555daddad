"""The nodes the user has selected, as state of the core rather than of a widget.

The undo stack records it around every command, so Undo puts back the selection the
user had before the edit and Redo the one they had after it (as editors such as Qt
Creator do); the canvas, the inspector and every other view follow it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gradstudio.document.events import Observable, Unsubscribe


class Selection:
    """Selected node ids, in the order they were selected; subscribers hear changes."""

    def __init__(self) -> None:
        self._ids: tuple[str, ...] = ()
        self._changed: Observable[tuple[str, ...]] = Observable()

    @property
    def ids(self) -> tuple[str, ...]:
        return self._ids

    def set(self, ids: Iterable[str]) -> bool:
        """Select exactly ``ids``; returns whether that changed anything."""
        ids = tuple(dict.fromkeys(ids))
        if ids == self._ids:
            return False
        self._ids = ids
        self._changed.emit(ids)
        return True

    def subscribe(self, callback: Callable[[tuple[str, ...]], None]) -> Unsubscribe:
        """``callback(ids)`` after every change."""
        return self._changed.subscribe(callback)
