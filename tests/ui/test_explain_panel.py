"""Explain on a selected tensor: through the E action, the node's context menu and the
inspector's button; the panel follows the playhead and offers the retain_grad() fix."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from tests.ui.uitools import node_id, node_view_pos, wait_evaluated
from ui.window.main_window import MainWindow

SEED_001 = (
    "w.grad = 5 = a-path (MulBackward0: ∂y/∂a = b = 2) · (AddBackward0: ∂a/∂w = 1) "
    "+ b-path (MulBackward0: ∂y/∂b = a = 3) · (AddBackward0: ∂b/∂w = 1)"
)


def _open_seed(qtbot, window: MainWindow, example_paths: dict[str, Path]) -> None:  # noqa: ANN001
    window.open_example(example_paths["001_leaf_grad"], ask=False)
    window.run_graph()
    wait_evaluated(qtbot, window)


def _select(window: MainWindow, label: str) -> str:
    nid = node_id(window.state.document, label)
    window.state.select([nid])
    return nid


def _text(window: MainWindow) -> str:
    return window.explain_panel.body.toPlainText()


def test_e_key_explains_the_selection(qtbot, window: MainWindow, example_paths) -> None:  # noqa: ANN001
    _open_seed(qtbot, window, example_paths)
    _select(window, "w")
    window.canvas.setFocus()
    qtbot.keyClick(window.canvas.viewport(), Qt.Key.Key_E)
    qtbot.waitUntil(lambda: _text(window).startswith(SEED_001))
    assert window.docks["explain"].isVisible()


def test_action_and_playhead(qtbot, window: MainWindow, example_paths) -> None:  # noqa: ANN001
    _open_seed(qtbot, window, example_paths)
    _select(window, "w")
    window.act_explain.trigger()
    assert _text(window).startswith(SEED_001)
    window.act_step_back.trigger()  # step 5 of 6: before the backward
    qtbot.waitUntil(lambda: _text(window).startswith("w.grad = None: no backward has run"))
    window.act_step_next.trigger()
    window.act_fn_next.trigger()  # the replay starts: nothing ran yet
    qtbot.waitUntil(lambda: "backward has not started" in _text(window))
    window.act_fn_next.trigger()  # MulBackward0 runs
    qtbot.waitUntil(lambda: "grad_fn 1 of 5: MulBackward0 receives 1" in _text(window))
    assert "MulBackward0: ∂y/∂a = b = 2; sends 2 to a" in _text(window)


def test_context_menu_and_the_fix(qtbot, window: MainWindow, example_paths) -> None:  # noqa: ANN001
    _open_seed(qtbot, window, example_paths)
    nid = node_id(window.state.document, "a")
    menu = window.canvas.context_menu(node_view_pos(window, nid))
    explain = next(a for a in menu.actions() if a.text() == "Explain Gradient")
    explain.trigger()
    assert _text(window).startswith("a.grad = None: a is not a leaf")
    fix = window.explain_panel.fix_button
    assert not fix.isHidden()
    qtbot.mouseClick(fix, Qt.MouseButton.LeftButton)
    window.run_graph()
    qtbot.waitUntil(lambda: _text(window).startswith("a.grad = 2 = a-path"), timeout=15000)
    assert fix.isHidden()
    window.act_undo.trigger()  # the fix was one undoable edit
    assert window.state.document.node_by_label("a.retain_grad()") is None


def test_inspector_button(qtbot, window: MainWindow, example_paths) -> None:  # noqa: ANN001
    _open_seed(qtbot, window, example_paths)
    _select(window, "x")
    inspector = window.panel("inspector")
    qtbot.waitUntil(lambda: inspector.findChild(QPushButton, "explainButton") is not None)
    button = inspector.findChild(QPushButton, "explainButton")
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert _text(window).startswith("x.grad = 2 = a-path (MulBackward0: ∂y/∂a = b = 2)")


def test_without_a_selection_it_says_so(qtbot, window: MainWindow) -> None:  # noqa: ANN001
    window.explain_selection()
    assert "Select one tensor" in window.statusBar().currentMessage()


def test_typing_e_in_a_field_stays_typing(qtbot, window: MainWindow, example_paths) -> None:  # noqa: ANN001
    _open_seed(qtbot, window, example_paths)
    _select(window, "w")
    inspector = window.panel("inspector")
    qtbot.waitUntil(lambda: getattr(inspector, "label_edit", None) is not None)
    edit = inspector.label_edit
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "we")
    assert edit.text() == "we"
    assert window.explain_panel.node_id is None
