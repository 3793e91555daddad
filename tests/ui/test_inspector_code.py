"""Custom Function nodes: the code editor in the inspector, and the editor on its own."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCharFormat

from gradstudio.document.commands import AddNodeCommand, ConnectCommand
from gradstudio.document.model import Document
from gradstudio.evaluation.evaluate import evaluate
from ui.inspector.code_editor import CodeEditor
from ui.inspector.panel import Inspector
from ui.state import StudioState

pytestmark = pytest.mark.gui

BROKEN = """class Func(Function):
    @staticmethod
    def forward(ctx, x):
        return x * undefined_name
"""


def function_state() -> tuple[StudioState, str]:
    """x (requires grad) → custom Function → backward, built with commands."""
    state = StudioState(Document(trusted=True))  # the user's own document
    doc, stack = state.document, state.undo_stack
    add_x = AddNodeCommand(
        doc, "torch.tensor", (0, 0), {"data": [1.0, 2.0], "requires_grad": True}, "x"
    )
    stack.push(add_x)
    add_f = AddNodeCommand(doc, "torch.autograd.Function", (200, 0), label="f")
    stack.push(add_f)
    stack.push(ConnectCommand(doc, add_x.node_id, "out", add_f.node_id, "x"))
    state.set_evaluation(evaluate(doc))
    return state, add_f.node_id


def test_function_node_gets_a_code_editor(qtbot) -> None:  # noqa: ANN001
    state, f = function_state()
    inspector = Inspector(state)
    qtbot.addWidget(inspector)
    state.select([f])
    editor = inspector.code_editor
    assert editor is not None
    assert "def backward(ctx, grad_out)" in editor.toPlainText()
    assert "MulBackward0" not in inspector.fact_labels["grad_fn"].text()
    assert "FuncBackward" in inspector.fact_labels["grad_fn"].text()


def test_committing_code_is_one_undoable_command_and_errors_mark_the_line(qtbot) -> None:  # noqa: ANN001
    state, f = function_state()
    inspector = Inspector(state)
    qtbot.addWidget(inspector)
    state.select([f])
    editor = inspector.code_editor
    before = len(state.undo_stack)
    editor.setPlainText(BROKEN)
    editor.commit()
    assert state.document.node(f).params["source"] == BROKEN
    assert len(state.undo_stack) == before + 1
    state.set_evaluation(evaluate(state.document))
    assert "undefined_name" in inspector.problem_label.text()
    assert editor._error_line == 4
    state.undo_stack.undo()
    inspector.flush()
    assert "undefined_name" not in editor.toPlainText()


def test_ctrl_enter_commits_and_enter_indents(qtbot) -> None:  # noqa: ANN001
    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.set_code("")
    editor.show()
    editor.setFocus()
    qtbot.keyClicks(editor, "def f(x):")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.keyClicks(editor, "return x")
    assert editor.toPlainText() == "def f(x):\n    return x"
    with qtbot.waitSignal(editor.committed) as blocker:
        qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert blocker.args == ["def f(x):\n    return x"]


def test_highlighter_colours_keywords_and_strings(qtbot) -> None:  # noqa: ANN001
    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.set_code('def f(ctx):  # note\n    return "s"\n')
    block = editor.document().firstBlock()

    def format_at(block, column):  # noqa: ANN001, ANN202
        ranges = block.layout().formats()  # keep the list alive while reading its formats
        found = next(r for r in ranges if r.start <= column < r.start + r.length)
        return QTextCharFormat(found.format)

    keyword = format_at(block, 0)
    comment = format_at(block, block.text().index("#"))
    assert keyword.fontWeight() > 400
    assert comment.fontItalic()
    second = block.next()
    string_fmt = format_at(second, second.text().index('"'))
    assert string_fmt.foreground().color() != keyword.foreground().color()
    assert format_at(block, block.text().index("ctx")).fontItalic()  # ctx like self
