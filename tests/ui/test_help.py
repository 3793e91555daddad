"""Help that people expect: every shortcut listed from the actions, Getting Started, and
Blender's Shift+A for the add-node search."""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from ui.window.help_dialogs import GettingStartedDialog, ShortcutsDialog, shortcut_rows

pytestmark = pytest.mark.gui


def _open_dialog(qtbot, kind: type):  # noqa: ANN001, ANN202
    qtbot.waitUntil(
        lambda: (
            isinstance(QApplication.activeModalWidget(), kind)
            or any(isinstance(w, kind) and w.isVisible() for w in QApplication.topLevelWidgets())
        )
    )
    return next(w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible())


def test_keyboard_shortcuts_lists_every_action_with_a_shortcut(window, qtbot) -> None:  # noqa: ANN001
    window.act_shortcuts.trigger()
    dialog = _open_dialog(qtbot, ShortcutsDialog)
    shown = {
        (dialog.table.item(r, 1).text(), dialog.table.item(r, 2).text())
        for r in range(dialog.table.rowCount())
    }
    for action in window.findChildren(QAction):
        if shiboken6.isValid(action) and action.shortcuts() and action.text():
            first = action.shortcuts()[0].toString(QKeySequence.SequenceFormat.NativeText)
            [keys] = [k for what, k in shown if what == action.text().replace("&", "")][:1]
            assert keys.startswith(first)
    assert ("Keyboard Shortcuts", "Ctrl+/") in shown
    assert ("Copy", "Ctrl+C, Ctrl+Ins") in shown  # not Qt's F16 and Copy keys
    assert any(what == "Add a node (search)" for what, _ in shown)
    dialog.reject()


def test_rows_name_their_menu(window) -> None:  # noqa: ANN001
    rows = {what: where for where, what, _ in shortcut_rows(window)}
    assert rows["Keyboard Shortcuts"] == "Help"


def test_getting_started_opens_the_walkthrough(window, qtbot) -> None:  # noqa: ANN001
    window.act_getting_started.trigger()
    dialog = _open_dialog(qtbot, GettingStartedDialog)
    text = dialog.page.toPlainText()
    assert "Your first five minutes" in text and "Shift+A" in text
    dialog.reject()


def test_shift_a_opens_the_add_node_search(window, qtbot) -> None:  # noqa: ANN001
    canvas = window.canvas
    canvas.setFocus()
    QTest.keyClick(canvas, Qt.Key.Key_A, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(canvas.search.isVisible)
    QTest.keyClicks(canvas.search.field, "relu")
    first = canvas.search.results()[0]
    QTest.keyClick(canvas.search.field, Qt.Key.Key_Return)
    assert [n.type_id for n in window.state.document.nodes()] == [first]
