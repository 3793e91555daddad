"""The inspector: the selected node's settings, and what PyTorch would report about it.

Top: what the learner can change (label, parameters, step, ``retain_grad()``,
the code of a custom Function), each edit one undoable command pushed through
``state.push``.  Below: the facts at the playhead's position (value,
``requires_grad``, ``is_leaf``, ``grad_fn`` and its ``next_functions``,
``.grad``, ``retains_grad``, ``_version``, saved tensors), PyTorch's error
message with a plain explanation, and the value next to its gradient as
pictures.  The facts follow the timeline: moving it before ``backward`` shows
``.grad`` as None again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from gradstudio.document.events import (
    DocumentEvent,
    EdgeAdded,
    EdgeRemoved,
    MetaChanged,
    NodeRemoved,
    Unsubscribe,
)
from gradstudio.document.values import Node
from gradstudio.evaluation.facts import OutputRef
from ui.inspector.editing import InspectorEditing
from ui.inspector.facts_display import InspectorFacts
from ui.inspector.pages import blank_page
from ui.inspector.params import ParamEditor
from ui.inspector.sections import FlowHolder, LinkList, Section, value_label
from ui.inspector.value_view import ValueGradView, WrapLabel
from ui.state import StudioState

if TYPE_CHECKING:
    from ui.inspector.code_editor import CodeEditor


class Inspector(InspectorEditing, InspectorFacts, QWidget):
    """The selected node: its editable settings and its facts at the timeline position.

    Here the panel, its subscriptions and its rebuild; the edits and the facts are
    mixins (``ui.inspector.editing``, ``ui.inspector.facts_display``)."""

    explainRequested = Signal(str)  # "Explain .grad" on the node shown (its id)

    def __init__(self, state: StudioState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inspector")
        self.state = state
        self.node_id: str | None = None
        self.port_ref: OutputRef | None = None
        self.param_editors: dict[str, ParamEditor] = {}
        self.code_editor: CodeEditor | None = None
        self.fact_labels: dict[str, QLabel] = {}
        self._unsubscribe: Unsubscribe | None = None
        self._rebuild_later = False
        self._unsub_box: list[Unsubscribe | None] = [None]
        self._pending = False
        self.retain_box: QPushButton | None = None
        self.edit_error: QLabel | None = None
        self.facts_section: Section | None = None
        #: Makers of more sections (the instruments'), given the node shown (or None).
        self.extra_sections: list[Callable[[str | None], list[QWidget]]] = []

        self.title = QLabel(self)
        self.title.setObjectName("inspectorTitle")
        f = self.title.font()
        f.setPointSizeF(f.pointSizeF() * 1.3)
        f.setBold(True)
        self.title.setFont(f)
        self.subtitle = WrapLabel(parent=self)
        self.subtitle.setObjectName("inspectorSubtitle")
        self.subtitle.setTextFormat(Qt.TextFormat.RichText)
        self.subtitle.setWordWrap(True)
        self.status = QLabel(self)
        self.status.setObjectName("inspectorStatus")
        self.status.setTextFormat(Qt.TextFormat.RichText)
        head = QVBoxLayout()
        head.setContentsMargins(10, 8, 10, 6)
        head.setSpacing(2)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.status, 0, Qt.AlignmentFlag.AlignRight)
        head.addLayout(top)
        head.addWidget(self.subtitle)

        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(head)
        lay.addWidget(self.scroll, 1)

        state.selectionChanged.connect(self._selection_changed)
        state.gradFnSelected.connect(self._grad_fn_selected)
        state.evaluationChanged.connect(self.refresh_facts)
        state.positionChanged.connect(self.refresh_facts)
        state.documentReplaced.connect(self._document_replaced)
        self._subscribe()
        box = self._unsub_box  # not self: the slot must outlive the widget
        self.destroyed.connect(lambda *_: box[0]() if box[0] is not None else None)
        self.rebuild()

    # -- document subscription ---------------------------------------------
    def _subscribe(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._unsubscribe = self.state.document.subscribe(self._document_event)
        self._unsub_box[0] = self._unsubscribe

    def _document_replaced(self) -> None:
        self._subscribe()
        self.node_id = None
        self.rebuild()

    def _document_event(self, event: DocumentEvent) -> None:
        if self.node_id is None:
            if isinstance(event, MetaChanged):
                self.rebuild()  # the empty page shows the document's title and story
            return
        if isinstance(event, NodeRemoved) and event.node_id == self.node_id:
            self.node_id = None
            self.rebuild()
            return
        if isinstance(event, EdgeAdded | EdgeRemoved) and event.edge.dst == self.node_id:
            self._rebuild_later = True  # a wired port leaves the parameters, or comes back
        # several events arrive per command (a macro): refresh once, after them
        if not self._pending:
            self._pending = True
            QTimer.singleShot(0, self, self._flush)

    def _flush(self) -> None:
        self._pending = False
        rebuild, self._rebuild_later = self._rebuild_later, False
        if self.node_id is not None and self.node_id not in self.state.document:
            self.node_id = None
            self.rebuild()
        elif rebuild:
            self.rebuild()
        else:
            self.refresh_edits()

    def flush(self) -> None:
        """Apply pending document changes now (tests; the event loop does it otherwise)."""
        if self._pending:
            self._flush()

    # -- selection ---------------------------------------------------------
    def _selection_changed(self) -> None:
        sel = self.state.selection
        node = sel[0] if len(sel) == 1 and sel[0] in self.state.document else None
        if node != self.node_id or node is None:
            self.node_id = node
            self.port_ref = None
            self.rebuild()

    def _grad_fn_selected(self, text: str) -> None:
        if self.node_id is None:
            self.rebuild()

    @property
    def node(self) -> Node | None:
        if self.node_id is None or self.node_id not in self.state.document:
            return None
        return self.state.document.node(self.node_id)

    # -- building ----------------------------------------------------------
    def rebuild(self) -> None:
        """Make the body for the selected node (or the empty / grad_fn-only page)."""
        old = self.scroll.takeWidget()
        if old is not None:
            old.deleteLater()
        self.param_editors, self.fact_labels, self.code_editor = {}, {}, None
        self.retain_box: QPushButton | None = None
        self.edit_error: QLabel | None = None
        self.facts_section: Section | None = None
        body = QWidget()
        body.setObjectName("inspectorBody")
        self.body_layout = QVBoxLayout(body)
        self.body_layout.setContentsMargins(8, 0, 8, 8)
        self.body_layout.setSpacing(6)
        node = self.node
        if node is None:
            self._build_empty()
        else:
            # the facts a learner looks for first, above the fold; then the editors
            self._build_facts(node)
            self._build_edits(node)
            self._build_details()
        for make in self.extra_sections:
            for section in make(None if node is None else node.id):
                self.body_layout.addWidget(section)
        self.body_layout.addStretch(1)
        self.holder = FlowHolder(body)
        self.scroll.setWidget(self.holder)
        if node is not None:
            self.refresh_edits()
        self.refresh_facts()

    def _muted(self, text: str) -> str:
        colour = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        return f"<span style='color:{colour}'>{text}</span>"

    def _build_empty(self) -> None:
        page = blank_page(self.state, self, self._muted, self.open_grad_fn)
        self.title.setText(page.title)
        self.subtitle.setText(page.subtitle)
        self.status.setText("")
        for widget in page.widgets:
            self.body_layout.addWidget(widget)

    def _build_details(self) -> None:
        """Below the editors: the whole value and gradient, and the backward trace."""
        self.values_section = Section("Value and gradient", self)
        self.values = ValueGradView()
        self.values_section.add(self.values)
        self.body_layout.addWidget(self.values_section)

        self.trace_section = Section("Backward trace", self)
        self.trace_intro = value_label("traceIntro")
        self.trace_section.add(self.trace_intro)
        self.trace_links = LinkList()
        self.trace_section.add(self.trace_links)
        self.body_layout.addWidget(self.trace_section)

    # -- edits: document -> widgets ------------------------------------------

    # -- edits: widgets -> commands --------------------------------------------

    # -- facts ---------------------------------------------------------------
