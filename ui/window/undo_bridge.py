"""Undo/Redo for the window: gradstudio's ``UndoStack`` stays the truth, mirrored into Qt.

The stack lives in ``StudioState`` (so headless code and every panel share one
history); this bridge turns it into ``QAction``s whose texts name the command
("Undo Add tensor"), hands edits to ``StudioState.push`` (which turns refused edits
into a message instead of an exception), and follows the stack when a document is
replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence

from gradstudio.document.commands import SequenceCommand
from gradstudio.document.undo import UndoStack
from ui.actions import connect_action
from ui.state import StudioState

CommandOrFactory = Any  # a gradstudio command, or a zero-argument callable building one


class UndoBridge(QObject):
    """Pushes edits onto ``state.undo_stack``; owns the Undo and Redo actions."""

    changed = Signal()  # index or clean state changed (window title, action texts)
    refused = Signal(str)  # an edit was refused: the document's reason

    def __init__(self, state: StudioState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.undo_action = QAction("&Undo", self)
        self.undo_action.setShortcuts(QKeySequence.StandardKey.Undo)
        connect_action(self.undo_action, self.undo)
        self.redo_action = QAction("&Redo", self)
        self.redo_action.setShortcuts(QKeySequence.StandardKey.Redo)  # Ctrl+Y and Ctrl+Shift+Z
        connect_action(self.redo_action, self.redo)
        self._unsubscribe: Callable[[], None] | None = None
        state.documentReplaced.connect(self._follow_stack)
        state.editRefused.connect(self.refused)
        self._follow_stack()

    @property
    def stack(self) -> UndoStack:
        return self.state.undo_stack

    def _follow_stack(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._unsubscribe = self.stack.subscribe(self._on_stack_changed)
        self._on_stack_changed()

    def _on_stack_changed(self) -> None:
        stack = self.stack
        self.undo_action.setEnabled(stack.can_undo)
        self.redo_action.setEnabled(stack.can_redo)
        self.undo_action.setText(f"&Undo {stack.undo_text}" if stack.can_undo else "&Undo")
        self.redo_action.setText(f"&Redo {stack.redo_text}" if stack.can_redo else "&Redo")
        self.changed.emit()

    # ------------------------------------------------------------------ editing
    def push(self, command: CommandOrFactory) -> Any:
        """Do and record an edit (through ``StudioState.push``, the one path);
        returns the command, or None when it was refused."""
        return self.state.push(command)

    def push_group(self, text: str, commands: list[CommandOrFactory]) -> bool:
        """Several edits as one undo step; all or nothing."""
        parts = [c if callable(c) and not hasattr(c, "redo") else (lambda c=c: c) for c in commands]
        return self.state.push(SequenceCommand(text, parts)) is not None

    def undo(self) -> None:
        self.stack.undo()

    def redo(self) -> None:
        self.stack.redo()

    @property
    def is_clean(self) -> bool:
        return self.stack.is_clean

    def set_clean(self) -> None:
        self.stack.set_clean()
