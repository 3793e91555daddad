"""What changed: after an edit and a re-run, the tensors whose facts differ from the run
before.

The comparison is core state: the playhead keeps the evaluation it showed before
(``Playhead.previous``) and diffs it with the one it shows (``Playhead.changes``, by
``gradstudio.instruments.diff``).  This controller only draws it: a dashed outline and
a "changed" badge on each card that changed, and a list (before → after per fact)
where a click selects the node.  The marks go away at the next edit (they describe
the last run, not the graph being edited) or with View > Show What Changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from gradstudio.instruments.diff import Change
from gradstudio.interchange.quoting import printable, shorten
from ui.instruments.marks import CHANGED, CanvasMarks, Mark

if TYPE_CHECKING:
    from gradstudio.document.events import DocumentEvent
    from gradstudio.evaluation.results import Evaluation
    from ui.canvas.scene import GraphScene
    from ui.state import StudioState


def show(value: Any) -> str:
    """A fact's value as a short line."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return shorten(printable(str(value)), 60)


def change_text(label: str, c: Change) -> str:
    where = label if c.tensor == label or not c.tensor else f"{label} · {c.tensor}"
    return f"{printable(where)}: {c.fact} {show(c.before)} → {show(c.after)}"


class ChangesController(QObject):
    """Shows the playhead's changes on the canvas while ``enabled`` and until an edit."""

    changed = Signal()

    def __init__(self, state: StudioState, scene: GraphScene, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        self.marks = CanvasMarks(scene, "left")
        self.enabled = True
        #: The changes on show ({} after an edit, or when there are none).
        self.shown: dict[str, tuple[Change, ...]] = {}
        self._for: Evaluation | None = None
        self._unsubscribe = state.document.subscribe(self._on_event)
        state.evaluationChanged.connect(self._evaluation_changed)
        state.documentReplaced.connect(self._document_replaced)

    def set_enabled(self, on: bool) -> None:
        self.enabled = on
        if on:
            self._for = None
            self._evaluation_changed()
        else:
            self._show({})

    def _evaluation_changed(self) -> None:
        ev = self.state.playhead.evaluation
        if ev is self._for:
            return  # the same run shown again (a rename): the edit already cleared it
        self._for = ev
        self._show(self.state.playhead.changes() if self.enabled else {})

    def _on_event(self, event: DocumentEvent) -> None:
        if event.affects_evaluation and self.shown:
            self._show({})

    def _document_replaced(self) -> None:
        self._unsubscribe()
        self._unsubscribe = self.state.document.subscribe(self._on_event)
        self._for = None
        self._show({})

    def _show(self, changes: dict[str, tuple[Change, ...]]) -> None:
        doc = self.state.document
        changes = {k: v for k, v in changes.items() if k in doc}
        self.shown = changes
        marks = {}
        for node_id, items in changes.items():
            label = doc.node(node_id).label
            tip = "\n".join(change_text(label, c) for c in items[:12])
            marks[node_id] = Mark("changed", CHANGED, tip, outline=True)
        self.marks.set(marks)
        self.changed.emit()


class ChangesPanel(QWidget):
    """One line per changed fact; a click selects its node."""

    def __init__(self, controller: ChangesController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("changesPanel")
        self.controller = controller
        self.summary = QLabel(self)
        self.summary.setObjectName("changesSummary")
        self.summary.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setObjectName("changesList")
        self.list.itemClicked.connect(self._clicked)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.addWidget(self.summary)
        lay.addWidget(self.list, 1)
        controller.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        self.list.clear()
        doc = self.controller.state.document
        shown = self.controller.shown
        for node_id, items in shown.items():
            label = doc.node(node_id).label
            for c in items:
                item = QListWidgetItem(change_text(label, c))
                item.setData(Qt.ItemDataRole.UserRole, node_id)
                self.list.addItem(item)
        if shown:
            n = len(shown)
            self.summary.setText(
                f"The last edit changed {n} node{'s' if n != 1 else ''} (before → after):"
            )
        elif not self.controller.enabled:
            self.summary.setText("View > Show What Changed is off.")
        else:
            self.summary.setText(
                "After an edit and a run, the facts that changed are listed here "
                "and outlined on the canvas."
            )

    def _clicked(self, item: QListWidgetItem) -> None:
        node_id = item.data(Qt.ItemDataRole.UserRole)
        if node_id in self.controller.state.document:
            self.controller.state.select([node_id])
