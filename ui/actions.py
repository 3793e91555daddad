"""Connecting actions to slots so that Qt's ``checked`` argument never reaches a slot.

``QAction.triggered`` sends ``checked: bool``; PySide6 passes it to any slot that can
take a positional argument, so ``import_snippet(text=None)`` received ``False``.
Every action of the studio connects through here: the slot of a plain action is
called with no arguments; a toggle's slot is given the new state, on purpose.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu


def _weak(slot: Callable[..., Any]) -> Callable[..., Any]:
    """``slot``, or for a bound method a caller that does not keep its object alive: the
    connection lives as long as the action, a child of the window, and a strong reference
    to a window's method would keep every closed window alive."""
    if not inspect.ismethod(slot):
        return slot
    method = weakref.WeakMethod(slot)

    def call(*args: Any) -> Any:
        bound = method()
        return None if bound is None else bound(*args)

    return call


def connect_action(action: QAction, slot: Callable[[], Any]) -> QAction:
    """Run ``slot()`` when the action is triggered (checkable or not)."""
    call = _weak(slot)
    action.triggered.connect(lambda _checked=False: call())
    return action


def connect_toggle(action: QAction, slot: Callable[[bool], Any]) -> QAction:
    """Run ``slot(checked)`` whenever a checkable action's state changes."""
    call = _weak(slot)
    action.toggled.connect(lambda checked: call(bool(checked)))
    return action


def add_action(menu: QMenu, text: str, slot: Callable[[], Any]) -> QAction:
    """``menu.addAction(text, slot)``, connected through ``connect_action``."""
    return connect_action(menu.addAction(text), slot)
