"""File › Lessons: a lesson opens its example, asks for a prediction, runs, checks it
against the engine and explains with the Explain panel; it ignores results that are not
the clean run it started."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gradstudio.evaluation.plan import prepare
from gradstudio.interchange.examples import EXAMPLES
from gradstudio.interchange.pytorch_import import import_snippet
from ui.lessons.dialog import LessonDialog
from ui.window.main_window import MainWindow


def _start(qtbot, window: MainWindow, name: str) -> LessonDialog:  # noqa: ANN001
    action = next(a for a in window.lessons_menu.actions() if a.objectName() == f"lesson_{name}")
    action.trigger()
    dialog = window.lesson_dialog
    assert isinstance(dialog, LessonDialog)
    qtbot.waitExposed(dialog)
    return dialog


def _answer(qtbot, dialog: LessonDialog, text: str) -> None:  # noqa: ANN001
    dialog.answer.setFocus()
    qtbot.keyClicks(dialog.answer, text)
    qtbot.keyClick(dialog.answer, Qt.Key.Key_Return)


def test_menu_lists_the_five_lessons(window: MainWindow) -> None:
    titles = [a.text() for a in window.lessons_menu.actions()]
    assert len(titles) == 5 and titles[1] == "2  retain_grad: keeping a non-leaf's gradient"


def test_retain_grad_lesson(qtbot, window: MainWindow) -> None:  # noqa: ANN001
    dialog = _start(qtbot, window, "2_retain_grad")
    assert window.example_name == "001_leaf_grad"
    assert dialog.progress.text() == "Step 1 of 6"
    qtbot.mouseClick(dialog.next_button, Qt.MouseButton.LeftButton)
    assert dialog.text.text() == "What will w.grad be?"
    assert not dialog.next_button.isEnabled()  # a prediction comes first
    _answer(qtbot, dialog, "tensor([5.])")
    qtbot.waitUntil(lambda: dialog.verdict is not None, timeout=15000)
    assert dialog.result.text() == "Right: w.grad is 5."
    assert window.explain_panel.body.toPlainText().startswith("w.grad = 5 = a-path")
    qtbot.mouseClick(dialog.next_button, Qt.MouseButton.LeftButton)  # explain w
    qtbot.mouseClick(dialog.next_button, Qt.MouseButton.LeftButton)
    _answer(qtbot, dialog, "2")
    qtbot.waitUntil(lambda: dialog.verdict is not None, timeout=15000)
    assert dialog.result.text() == "Not quite: you said 2; the engine says a.grad is None."
    assert window.explain_panel.body.toPlainText().startswith("a.grad = None: a is not a leaf")


def test_ignores_results_it_did_not_ask_for(qtbot, window: MainWindow) -> None:  # noqa: ANN001
    dialog = _start(qtbot, window, "5_custom_function")
    qtbot.mouseClick(dialog.next_button, Qt.MouseButton.LeftButton)
    assert dialog.text.text() == "What is d.grad_fn's name?"
    dialog.answer.setText("FuncBackward")
    qtbot.waitUntil(lambda: not window.runner.busy)
    failed = prepare(import_snippet(EXAMPLES[1].code + "y.backward()\n")).run()
    assert not failed.ok
    dialog.check()
    window.runner.finished.emit(failed)  # a result that is not ok, of another document
    assert dialog.verdict is None and dialog.result.text() == "Running…"
    qtbot.waitUntil(lambda: dialog.verdict is not None, timeout=15000)
    assert dialog.result.text() == "Right: d.grad_fn is FuncBackward."
    qtbot.mouseClick(dialog.next_button, Qt.MouseButton.LeftButton)
    _answer(qtbot, dialog, "10")
    qtbot.waitUntil(lambda: dialog.verdict is not None, timeout=15000)
    assert dialog.result.text() == "Right: a.grad is 10."
    assert "your backward(ctx, 1) returned (10, 9)" in window.explain_panel.body.toPlainText()
    qtbot.mouseClick(dialog.next_button, Qt.MouseButton.LeftButton)
    assert dialog.next_button.text() == "Done"
    qtbot.mouseClick(dialog.next_button, Qt.MouseButton.LeftButton)
    QApplication.processEvents()
    assert not dialog.isVisible()
