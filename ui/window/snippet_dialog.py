"""Import a PyTorch snippet: paste code, get a graph (the code is parsed, never run).

Problems are shown under the editor with their line, and the dialog stays open so
the learner can fix the snippet instead of starting over.
"""

from __future__ import annotations

from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from gradstudio.document.model import Document
from gradstudio.evaluation.budget import DEFAULT_BUDGET
from ui.themes import mono_font

EXAMPLE = """import torch

w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)
y = (w + x) * (w + 1)
y.backward()
"""


class SnippetDialog(QDialog):
    """``document`` holds the imported graph after ``accept``."""

    def __init__(
        self,
        parent: QWidget | None = None,
        text: str = EXAMPLE,
        memory_budget: int | None = DEFAULT_BUDGET,
    ) -> None:
        super().__init__(parent)
        self.memory_budget = memory_budget
        self.setObjectName("snippetDialog")
        self.setWindowTitle("Import PyTorch snippet")
        self.resize(640, 480)
        self.document: Document | None = None
        layout = QVBoxLayout(self)
        intro = QLabel(
            "Paste PyTorch code. GradStudio reads it and builds the graph; "
            "the code itself is not run."
        )
        intro.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("snippetEditor")
        self.editor.setFont(mono_font(10.0))
        self.editor.setPlainText(text)
        self.editor.setTabStopDistance(4 * self.editor.fontMetrics().horizontalAdvance(" "))
        self.problem = QLabel()
        self.problem.setObjectName("errorLabel")
        self.problem.setWordWrap(True)
        self.problem.hide()
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Import")
        buttons.accepted.connect(self.try_import)
        buttons.rejected.connect(self.reject)
        layout.addWidget(intro)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)

    def try_import(self) -> bool:
        """Import the text; on a problem, show it and keep the dialog open."""
        from gradstudio.interchange.pytorch_import import ImportProblem, import_snippet

        try:
            self.document = import_snippet(
                self.editor.toPlainText(), memory_budget=self.memory_budget
            )
        except ImportProblem as exc:
            self.problem.setText(str(exc))
            self.problem.show()
            if exc.lineno:
                block = self.editor.document().findBlockByLineNumber(exc.lineno - 1)
                cursor = QTextCursor(block)
                cursor.select(QTextCursor.SelectionType.LineUnderCursor)
                self.editor.setTextCursor(cursor)
            return False
        self.accept()
        return True
