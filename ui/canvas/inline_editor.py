"""Editing on the card itself: double-click a title to rename, a value to change it.

Values are typed as Python literals (``[1., 2.]``, ``3``, ``True``), the way a learner
would write them in PyTorch; the document's parameter checker has the last word and
its message is shown when it refuses.
"""

from __future__ import annotations

import ast
from typing import Any

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent
from PySide6.QtWidgets import QLineEdit, QWidget


def parse_literal(text: str) -> Any:
    """A Python literal from the text (``ValueError`` with a readable message if not one)."""
    stripped = text.strip()
    if stripped.lower() in ("none", ""):
        return None
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ValueError(
            f"{stripped!r} is not a Python value such as 3, 2.5, [1., 2.] or True"
        ) from None


def literal_text(value: Any) -> str:
    """The text an editor starts with for a parameter value."""
    return "None" if value is None else repr(value)


class InlineEditor(QLineEdit):
    """A one-line editor over part of a card; emits ``committed(text)`` or ``cancelled``."""

    committed = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: QWidget, rect: QRect, text: str) -> None:
        super().__init__(parent)
        self.setObjectName("inlineEditor")
        self._done = False
        self.setText(text)
        self.selectAll()
        self.setGeometry(rect)
        self.returnPressed.connect(self._commit)
        self.show()
        self.setFocus(Qt.FocusReason.OtherFocusReason)

    def _commit(self) -> None:
        if not self._done:
            self._done = True
            self.committed.emit(self.text())
            self.deleteLater()

    def cancel(self) -> None:
        if not self._done:
            self._done = True
            self.cancelled.emit()
            self.deleteLater()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if event.key() == Qt.Key.Key_Escape:
            self.cancel()
            return
        super().keyPressEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802 - Qt's name
        super().focusOutEvent(event)
        self._commit()
