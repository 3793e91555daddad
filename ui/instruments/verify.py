"""Run > Verify with PyTorch: the document under real PyTorch, compared step by step.

``VerifyController`` runs ``gradstudio.instruments.verify`` in a child process
(``InstrumentJob``: the window never waits, Cancel kills it), keeps the report until
the document changes, and marks every card: agrees, or how many facts differ.  The
``VerifyPanel`` lists the differences as a table (node, fact, engine, PyTorch), and
``VerifySection`` lists the selected node's in the inspector.  When PyTorch is not
installed, the panel says how to install it: that is a fact about the machine, not
an error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gradstudio.instruments.verify import NodeMark, VerifyReport
from gradstudio.interchange.quoting import printable, shorten
from gradstudio.text import html_text
from ui.instruments.job import InstrumentJob
from ui.instruments.marks import AGREES, DIFFERS, CanvasMarks, Mark

if TYPE_CHECKING:
    from gradstudio.document.events import DocumentEvent
    from ui.canvas.scene import GraphScene
    from ui.state import StudioState

COLUMNS = ("node", "fact", "engine", "PyTorch")


class VerifyController(QObject):
    """Runs verify for the window and holds its latest report (None once the document
    changed); ``changed`` fires whenever the report, the notice or ``busy`` changes."""

    changed = Signal()
    message = Signal(str)  # one line for the status bar

    def __init__(self, state: StudioState, scene: GraphScene, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        self.marks = CanvasMarks(scene, "right")
        self.report: VerifyReport | None = None
        #: One line about the last run when it gave no report (PyTorch missing, failed).
        self.notice = ""
        self.job = InstrumentJob(self)
        self.job.done.connect(self._done)
        self.job.busyChanged.connect(lambda _busy: self.changed.emit())
        self._unsubscribe = state.document.subscribe(self._on_event)
        state.documentReplaced.connect(self._document_replaced)

    @property
    def busy(self) -> bool:
        return self.job.busy

    def verify(self) -> None:
        """Start verifying the document as it is now (Custom Function code runs in the
        child only if the document is trusted)."""
        doc = self.state.document
        if len(doc) == 0:
            self.message.emit("Nothing to verify: the graph is empty")
            return
        self.clear()
        self.notice = "Running the graph under PyTorch…"
        self.job.start("verify", doc, device=doc.settings["device"])
        self.message.emit(self.notice)
        self.changed.emit()

    def cancel(self) -> None:
        self.job.cancel()

    def mark_for(self, node_id: str) -> NodeMark | None:
        if self.report is None:
            return None
        return next((m for m in self.report.marks if m.node_id == node_id), None)

    def clear(self) -> None:
        had = self.report is not None or bool(self.notice)
        self.report = None
        self.notice = ""
        self.marks.clear()
        if had:
            self.changed.emit()

    def _on_event(self, event: DocumentEvent) -> None:
        if event.affects_evaluation:
            if self.job.busy:
                self.job.cancel()
            self.clear()

    def _document_replaced(self) -> None:
        self._unsubscribe()
        self._unsubscribe = self.state.document.subscribe(self._on_event)
        self.job.cancel()
        self.clear()

    def _done(self, payload: dict) -> None:
        self.notice = ""
        if "result" in payload:
            report = payload["result"]
            assert isinstance(report, VerifyReport)
            self.report = report
            self.marks.set({m.node_id: _mark(m) for m in report.marks})
            self.message.emit(verdict(report))
        elif "unavailable" in payload:
            self.notice = str(payload["unavailable"])
            self.message.emit(self.notice)
        elif "error" in payload:
            self.notice = f"Verify failed: {payload['error']}"
            self.message.emit(self.notice)
        else:
            self.message.emit("Verify cancelled")
        self.changed.emit()


def verdict(report: VerifyReport) -> str:
    differing = sum(1 for m in report.marks if not m.agrees)
    if not differing:
        return f"PyTorch {report.torch_version}: every step agrees"
    noun = "node differs" if differing == 1 else "nodes differ"
    return f"PyTorch {report.torch_version}: {differing} {noun} from the engine"


def _mark(m: NodeMark) -> Mark:
    if m.agrees:
        return Mark("✓ PyTorch", AGREES, "Agrees with PyTorch on every fact")
    n = len(m.differences)
    lines = [
        f"{_where(d.tensor)}{d.fact}: engine {d.engine} | PyTorch {d.torch}" for d in m.differences
    ]
    return Mark(f"✗ {n} differ" + ("s" if n == 1 else ""), DIFFERS, "\n".join(lines[:12]))


def _where(tensor: str) -> str:
    return f"{printable(tensor)}: " if tensor else ""


class VerifyPanel(QWidget):
    """The verdict, and one table row per difference; a click selects its node."""

    def __init__(self, controller: VerifyController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("verifyPanel")
        self.controller = controller
        self.summary = QLabel(self)
        self.summary.setObjectName("verifySummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.run_button = QPushButton("Verify", self)
        self.run_button.clicked.connect(controller.verify)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.clicked.connect(controller.cancel)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setObjectName("verifyTable")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.cellClicked.connect(self._clicked)
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.run_button)
        top.addWidget(self.cancel_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.addLayout(top)
        lay.addWidget(self.table, 1)
        lay.addStretch(0)
        controller.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        c = self.controller
        self.cancel_button.setVisible(c.busy)
        self.run_button.setEnabled(not c.busy)
        report = c.report
        rows: list[tuple[str, str, str, str, str]] = []
        if report is not None:
            for m in report.marks:
                for d in m.differences:
                    same = not d.tensor or d.tensor == m.label
                    node = printable(m.label if same else f"{m.label} · {d.tensor}")
                    rows.append((m.node_id, node, d.fact, d.engine, d.torch))
            self.summary.setText(verdict(report))
        elif c.notice:
            self.summary.setText(c.notice)
        else:
            self.summary.setText(
                "Run > Verify with PyTorch (Ctrl+Shift+V) runs this graph under real PyTorch "
                "in a separate process and compares every fact of every step."
            )
        self.table.setRowCount(len(rows))
        for r, (node_id, *cells) in enumerate(rows):
            for col, text in enumerate(cells):
                item = QTableWidgetItem(shorten(printable(text), 120))
                item.setToolTip(printable(text))
                item.setData(Qt.ItemDataRole.UserRole, node_id)
                self.table.setItem(r, col, item)
        self.table.setVisible(bool(rows))
        layout = self.layout()
        layout.setStretch(layout.count() - 1, 0 if rows else 1)  # the verdict stays on top

    def _clicked(self, row: int, _col: int) -> None:
        item = self.table.item(row, 0)
        if item is not None:
            node_id = item.data(Qt.ItemDataRole.UserRole)
            if node_id in self.controller.state.document:
                self.controller.state.select([node_id])


class VerifySection(QLabel):
    """The inspector's "Verify with PyTorch" lines for one node; hides ``section``
    while there is no report."""

    def __init__(
        self, controller: VerifyController, node_id: str, section: QWidget | None = None
    ) -> None:
        super().__init__()
        self.setObjectName("verifySection")
        self.controller = controller
        self.node_id = node_id
        self.section = section
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        controller.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        mark = self.controller.mark_for(self.node_id)
        if mark is None:
            self.setText("")
        elif mark.agrees:
            self.setText(f"<span style='color:{AGREES}'>✓ agrees with PyTorch on every fact</span>")
        else:
            rows = "".join(
                f"<tr><td>{html_text(_where(d.tensor) + d.fact)}</td>"
                f"<td>{html_text(shorten(d.engine, 40))}"
                f"</td><td>{html_text(shorten(d.torch, 40))}</td></tr>"
                for d in mark.differences
            )
            self.setText(
                f"<span style='color:{DIFFERS}'>✗ differs from PyTorch</span>"
                f"<table cellspacing='4'><tr><th align='left'>fact</th><th align='left'>engine"
                f"</th><th align='left'>PyTorch</th></tr>{rows}</table>"
            )
        if self.section is not None:
            self.section.setVisible(mark is not None)
