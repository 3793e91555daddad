"""A lesson played beside the studio: it opens its example, asks for predictions, runs,
checks each answer against the engine and explains with the Explain panel.

The lesson only reads results of the run it started itself: a run that was already
going (a live re-run, the example's first run) or one that did not finish cleanly
is not an answer to the learner's prediction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gradstudio.evaluation.explain_grad import CannotExplain
from gradstudio.evaluation.results import Evaluation
from gradstudio.lessons.check import Verdict, check_prediction
from gradstudio.lessons.model import Lesson, Step

if TYPE_CHECKING:
    from ui.window.main_window import MainWindow


class LessonDialog(QDialog):
    """One lesson, step by step, over ``window`` (non-modal: the studio stays usable)."""

    def __init__(self, window: MainWindow, lesson: Lesson) -> None:
        super().__init__(window)
        self.setObjectName("lessonDialog")
        self.setWindowTitle(f"Lesson: {lesson.title}")
        self.setModal(False)
        self.window_ = window
        self.lesson = lesson
        self.index = 0
        self.verdict: Verdict | None = None
        #: The document and revision of the run this lesson started (None: not waiting).
        self._awaiting: tuple[object, int] | None = None
        layout = QVBoxLayout(self)
        self.progress = QLabel(self)
        self.progress.setObjectName("lessonProgress")
        self.text = QLabel(self)
        self.text.setObjectName("lessonText")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.answer = QLineEdit(self)
        self.answer.setObjectName("lessonAnswer")
        self.answer.setPlaceholderText("your prediction, e.g. 5, None, True, AddBackward0")
        self.answer.returnPressed.connect(self.check)
        self.result = QLabel(self)
        self.result.setObjectName("lessonResult")
        self.result.setWordWrap(True)
        buttons = QWidget(self)
        row = QHBoxLayout(buttons)
        row.setContentsMargins(0, 0, 0, 0)
        self.check_button = QPushButton("Run and check", self)
        self.check_button.setObjectName("lessonCheck")
        self.check_button.clicked.connect(self.check)
        self.next_button = QPushButton("Next", self)
        self.next_button.setObjectName("lessonNext")
        self.next_button.clicked.connect(self.next_step)
        row.addStretch(1)
        row.addWidget(self.check_button)
        row.addWidget(self.next_button)
        for w in (self.progress, self.text, self.answer, self.result, buttons):
            layout.addWidget(w)
        self.resize(460, 240)
        window.runner.finished.connect(self._finished)

    @property
    def step(self) -> Step:
        return self.lesson.steps[self.index]

    def start(self) -> bool:
        """Open the lesson's example (asking about unsaved changes) and show step 1."""
        if not self.window_.open_example(self.lesson.example_path):
            return False
        self.index = 0
        self._show()
        self.show()
        return True

    def _show(self) -> None:
        step = self.step
        last = self.index == len(self.lesson.steps) - 1
        self.progress.setText(f"Step {self.index + 1} of {len(self.lesson.steps)}")
        self.text.setText(step.text)
        predicting = step.kind == "predict"
        self.answer.setVisible(predicting)
        self.answer.clear()
        self.check_button.setVisible(predicting)
        self.check_button.setEnabled(predicting)
        self.result.setText("")
        self.verdict = None
        self.next_button.setText("Done" if last else "Next")
        self.next_button.setEnabled(not predicting)
        if step.kind == "explain":
            self._explain(step.node)
        if predicting:
            self.answer.setFocus()

    def next_step(self) -> None:
        if self.index >= len(self.lesson.steps) - 1:
            self.close()
            return
        self.index += 1
        self._show()

    def check(self) -> None:
        """Run the graph; the answer is checked when this run's result arrives."""
        if self.step.kind != "predict" or not self.answer.text().strip():
            self.result.setText("Type your prediction first.")
            return
        self.check_button.setEnabled(False)
        self.result.setText("Running…")
        doc = self.window_.state.document
        self._awaiting = (doc, doc.revision)
        self.window_.run_graph()

    def _finished(self, evaluation: object) -> None:
        if self._awaiting is None or not isinstance(evaluation, Evaluation):
            return
        state = self.window_.state
        doc, revision = self._awaiting
        current = (
            evaluation.ok
            and evaluation is state.evaluation  # the runner showed it for this document
            and state.document is doc
            and doc.revision == revision == evaluation.plan.revision
            and not self.window_.runner.stale
        )
        if not current:
            return  # not the clean run of this document the lesson asked for
        self._awaiting = None
        step = self.step
        try:
            verdict = check_prediction(evaluation, step.node, step.fact, self.answer.text())
        except CannotExplain as exc:
            self.result.setText(f"This lesson names no tensor here: {exc}")
            self.next_button.setEnabled(True)
            return
        self.verdict = verdict
        name = f"{step.node}.{step.fact}"
        if verdict.correct:
            self.result.setText(f"Right: {name} is {verdict.expected}.")
        else:
            self.result.setText(
                f"Not quite: you said {verdict.given}; the engine says {name} is "
                f"{verdict.expected}."
            )
        self.next_button.setEnabled(True)
        if step.fact == "grad":
            self._explain(step.node)

    def _explain(self, label: str) -> None:
        node = self.window_.state.document.node_by_label(label)
        if node is not None:
            self.window_.explain_node(node.id)
