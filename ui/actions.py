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

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget


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


def make_action(
    parent: QWidget,
    text: str,
    slot: object,
    shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
    icon_name: str | None = None,
    tip: str = "",
    checkable: bool = False,
) -> QAction:
    """An action of ``parent`` (its shortcut live wherever ``parent`` is); ``icon_name``
    is kept in its data, for the theme to draw the icon in its colours; a checkable
    action's slot is given the new state (``connect_toggle``)."""
    action = QAction(text, parent)
    if shortcut is not None:
        if isinstance(shortcut, QKeySequence.StandardKey):
            action.setShortcuts(shortcut)
        else:
            action.setShortcut(QKeySequence(shortcut))
    if icon_name:
        action.setData(icon_name)
    if tip:
        action.setToolTip(tip)
        action.setStatusTip(tip)
    action.setCheckable(checkable)
    if checkable:
        connect_toggle(action, slot)  # type: ignore[arg-type]
    else:
        connect_action(action, slot)  # type: ignore[arg-type]
    parent.addAction(action)
    return action
