"""A plain-Python undo stack (what ``QUndoStack`` does), so edits are testable headless."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from gradstudio.document.events import Observable, Unsubscribe
from gradstudio.document.selection import Selection


class Command(Protocol):
    text: str

    def redo(self) -> None: ...

    def undo(self) -> None: ...

    def merge_with(self, other: Command) -> bool: ...


class MacroCommand:
    """Several commands as one undo step (undone in reverse order)."""

    def __init__(self, text: str, commands: list[Command] | None = None) -> None:
        self.text = text
        self.commands: list[Command] = list(commands or [])

    def redo(self) -> None:
        done: list[Command] = []
        try:
            for command in self.commands:
                command.redo()
                done.append(command)
        except Exception:
            for command in reversed(done):
                command.undo()
            raise

    def undo(self) -> None:
        for command in reversed(self.commands):
            command.undo()

    def merge_with(self, other: Command) -> bool:
        return False


@dataclass
class Selections:
    """The selection around one undo step: before the command, and after it (known once
    the step is undone: the selection the user had then, new nodes selected included)."""

    before: tuple[str, ...]
    after: tuple[str, ...] | None = None


class UndoStack:
    """Commands done so far, an index into them, and the index saved last (clean state).

    Every step also records the ``selection`` around it: Undo selects what was selected
    before the command, Redo what was selected after it (ids of nodes that no longer
    exist are left to the views to skip).
    """

    def __init__(self, selection: Selection | None = None) -> None:
        self.selection = selection if selection is not None else Selection()
        self._selections: list[Selections] = []
        self._macro_before: tuple[str, ...] = ()
        self._commands: list[Command] = []
        self._index = 0
        self._clean: int | None = 0
        self._macros: list[MacroCommand] = []
        self._changed: Observable[None] = Observable()
        self._merge_barrier = False

    def subscribe(self, callback: Callable[[], None]) -> Unsubscribe:
        """``callback()`` after every change of the index or clean state."""
        return self._changed.subscribe(lambda _: callback())

    def push(self, command: Command) -> None:
        """Do ``command`` and record it; a failing command records nothing and re-raises."""
        before = self.selection.ids  # doing it may drop removed nodes from the selection
        command.redo()
        if self._macros:
            self._macros[-1].commands.append(command)
            return
        del self._commands[self._index :]
        del self._selections[self._index :]
        if self._clean is not None and self._clean > self._index:
            self._clean = None
        top = self._commands[-1] if self._commands and not self._merge_barrier else None
        if top is not None and self._index != self._clean and top.merge_with(command):
            pass
        else:
            self._commands.append(command)
            self._selections.append(Selections(before))
            self._index += 1
        self._merge_barrier = False
        self._changed.emit(None)

    def undo(self) -> None:
        if not self.can_undo:
            return
        self._index -= 1
        selections = self._selections[self._index]
        selections.after = self.selection.ids
        self._commands[self._index].undo()
        self._merge_barrier = True
        self.selection.set(selections.before)
        self._changed.emit(None)

    def redo(self) -> None:
        if not self.can_redo:
            return
        self._commands[self._index].redo()
        after = self._selections[self._index].after
        self._index += 1
        self._merge_barrier = True
        if after is not None:
            self.selection.set(after)
        self._changed.emit(None)

    def begin_macro(self, text: str) -> None:
        if not self._macros:
            self._macro_before = self.selection.ids
        self._macros.append(MacroCommand(text))

    def end_macro(self) -> None:
        macro = self._macros.pop()
        if not macro.commands:
            return
        if self._macros:
            self._macros[-1].commands.append(macro)
            return
        self._merge_barrier = True
        self._record(macro)

    @contextmanager
    def macro(self, text: str) -> Iterator[None]:
        """Group the commands pushed inside into one undo step; on error, undo them."""
        self.begin_macro(text)
        try:
            yield
        except BaseException:
            macro = self._macros.pop()
            macro.undo()
            raise
        self.end_macro()

    def _record(self, command: Command) -> None:
        del self._commands[self._index :]
        del self._selections[self._index :]
        if self._clean is not None and self._clean > self._index:
            self._clean = None
        self._commands.append(command)
        self._selections.append(Selections(self._macro_before))
        self._index += 1
        self._changed.emit(None)

    def set_clean(self) -> None:
        self._clean = self._index
        self._merge_barrier = True
        self._changed.emit(None)

    def set_dirty(self) -> None:
        """Mark the document modified with no step that undoes to the saved state
        (a graph restored from the autosave file was never saved anywhere)."""
        self._clean = None
        self._changed.emit(None)

    def clear(self) -> None:
        self._commands.clear()
        self._selections.clear()
        self._index = 0
        self._clean = 0
        self._changed.emit(None)

    @property
    def is_clean(self) -> bool:
        return self._clean == self._index

    @property
    def index(self) -> int:
        return self._index

    def __len__(self) -> int:
        return len(self._commands)

    @property
    def can_undo(self) -> bool:
        return self._index > 0 and not self._macros

    @property
    def can_redo(self) -> bool:
        return self._index < len(self._commands) and not self._macros

    @property
    def undo_text(self) -> str:
        return self._commands[self._index - 1].text if self.can_undo else ""

    @property
    def redo_text(self) -> str:
        return self._commands[self._index].text if self.can_redo else ""
