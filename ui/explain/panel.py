"""The Explain panel: the explanation of one tensor's ``.grad``, following the playhead.

The text is ``gradstudio.evaluation.explain_grad``'s, the same ``main.py explain``
prints; the panel only picks the tensor (Explain on a selected node), re-reads the
explanation whenever the position or the evaluation changes, and offers the fix it
names (``retain_grad()``) as an undoable edit.
"""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from gradstudio.document.autograd_edits import retain_grad
from gradstudio.evaluation.explain_grad import CannotExplain, GradExplanation, explain_gradient
from gradstudio.evaluation.facts import OutputRef
from ui.state import StudioState

EMPTY = "Select a tensor and choose Explain (E, its context menu, or the inspector's button)."


class ExplainPanel(QWidget):
    """Explains the chosen tensor's gradient at the playhead's position."""

    def __init__(self, state: StudioState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("explain")
        self.state = state
        self.node_id: str | None = None
        self.explanation: GradExplanation | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        self.heading = QLabel(EMPTY, self)
        self.heading.setObjectName("explainHeading")
        self.heading.setWordWrap(True)
        self.body = QPlainTextEdit(self)
        self.body.setObjectName("explainText")
        self.body.setReadOnly(True)
        self.body.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.body.setFont(font)
        self.fix_button = QPushButton("Insert retain_grad()", self)
        self.fix_button.setObjectName("explainFix")
        self.fix_button.setToolTip("Keep this tensor's .grad: call .retain_grad() right after it")
        self.fix_button.clicked.connect(self.apply_fix)
        self.fix_button.hide()
        layout.addWidget(self.heading)
        layout.addWidget(self.body, 1)
        layout.addWidget(self.fix_button)
        state.positionChanged.connect(self.refresh)
        state.evaluationChanged.connect(self.refresh)
        state.documentReplaced.connect(self._forget)

    def explain(self, node_id: str) -> None:
        """Explain the first tensor output of ``node_id`` from now on."""
        self.node_id = node_id
        self.refresh()

    def _forget(self) -> None:
        self.node_id = None
        self.refresh()

    def _ref(self) -> OutputRef | None:
        ev = self.state.evaluation
        if ev is None or self.node_id is None:
            return None
        refs = [ref for ref, _ in ev.final.items() if ref.node_id == self.node_id]
        return refs[0] if refs else OutputRef(self.node_id)

    def refresh(self) -> None:
        """Re-read the explanation at the playhead (its step and its replay)."""
        playhead = self.state.playhead
        ev = playhead.evaluation
        self.explanation = None
        self.fix_button.hide()
        if self.node_id is None or self.node_id not in self.state.document:
            self.heading.setText(EMPTY)
            self.body.setPlainText("")
            return
        label = self.state.document.node(self.node_id).label
        ref = self._ref()
        if ev is None or ref is None or self.node_id not in ev.plan.labels:
            self.heading.setText(f"{label}: run the graph to explain its gradient")
            self.body.setPlainText("")
            return
        step = playhead.effective_step
        replay = playhead.replay if playhead.replay is not None else None
        try:
            self.explanation = explain_gradient(ev, ref, step, replay)
        except CannotExplain as exc:
            self.heading.setText(str(exc))
            self.body.setPlainText("")
            return
        self.heading.setText(f"Explain {self.explanation.target}.grad — {playhead.caption().text}")
        self.body.setPlainText(self.explanation.text())
        self.fix_button.setVisible(self.explanation.fix == "retain_grad")

    def apply_fix(self) -> None:
        """Insert ``retain_grad()`` after the tensor (one undoable edit)."""
        node_id = self.node_id
        if node_id is None or self.explanation is None or self.explanation.fix != "retain_grad":
            return
        doc = self.state.document
        self.state.push(lambda: retain_grad(doc, node_id, True))
