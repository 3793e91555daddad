"""The studio's shared view state: one object every panel reads and signals on.

The document and the undo stack are the truth for *edits*; this object holds
what the panels show about them: the selection, and the one ``Playhead`` (the
evaluation shown and the timeline position: a step, and within a backward step,
how many ``grad_fn`` executions have been replayed), whose events it relays as
Qt signals.  Every panel reads the facts at the position from the playhead only;
panels never talk to each other directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from gradstudio.document.events import DocumentEvent, LabelChanged
from gradstudio.document.model import Document
from gradstudio.document.selection import Selection
from gradstudio.document.undo import UndoStack
from gradstudio.document.values import EditError
from gradstudio.evaluation.playhead import EvaluationShown, Playhead, PlayheadEvent
from gradstudio.evaluation.results import Evaluation


class StudioState(QObject):
    documentReplaced = Signal()  # a new Document object (New/Open); re-subscribe to it
    evaluationChanged = Signal()  # self.evaluation changed (or became None / stale)
    selectionChanged = Signal()  # self.selection (node ids) changed
    gradFnSelected = Signal(str)  # a grad_fn key picked in the backward-graph view ("" = none)
    positionChanged = Signal()  # the playhead's step / replay changed
    editRefused = Signal(str)  # an edit pushed through ``push`` was refused: the reason

    def __init__(self, document: Document | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # the empty document the user starts with: code they type into it is theirs
        self.document = document if document is not None else Document(trusted=True)
        # the selection is core state: the undo stack puts it back around each step
        self._selection = Selection()
        self._selection.subscribe(self._selection_changed)
        self.undo_stack = UndoStack(self._selection)
        self.grad_fn_key: str = ""
        self.playhead = Playhead()
        self._quiet = False
        self.playhead.subscribe(self._relay)
        self._unsubscribe = self.document.subscribe(self._on_document_event)

    def _on_document_event(self, event: DocumentEvent) -> None:
        """Renames reach the playhead, so every view shows the new name without a re-run."""
        if isinstance(event, LabelChanged):
            self.playhead.relabel(event.node_id, event.new)

    def _selection_changed(self, ids: tuple[str, ...]) -> None:
        present = tuple(n for n in ids if n in self.document)
        if present != ids:  # a restored selection names a node that is gone
            self._selection.set(present)
            return
        if not self._quiet:
            self.selectionChanged.emit()

    def _relay(self, event: PlayheadEvent) -> None:
        """The playhead's events as Qt signals, for the widgets."""
        if self._quiet:
            return
        if isinstance(event, EvaluationShown):
            self.evaluationChanged.emit()
        else:
            self.positionChanged.emit()

    @property
    def evaluation(self) -> Evaluation | None:
        """The evaluation the playhead plays (read the facts from the playhead)."""
        return self.playhead.evaluation

    # -- document -------------------------------------------------------
    def replace_document(self, document: Document) -> None:
        self._unsubscribe()
        self.document = document
        self._unsubscribe = document.subscribe(self._on_document_event)
        self.undo_stack = UndoStack(self._selection)
        self._quiet = True  # selectionChanged is emitted below, with the others
        try:
            self._selection.set(())
        finally:
            self._quiet = False
        self.grad_fn_key = ""
        self._quiet = True  # the document's signal comes first, with everything reset
        try:
            self.playhead.set_position(-1, None)
            self.playhead.set_evaluation(None)
        finally:
            self._quiet = False
        self.documentReplaced.emit()
        self.evaluationChanged.emit()
        self.selectionChanged.emit()
        self.positionChanged.emit()

    # -- edits ------------------------------------------------------------
    def push(self, command: Any, refused: Callable[[str], None] | None = None) -> Any | None:
        """Do and record one edit: the one path every widget's edit takes.

        ``command`` is a gradstudio command or a zero-argument factory building one
        (so a refusal while building is caught too).  A refused edit (``EditError``)
        records nothing; its reason goes to ``refused`` when given (a panel showing
        it in place), else to ``editRefused``.  Returns the command, or None.
        """
        try:
            cmd = command() if callable(command) and not hasattr(command, "redo") else command
            self.undo_stack.push(cmd)
        except EditError as exc:
            if refused is not None:
                refused(exc.message)
            else:
                self.editRefused.emit(exc.message)
            return None
        return cmd

    # -- evaluation -------------------------------------------------------
    def set_evaluation(self, evaluation: Evaluation | None) -> None:
        """A new run's result (or none): the playhead plays it from now on."""
        self.playhead.set_evaluation(evaluation)

    # -- selection and timeline ------------------------------------------
    @property
    def selection(self) -> tuple[str, ...]:
        """The selected node ids (``Selection``, shared with the undo stack)."""
        return self._selection.ids

    def select(self, node_ids: tuple[str, ...] | list[str]) -> None:
        self._selection.set(node_ids)

    def select_grad_fn(self, key: str) -> None:
        if key != self.grad_fn_key:
            self.grad_fn_key = key
            self.gradFnSelected.emit(key)
