"""Every action of the studio, triggered the way a user triggers it, on an evaluated
example: the menu bar (with submenus), the toolbars and the context menus.

Modal dialogs are answered automatically (cancelled); an exception in any slot fails
the test, with the action's name.  New actions are found by walking, not listed.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QInputDialog,
    QMenu,
    QMessageBox,
    QToolBar,
)

from tests.ui.uitools import wait_evaluated

pytestmark = pytest.mark.gui

#: Actions that end the window under test; quitting has tests of its own.
ENDS_THE_WINDOW = {"&Quit"}


@pytest.fixture
def dialogs_answered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every modal question is cancelled; the list records which were asked."""
    asked: list[str] = []

    def cancelled(name: str, value: object) -> object:
        def answer(*_args: object, **_kwargs: object) -> object:
            asked.append(name)
            return value

        return answer

    monkeypatch.setattr(QDialog, "exec", cancelled("QDialog.exec", 0))
    monkeypatch.setattr(QMenu, "exec", cancelled("QMenu.exec", None))
    for name in ("information", "warning", "critical", "question"):
        monkeypatch.setattr(QMessageBox, name, cancelled(name, QMessageBox.StandardButton.Cancel))
    monkeypatch.setattr(QMessageBox, "about", cancelled("about", None))
    monkeypatch.setattr(QMessageBox, "exec", cancelled("QMessageBox.exec", 0))
    for name in ("getOpenFileName", "getSaveFileName"):
        monkeypatch.setattr(QFileDialog, name, cancelled(name, ("", "")))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", cancelled("getExistingDirectory", ""))
    for name in ("getText", "getInt", "getDouble", "getItem"):
        monkeypatch.setattr(QInputDialog, name, cancelled(name, ("", False)))
    return asked


def _menu_actions(menu: QMenu) -> list[QAction]:
    found: list[QAction] = []
    menu.aboutToShow.emit()  # menus filled on demand (recent files, examples)
    for action in menu.actions():
        if action.menu() is not None:
            found += _menu_actions(action.menu())
        elif not action.isSeparator():
            found.append(action)
    return found


def _all_actions(window) -> dict[str, QAction]:  # noqa: ANN001
    actions: list[QAction] = []
    for top in window.menuBar().actions():
        if top.menu() is not None:
            actions += _menu_actions(top.menu())
    for bar in window.findChildren(QToolBar):
        actions += [a for a in bar.actions() if not a.isSeparator() and a.menu() is None]
    view = window.canvas
    scene = view.graph_scene
    item = scene.node_items()[0]
    on_node = view.mapFromScene(item.sceneBoundingRect().center())
    actions += [a for a in view.context_menu(on_node).actions() if not a.isSeparator()]
    empty = view.mapFromScene(scene.itemsBoundingRect().bottomRight()) + QPoint(80, 80)
    actions += [a for a in view.context_menu(empty).actions() if not a.isSeparator()]
    named: dict[str, QAction] = {}
    for a in actions:
        key = a.text()
        while key in named:
            key += "'"
        named[key] = a
    return named


def test_every_action_triggers_without_error(
    window,
    qtbot,
    example_paths,
    dialogs_answered,  # noqa: ANN001
) -> None:
    assert window.open_example(example_paths["005_mlp_training_step"], ask=False)
    wait_evaluated(qtbot, window)
    actions = _all_actions(window)
    assert len(actions) > 30, sorted(actions)
    triggered = []
    for name, action in actions.items():
        if name in ENDS_THE_WINDOW or not action.isEnabled():
            continue
        with qtbot.capture_exceptions() as raised:
            action.trigger()
            qtbot.wait(1)  # let queued slots (deferred UI updates) run inside the capture
        assert not raised, f"{name!r}: {raised[0][1]!r}"
        triggered.append(name)
        if window.runner.busy:
            wait_evaluated(qtbot, window)
    assert "&Import PyTorch Snippet…" in triggered


def test_import_snippet_from_its_action_opens_an_empty_editor(
    window,
    qtbot,
    dialogs_answered,  # noqa: ANN001
) -> None:
    """The bug this walk was written for: ``triggered(checked)`` passed ``False`` as text."""
    with qtbot.capture_exceptions() as raised:
        window.act_import.trigger()
    assert not raised
    assert "QDialog.exec" in dialogs_answered


def test_ctrl_i_on_the_focused_canvas_opens_the_snippet_editor(
    window,
    qtbot,
    dialogs_answered,  # noqa: ANN001
) -> None:
    """The shortcut, as a key press on the focused widget (not a call to the slot)."""
    from PySide6.QtCore import Qt

    window.canvas.setFocus()
    qtbot.waitUntil(window.canvas.hasFocus)
    with qtbot.capture_exceptions() as raised:
        qtbot.keyClick(window.canvas, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    assert not raised
    assert "QDialog.exec" in dialogs_answered


def test_quit_closes_the_window(window, qtbot) -> None:  # noqa: ANN001
    window.bridge.set_clean()
    with qtbot.capture_exceptions() as raised:
        window.act_quit.trigger()
    assert not raised
    qtbot.waitUntil(lambda: not window.isVisible())


def test_f_frames_the_selection_on_the_focused_canvas(window, qtbot, example_paths) -> None:  # noqa: ANN001
    from PySide6.QtCore import Qt

    assert window.open_example(example_paths["005_mlp_training_step"], ask=False)
    wait_evaluated(qtbot, window)
    view = window.canvas
    item = view.graph_scene.node_items()[0]
    view.graph_scene.clearSelection()
    item.setSelected(True)
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    qtbot.keyClick(view, Qt.Key.Key_F)
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    assert shown.contains(item.sceneBoundingRect())
    assert shown.width() < 4 * item.sceneBoundingRect().width() + 200  # framed, not fitted


def test_timeline_keys_work_while_the_canvas_has_focus(window, qtbot, example_paths) -> None:  # noqa: ANN001
    from PySide6.QtCore import Qt

    assert window.open_example(example_paths["006_clone_accumulates"], ask=False)
    wait_evaluated(qtbot, window)
    playhead = window.state.playhead
    playhead.go_to_step(1)
    window.canvas.setFocus()
    qtbot.waitUntil(window.canvas.hasFocus)
    qtbot.keyClick(window.canvas, Qt.Key.Key_Right)
    assert playhead.effective_step == 2
    qtbot.keyClick(window.canvas, Qt.Key.Key_Left)
    assert playhead.effective_step == 1
    playhead.go_to_step(playhead.step_count - 1)  # a backward step: its grad_fns replay
    qtbot.keyClick(window.canvas, Qt.Key.Key_Period)
    qtbot.keyClick(window.canvas, Qt.Key.Key_Period)
    assert playhead.replay == 1
    qtbot.keyClick(window.canvas, Qt.Key.Key_Comma)
    assert playhead.replay == 0
