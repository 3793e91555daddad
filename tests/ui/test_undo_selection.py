"""Undo keeps the selection: Ctrl+Z selects what was selected before the edit, and
Ctrl+Shift+Z what was selected after it, on the canvas and in the inspector alike."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from tests.ui.uitools import add_source


def _canvas_selection(window) -> set[str]:  # noqa: ANN001
    return set(window.canvas.graph_scene.selected_node_ids())


def _key(window, qtbot, key: Qt.Key, modifiers: Qt.KeyboardModifier) -> None:  # noqa: ANN001
    window.canvas.setFocus()
    qtbot.waitUntil(window.canvas.hasFocus)
    qtbot.keyClick(window.canvas, key, modifiers)
    QApplication.processEvents()


def test_undo_of_a_delete_selects_the_restored_node_and_redo_clears_it(window, qtbot) -> None:  # noqa: ANN001
    a = add_source(window, "a", [1.0], True, (0, 0))
    b = add_source(window, "b", [2.0], True, (0, 200))
    window.canvas.select_nodes([a])
    assert window.state.selection == (a,)
    window.act_delete.trigger()
    assert a not in window.state.document and window.state.selection == ()
    ctrl = Qt.KeyboardModifier.ControlModifier
    _key(window, qtbot, Qt.Key.Key_Z, ctrl)
    assert a in window.state.document
    assert window.state.selection == (a,) and _canvas_selection(window) == {a}
    assert window.panel("inspector").title.text() == "a"
    _key(window, qtbot, Qt.Key.Key_Z, ctrl | Qt.KeyboardModifier.ShiftModifier)
    assert a not in window.state.document and window.state.selection == ()
    assert _canvas_selection(window) == set() and b in window.state.document


def test_undo_and_redo_actions_restore_each_steps_selection(window, qtbot) -> None:  # noqa: ANN001
    a = add_source(window, "a", [1.0], True, (0, 0))
    window.canvas.select_nodes([a])
    added = window.canvas.add_node("torch.exp", QPointF(400, 0))
    assert added is not None
    window.canvas.select_nodes([added])  # as the Tab search does with what it added
    window.canvas.select_nodes([])  # then a click on empty canvas
    window.act_undo.trigger()  # undo the add: back to the selection before it
    assert added not in window.state.document
    assert window.state.selection == (a,) and _canvas_selection(window) == {a}
    window.act_redo.trigger()  # redo: the selection that followed the add
    assert window.state.selection == () and _canvas_selection(window) == set()
    window.canvas.select_nodes([added])
    window.act_undo.trigger()
    window.act_redo.trigger()
    assert window.state.selection == (added,) and _canvas_selection(window) == {added}


def test_the_selection_never_names_a_node_that_is_gone(window) -> None:  # noqa: ANN001
    a = add_source(window, "a", [1.0], True)
    window.state.select([a, "gone"])
    assert window.state.selection == (a,)
