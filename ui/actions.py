"""Connecting actions to slots so that Qt's ``checked`` argument never reaches a slot.

``QAction.triggered`` sends ``checked: bool``; PySide6 passes it to any slot that can
take a positional argument, so ``import_snippet(text=None)`` received ``False``.
Every action of the studio connects through here: the slot of a plain action is
called with no arguments; a toggle's slot is given the new state, on purpose.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu


def connect_action(action: QAction, slot: Callable[[], Any]) -> QAction:
    """Run ``slot()`` when the action is triggered (checkable or not)."""
    action.triggered.connect(lambda _checked=False: slot())
    return action


def connect_toggle(action: QAction, slot: Callable[[bool], Any]) -> QAction:
    """Run ``slot(checked)`` whenever a checkable action's state changes."""
    action.toggled.connect(lambda checked: slot(bool(checked)))
    return action


def add_action(menu: QMenu, text: str, slot: Callable[[], Any]) -> QAction:
    """``menu.addAction(text, slot)``, connected through ``connect_action``."""
    return connect_action(menu.addAction(text), slot)
