"""The studio's shared view state: one object every panel reads and signals on.

The document and the undo stack are the truth for *edits*; this object holds
what the panels show about them: the current evaluation, the selection, and the
timeline position (a step, and within a backward step, how many ``grad_fn``
executions have been replayed).  Panels never talk to each other directly.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from gradstudio.document.model import Document
from gradstudio.document.undo import UndoStack
from gradstudio.evaluation.evaluate import Evaluation, Snapshot


class StudioState(QObject):
    documentReplaced = Signal()  # a new Document object (New/Open); re-subscribe to it
    evaluationChanged = Signal()  # self.evaluation changed (or became None / stale)
    selectionChanged = Signal()  # self.selection (node ids) changed
    gradFnSelected = Signal(str)  # a grad_fn key picked in the backward-graph view ("" = none)
    positionChanged = Signal()  # self.step / self.replay changed

    def __init__(self, document: Document | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # the empty document the user starts with: code they type into it is theirs
        self.document = document if document is not None else Document(trusted=True)
        self.undo_stack = UndoStack()
        self.evaluation: Evaluation | None = None
        self.selection: tuple[str, ...] = ()
        self.grad_fn_key: str = ""
        self.step: int = -1  # -1: the final state
        self.replay: int | None = None  # executions of the step's backward trace shown (None: all)

    # -- document -------------------------------------------------------
    def replace_document(self, document: Document) -> None:
        self.document = document
        self.undo_stack = UndoStack()
        self.selection = ()
        self.grad_fn_key = ""
        self.evaluation = None
        self.step, self.replay = -1, None
        self.documentReplaced.emit()
        self.evaluationChanged.emit()
        self.selectionChanged.emit()
        self.positionChanged.emit()

    # -- evaluation -------------------------------------------------------
    def set_evaluation(self, evaluation: Evaluation | None) -> None:
        self.evaluation = evaluation
        n = len(evaluation.steps) if evaluation is not None else 0
        if self.step >= n:
            self.step, self.replay = -1, None
        self.evaluationChanged.emit()
        self.positionChanged.emit()

    def snapshot(self) -> Snapshot | None:
        """The snapshot at the timeline position (the final one when at the end)."""
        ev = self.evaluation
        if ev is None or not ev.steps:
            return None
        return ev.final if self.step < 0 else ev.snapshot(self.step)

    @property
    def effective_step(self) -> int:
        ev = self.evaluation
        if ev is None or not ev.steps:
            return -1
        return len(ev.steps) - 1 if self.step < 0 else self.step

    # -- selection and timeline ------------------------------------------
    def select(self, node_ids: tuple[str, ...] | list[str]) -> None:
        ids = tuple(node_ids)
        if ids != self.selection:
            self.selection = ids
            self.selectionChanged.emit()

    def select_grad_fn(self, key: str) -> None:
        if key != self.grad_fn_key:
            self.grad_fn_key = key
            self.gradFnSelected.emit(key)

    def set_position(self, step: int, replay: int | None = None) -> None:
        if (step, replay) != (self.step, self.replay):
            self.step, self.replay = step, replay
            self.positionChanged.emit()
