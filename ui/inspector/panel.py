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

import html
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QEvent, QObject, QSignalBlocker, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetrics, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.messages import NONLEAF_GRAD_WARNING
from gradstudio.catalogue import NodeKind, PortType
from gradstudio.document.autograd_edits import retain_grad, retain_grad_nodes
from gradstudio.document.commands import (
    ReorderStepCommand,
    SetLabelCommand,
    SetParamCommand,
)
from gradstudio.document.events import (
    DocumentEvent,
    EdgeAdded,
    EdgeRemoved,
    MetaChanged,
    NodeRemoved,
    Unsubscribe,
)
from gradstudio.document.groups import Group, whole_groups
from gradstudio.document.model import Document, Node
from gradstudio.evaluation.facts import GradFnFacts, OutputRef, StepError, TensorFacts, waiting_text
from gradstudio.params import param_kind
from gradstudio.text import html_text, shape_text
from ui.backward.model import parse_key
from ui.inspector.params import ParamEditor, editor_for, is_invalid
from ui.inspector.value_view import ValueGradView, WrapLabel, tensor_text
from ui.state import StudioState

if TYPE_CHECKING:
    from ui.inspector.code_editor import CodeEditor

ERROR = "#e5484d"
WARNING = "#d9822b"
MANY_LISTED = 12  # nodes named on the page of a multi-selection

#: PyTorch's warning when ``.grad`` of a non-leaf is read: the engine's one text, up to
#: its advice (the rest points at PyTorch's sources).
NONLEAF_WARNING = "UserWarning: " + NONLEAF_GRAD_WARNING.split(" If you access")[0]


def selected_group(doc: Document, selected: list[str]) -> Group | None:
    """The outermost group whose nodes are exactly ``selected`` (a selected frame), or None."""
    chosen = set(selected)
    exact = [gid for gid in whole_groups(doc.groups, chosen) if doc.group_members(gid) == chosen]
    outer = [gid for gid in exact if doc.group(gid).parent not in exact]
    return doc.group(outer[0]) if outer else None


class Section(QWidget):
    """A titled, collapsible group; collapsed titles are remembered across nodes."""

    collapsed_titles: set[str] = set()

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.header = QToolButton(self)
        self.header.setObjectName("inspectorSection")
        self.header.setText(title)
        self.header.setCheckable(True)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setAutoRaise(True)
        self.header.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.header.setStyleSheet(
            "QToolButton { text-align: left; border: none; padding: 3px 2px; }"
        )
        f = self.header.font()
        f.setBold(True)
        self.header.setFont(f)
        self.body = QWidget(self)
        self.layout_ = QVBoxLayout(self.body)
        self.layout_.setContentsMargins(6, 2, 2, 6)
        self.layout_.setSpacing(4)
        line = QFrame(self)
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Plain)
        line.setEnabled(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(line)
        lay.addWidget(self.header)
        lay.addWidget(self.body)
        self.header.toggled.connect(self._toggle)
        self.header.setChecked(title not in self.collapsed_titles)
        self._toggle(self.header.isChecked())

    def _toggle(self, open_: bool) -> None:
        self.header.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        self.body.setVisible(open_)
        if open_:
            self.collapsed_titles.discard(self.title)
        else:
            self.collapsed_titles.add(self.title)

    def add(self, widget: QWidget) -> QWidget:
        self.layout_.addWidget(widget)
        return widget


class FlowHolder(QWidget):
    """Holds the inspector's body at the height its wrapped texts need at this width.

    A QScrollArea sizes a height-for-width layout from a stale width and spreads
    the surplus between sections as gaps; this holder has no layout of its own
    and lays its one child out by hand, giving the scroll area a plain minimum.
    """

    def __init__(self, inner: QWidget) -> None:
        super().__init__()
        self.inner = inner
        inner.setParent(self)
        inner.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt API
        if watched is self.inner and event.type() == QEvent.Type.LayoutRequest:
            QTimer.singleShot(0, self, self.fit)  # dropped if this widget dies first
        return False

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self.fit()

    def fit(self) -> None:
        if not shiboken6.isValid(self.inner):
            return
        layout = self.inner.layout()
        if layout is None:
            return
        w = max(self.width(), 1)
        h = layout.totalHeightForWidth(w) if layout.hasHeightForWidth() else -1
        h = (
            max(h, layout.totalMinimumSize().height())
            if h >= 0
            else layout.totalSizeHint().height()
        )
        self.inner.setGeometry(0, 0, w, h)
        if self.minimumHeight() != h:
            self.setMinimumHeight(h)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt API
        layout = self.inner.layout()
        width = layout.totalMinimumSize().width() if layout is not None else 0
        return QSize(width, self.minimumHeight())


class FormGrid(QGridLayout):
    """Rows of a title and a field, like ``QFormLayout``, on a grid.

    ``QFormLayout`` lays a word-wrapped field out at a wider width than the one it gives
    it, so a fact whose text wraps to two lines got the height of one and was cut in
    half; a grid asks each field's height at the width it really gets.
    """

    def addRow(self, title: str | QWidget, field: QWidget) -> None:  # noqa: N802 - Qt's name
        label = QLabel(title) if isinstance(title, str) else title
        row = self.rowCount()
        self.addWidget(label, row, 0, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.addWidget(field, row, 1)


def _form() -> tuple[QWidget, FormGrid]:
    w = QWidget()
    form = FormGrid(w)
    form.setContentsMargins(0, 0, 0, 0)
    form.setHorizontalSpacing(10)
    form.setVerticalSpacing(4)
    form.setColumnStretch(1, 1)
    return w, form


def _value_label(object_name: str) -> QLabel:
    label = WrapLabel()
    label.setObjectName(object_name)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setWordWrap(True)
    return label


def _break(text: str, metrics: QFontMetrics, room: float) -> list[str]:
    """``text`` in lines no wider than ``room``: at spaces, or inside a word too long."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if metrics.horizontalAdvance(candidate) <= room:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = word
        while metrics.horizontalAdvance(line) > room and len(line) > 1:
            cut = len(line) - 1
            while cut > 1 and metrics.horizontalAdvance(line[:cut]) > room:
                cut -= 1
            lines.append(line[:cut])
            line = line[cut:]
    if line:
        lines.append(line)
    return lines


class LinkList(QWidget):
    """A column of link-like buttons (``next_functions``, backward executions).

    A link wider than the panel breaks before its ``→ node`` part rather than widen
    the inspector past its dock (``(AccumulateGrad, 0) → torch.rand(10, …)`` labels).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(0, 0, 0, 0)
        self._lay.setSpacing(0)
        self.buttons: list[QToolButton] = []
        self._texts: list[str] = []

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        for button, text in zip(self.buttons, self._texts, strict=True):
            metrics = button.fontMetrics()
            shown = max(metrics.horizontalAdvance(line) for line in button.text().split("\n"))
            room = self.width() - (button.sizeHint().width() - shown)  # less the padding
            wanted = text
            if metrics.horizontalAdvance(text) > room > 0:
                head, arrow, tail = text.partition(" → ")
                parts = [head, "→ " + tail] if arrow else [text]
                wanted = "\n".join(ln for part in parts for ln in _break(part, metrics, room))
            if button.text() != wanted:
                button.setText(wanted)

    def set_links(self, links: list[tuple[str, str, Callable[[], None] | None, bool]]) -> None:
        """``(text, tooltip, on_click or None, bold)`` per row."""
        for b in self.buttons:
            b.deleteLater()
        self.buttons = []
        self._texts = [link[0] for link in links]
        for text, tip, on_click, bold in links:
            b = QToolButton(self)
            b.setObjectName("inspectorLink")
            b.setText(text)
            b.setToolTip(tip)
            b.setAutoRaise(True)
            b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            b.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            f = b.font()
            f.setBold(bold)
            b.setFont(f)
            if on_click is None:
                b.setEnabled(False)
            else:
                b.setCursor(Qt.CursorShape.PointingHandCursor)
                b.clicked.connect(on_click)
                b.setStyleSheet("QToolButton { color: palette(link); text-align: left; }")
            b.setMinimumWidth(1)  # may break in two lines (``_fit``) instead of widening
            self._lay.addWidget(b, 0, Qt.AlignmentFlag.AlignLeft)
            self.buttons.append(b)
        self._fit()


class Inspector(QWidget):
    """The selected node: its editable settings and its facts at the timeline position."""

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
        selected = [n for n in self.state.selection if n in self.state.document]
        if len(selected) > 1:
            self._build_many(selected)
            return
        key = parse_key(self.state.grad_fn_key)
        playhead = self.state.playhead
        ev, snap, index = playhead.evaluation, playhead.snapshot(), playhead.index
        if (
            key is not None
            and ev is not None
            and index is not None
            and snap is not None
            and key in snap.grad_fns()
        ):
            fn = snap.grad_fn(key)
            owner = index.node_for(key)
            self.title.setText(fn.name)
            self.subtitle.setText(
                self._muted(
                    f"the grad_fn of {ev.plan.labels.get(owner, owner)}"
                    if owner is not None
                    else "a grad_fn inside an operation: no node of the graph owns it"
                )
            )
            self.status.setText("")
            section = Section("grad_fn", self)
            w, form = _form()
            links = LinkList()
            links.set_links(self._next_links(fn))
            form.addRow("next_functions", links)
            saved = _value_label("savedTensors")
            saved.setText(self._saved_html(fn))
            form.addRow("saved", saved)
            section.add(w)
            self.body_layout.addWidget(section)
            return
        self.title.setText("Inspector")
        self.subtitle.setText(self._muted("Select a node on the canvas to see and edit it."))
        self.status.setText("")
        meta = self.state.document.meta
        story = meta.get("description", "")
        if story:  # what the example (or the user's document) is about
            about = WrapLabel(
                f"<b>{html.escape(meta.get('title', ''))}</b><br>{html.escape(story)}"
                if meta.get("title")
                else html.escape(story)
            )
            about.setObjectName("documentDescription")
            about.setWordWrap(True)
            self.body_layout.addWidget(about)
        hint = WrapLabel(
            self._muted(
                "Each node shows what PyTorch would report about its tensor: value, "
                "requires_grad, is_leaf, grad_fn, .grad — at the step the timeline shows."
            )
        )
        hint.setWordWrap(True)
        self.body_layout.addWidget(hint)

    def _build_many(self, selected: list[str]) -> None:
        """Several nodes selected: say which (each selects itself alone when clicked)."""
        doc = self.state.document
        self.title.setText(f"{len(selected)} nodes selected")
        self.subtitle.setText(self._muted("Select one node to see and edit it."))
        self.status.setText("")
        group = selected_group(doc, selected)
        if group is not None:  # a group's frame or card is selected: say what it is
            self.title.setText(group.title)
            self.subtitle.setText(self._muted(f"{group.subtitle} · {len(selected)} nodes"))
            about = Section("Group", self)
            w, form = _form()
            for name, value in [("kind", group.kind), *sorted(group.meta.items())]:
                label = _value_label(f"group_{name}")
                label.setText(html.escape(value))
                form.addRow(html.escape(name), label)
            about.add(w)
            self.body_layout.addWidget(about)
        section = Section("Selection", self)
        links = LinkList()
        shown = selected[:MANY_LISTED]
        links.set_links(
            [
                (
                    doc.node(n).label,
                    f"{doc.node(n).type.title} — click to select only this node",
                    lambda _checked=False, n=n: self.state.select((n,)),
                    False,
                )
                for n in shown
            ]
        )
        section.add(links)
        if len(selected) > len(shown):
            more = WrapLabel(self._muted(f"… and {len(selected) - len(shown)} more"))
            section.add(more)
        self.body_layout.addWidget(section)

    def _build_edits(self, node: Node) -> None:
        ntype = node.type
        section = Section("Node", self)
        w, form = _form()
        self.label_edit = QLineEdit()
        self.label_edit.setObjectName("labelEdit")
        self.label_edit.editingFinished.connect(self._label_edited)
        form.addRow("label", self.label_edit)
        if any(o.type is PortType.TENSOR for o in ntype.outputs):
            self.explain_button = QPushButton("Explain .grad")
            self.explain_button.setObjectName("explainButton")
            self.explain_button.setToolTip("How this tensor's .grad came to be (E)")
            self.explain_button.clicked.connect(lambda: self.explainRequested.emit(node.id))
            form.addRow("gradient", self.explain_button)
        step_row = QWidget()
        step_lay = QHBoxLayout(step_row)
        step_lay.setContentsMargins(0, 0, 0, 0)
        self.step_spin = QSpinBox()
        self.step_spin.setObjectName("stepSpin")
        self.step_spin.setKeyboardTracking(False)
        self.step_spin.valueChanged.connect(self._step_edited)
        self.step_hint = QLabel()
        step_lay.addWidget(self.step_spin)
        step_lay.addWidget(self.step_hint, 1)
        form.addRow("step", step_row)
        section.add(w)
        self.body_layout.addWidget(section)

        # a port that can take a number is also a parameter; once wired, the wire is its value
        wired = {i.name for i in ntype.inputs if self.state.document.inputs_of(node.id, i.name)}
        params = [p for p in ntype.params if p.kind != "code" and p.name not in wired]
        show_retain = ntype.kind not in (NodeKind.ACTION,) and any(
            o.type is PortType.TENSOR for o in ntype.outputs
        )
        if params or show_retain:
            section = Section("Parameters", self)
            w, form = _form()
            for spec in params:
                editor = editor_for(spec)
                if editor is None:
                    continue
                editor.edited.connect(lambda value, name=spec.name: self._param_edited(name, value))
                label = QLabel(spec.name)
                label.setToolTip(spec.doc)
                form.addRow(label, editor)
                self.param_editors[spec.name] = editor
            if show_retain:
                self.retain_box = QPushButton("retain_grad()")
                self.retain_box.setObjectName("retainGrad")
                self.retain_box.setCheckable(True)
                self.retain_box.setToolTip(
                    "Call .retain_grad() on this tensor right after it is computed, so that "
                    "backward keeps its .grad (PyTorch frees the gradients of non-leaf tensors)."
                )
                self.retain_box.toggled.connect(self._retain_toggled)
                form.addRow("retain_grad", self.retain_box)
            section.add(w)
            self.edit_error = WrapLabel()
            self.edit_error.setObjectName("editError")
            self.edit_error.setWordWrap(True)
            self.edit_error.setStyleSheet(f"color: {ERROR};")
            self.edit_error.setVisible(False)
            section.add(self.edit_error)
            self.body_layout.addWidget(section)
        code_specs = [p for p in ntype.params if param_kind(p.kind).editor == "code"]
        for spec in code_specs:
            # imported here: only a custom Function node needs the editor, and not
            # loading it with the window shortens startup
            from ui.inspector.code_editor import CodeEditor

            title = "hook function" if ntype.id == "gradstudio.hook" else "forward / backward"
            section = Section(f"{title} (Python)", self)
            self.code_editor = CodeEditor()
            self.code_editor.setMinimumHeight(220)
            self.code_editor.committed.connect(
                lambda text, name=spec.name: self._param_edited(name, text)
            )
            section.add(self.code_editor)
            row = QHBoxLayout()
            hint = WrapLabel(self._muted("Ctrl+Enter or leaving the editor applies the code."))
            apply_button = QPushButton("Apply")
            apply_button.setObjectName("applyCode")
            apply_button.clicked.connect(self.code_editor.commit)
            row.addWidget(hint, 1)
            row.addWidget(apply_button)
            holder = QWidget()
            holder.setLayout(row)
            section.add(holder)
            self.trust_label = WrapLabel()
            self.trust_label.setWordWrap(True)
            self.trust_label.setStyleSheet(f"color: {WARNING};")
            section.add(self.trust_label)
            self.body_layout.addWidget(section)

    def _build_facts(self, node: Node) -> None:
        self.facts_section = Section("Autograd facts", self)
        self.output_combo = QComboBox()
        self.output_combo.setObjectName("outputChoice")
        self.output_combo.activated.connect(self._output_chosen)
        self.facts_section.add(self.output_combo)
        self.facts_note = _value_label("factsNote")
        self.facts_section.add(self.facts_note)
        self.facts_form_widget, form = _form()
        for name, title in (
            ("tensor", "tensor"),
            ("requires_grad", "requires_grad"),
            ("is_leaf", "is_leaf"),
            ("grad_fn", "grad_fn"),
        ):
            label = _value_label(f"fact_{name}")
            self.fact_labels[name] = label
            form.addRow(title, label)
        self.next_links = LinkList()
        self.next_links.setObjectName("nextFunctions")
        self.next_row_label = QLabel("next_functions")
        form.addRow(self.next_row_label, self.next_links)
        for name, title in (
            ("grad", ".grad"),
            ("retains_grad", "retains_grad"),
            ("version", "_version"),
            ("saved", "saved tensors"),
        ):
            label = _value_label(f"fact_{name}")
            self.fact_labels[name] = label
            form.addRow(title, label)
        self.facts_section.add(self.facts_form_widget)
        self.body_layout.addWidget(self.facts_section)

        self.problem_section = Section("Error", self)
        self.problem_label = _value_label("errorText")
        self.problem_section.add(self.problem_label)
        self.body_layout.addWidget(self.problem_section)

        self.warning_section = Section("Warnings", self)
        self.warning_label = _value_label("warningText")
        self.warning_section.add(self.warning_label)
        self.body_layout.addWidget(self.warning_section)

    def _build_details(self) -> None:
        """Below the editors: the whole value and gradient, and the backward trace."""
        self.values_section = Section("Value and gradient", self)
        self.values = ValueGradView()
        self.values_section.add(self.values)
        self.body_layout.addWidget(self.values_section)

        self.trace_section = Section("Backward trace", self)
        self.trace_intro = _value_label("traceIntro")
        self.trace_section.add(self.trace_intro)
        self.trace_links = LinkList()
        self.trace_section.add(self.trace_links)
        self.body_layout.addWidget(self.trace_section)

    # -- edits: document -> widgets ------------------------------------------
    def refresh_edits(self) -> None:
        """Show the node's current label, step and parameters (after any edit or undo)."""
        node = self.node
        if node is None:
            return
        doc = self.state.document
        self.title.setText(node.label)
        ntype = node.type
        self.subtitle.setText(
            f"<b>{html_text(ntype.title)}</b> &nbsp;{self._muted(html_text(ntype.id))}"
            + (f"<br>{self._muted(html_text(ntype.doc))}" if ntype.doc else "")
        )
        if not self.label_edit.hasFocus():
            self.label_edit.setText(node.label)
        allowed = doc.allowed_steps(node.id)
        with QSignalBlocker(self.step_spin):
            self.step_spin.setRange(allowed.start + 1, allowed.stop)
            self.step_spin.setValue(doc.step_of(node.id) + 1)
            self.step_spin.setEnabled(len(allowed) > 1)
        self.step_hint.setText(
            self._muted(
                f"of {len(doc.order)} · can run at steps {allowed.start + 1}–{allowed.stop}"
            )
        )
        for name, editor in self.param_editors.items():
            editor.set_value(node.params[name])
        if self.retain_box is not None:
            with QSignalBlocker(self.retain_box):
                self.retain_box.setChecked(bool(self._retain_nodes()))
        if self.code_editor is not None:
            spec = next(p for p in ntype.params if param_kind(p.kind).editor == "code")
            self.code_editor.set_code(node.params[spec.name])
            self.trust_label.setVisible(not doc.trusted)
            self.trust_label.setText(
                "This document's code is not trusted yet: the Function will not run until "
                "you trust the document."
            )

    def _show_edit_error(self, message: str | None) -> None:
        if self.edit_error is not None:
            self.edit_error.setVisible(bool(message))
            self.edit_error.setText(message or "")

    # -- edits: widgets -> commands --------------------------------------------
    def _push(self, make: Callable[[], Any]) -> bool:
        """Build a command and push it; a refusal is shown here, not raised."""
        if self.state.push(make, refused=self._show_edit_error) is None:
            self.refresh_edits()
            return False
        self._show_edit_error(None)
        self.flush()
        return True

    def _label_edited(self) -> None:
        node = self.node
        text = self.label_edit.text().strip()
        if node is None or text == node.label:
            return
        self._push(lambda: SetLabelCommand(self.state.document, node.id, text))

    def _step_edited(self, value: int) -> None:
        node = self.node
        if node is None or value - 1 == self.state.document.step_of(node.id):
            return
        self._push(lambda: ReorderStepCommand(self.state.document, node.id, value - 1))

    def _param_edited(self, name: str, value: Any) -> None:
        node = self.node
        if node is None:
            return
        problem = is_invalid(value)
        if problem is not None:
            self._show_edit_error(f"{name}: {problem}")
            return
        if node.params.get(name) == value:
            self._show_edit_error(None)
            return
        self._push(lambda: SetParamCommand(self.state.document, node.id, name, value))

    def set_param(self, name: str, value: Any) -> bool:
        """Edit a parameter as its editor would (one undoable command)."""
        self._param_edited(name, value)
        self.flush()
        return self.node is not None and self.node.params.get(name) == value

    def _retain_nodes(self) -> list[str]:
        node_id = self.node_id
        return [] if node_id is None else retain_grad_nodes(self.state.document, node_id)

    def _retain_toggled(self, on: bool) -> None:
        """Add a ``retain_grad()`` step right after this node (or remove it)."""
        node = self.node
        if node is None or on == bool(self._retain_nodes()):
            return
        doc = self.state.document
        self._push(lambda: retain_grad(doc, node.id, on))
        self.flush()
        self.refresh_edits()

    # -- facts ---------------------------------------------------------------
    def _refs(self) -> list[OutputRef]:
        snap = self.state.playhead.snapshot()
        node = self.node
        ev = self.state.evaluation
        if node is None or snap is None or ev is None:
            return []
        refs = []
        for port in node.type.outputs:
            if port.type is PortType.TENSORS:
                i = 0
                final = ev.final
                while final.has(OutputRef(node.id, port.name, i)):
                    refs.append(OutputRef(node.id, port.name, i))
                    i += 1
            else:
                refs.append(OutputRef(node.id, port.name))
        return refs

    def _output_chosen(self, index: int) -> None:
        refs = self._refs()
        if 0 <= index < len(refs):
            self.port_ref = refs[index]
            self.refresh_facts()

    def facts(self) -> TensorFacts | None:
        """The facts shown: the chosen output at the timeline position (replay-aware)."""
        ref = self.port_ref
        if ref is None or self.node is None:
            return None
        return self.state.playhead.facts(ref.node_id, ref.port, ref.index)

    def refresh_facts(self) -> None:
        """Show the facts at the timeline position (called on evaluation/position changes)."""
        node = self.node
        if node is None or self.facts_section is None:
            return
        ev = self.state.evaluation
        if ev is None or node.id not in ev.plan.step_of:
            self._show_status("not evaluated", None)
            self._hide_facts(
                "Not evaluated yet: run the graph to see its facts."
                if ev is None
                else "Added after the last run: run the graph again to see its facts."
            )
            return
        node_step = ev.plan.step_of[node.id]
        result = ev.steps[node_step]
        position = self.state.playhead.effective_step
        error = ev.error_for(node.id)
        self._show_problem(error, position >= node_step)
        self._show_warnings(result.warnings if position >= node_step else [])
        self._show_trace(node.id)
        waiting = waiting_text(result.missing, result.waits_for)
        if result.status == "not run":
            self._show_status("not run", WARNING)
        elif result.status == "waiting":
            self._show_status("waiting for input", None)
            self._hide_facts(waiting[:1].upper() + waiting[1:] + " to run this node.")
            return
        elif result.status == "error":
            self._show_status(f"✖ {error.exc_type if error else 'error'}", ERROR)
        else:
            self._show_status("ok", None)
        refs = self._refs()
        if not refs:
            self._hide_facts(None)
            return
        with QSignalBlocker(self.output_combo):
            self.output_combo.clear()
            for ref in refs:
                self.output_combo.addItem(ev.plan.display_label(ref) if ev else ref.port)
            if self.port_ref not in refs:
                self.port_ref = refs[0]
            self.output_combo.setCurrentIndex(refs.index(self.port_ref))
        self.output_combo.setVisible(len(refs) > 1)
        if position < node_step:
            self._hide_facts(
                f"At step {position + 1} this node has not run yet (it runs at step "
                f"{node_step + 1}). Move the timeline forward to see its tensor."
            )
            return
        facts = self.facts()
        if facts is None:
            why = "its step failed" if result.status == "error" else "an earlier step failed"
            if result.status == "ok":
                why = "it returned None"
            self._hide_facts(f"No tensor: {why}.")
            return
        self._show_facts(facts, ev.plan.display_label(self.port_ref))

    def _show_status(self, text: str, colour: str | None) -> None:
        if colour is None:
            self.status.setText(self._muted(text))
        else:
            self.status.setText(f"<b style='color:{colour}'>{html_text(text)}</b>")

    def _hide_facts(self, note: str | None) -> None:
        if self.facts_section is None:
            return
        self.facts_section.setVisible(note is not None)
        self.facts_form_widget.setVisible(False)
        self.output_combo.setVisible(False)
        self.facts_note.setVisible(note is not None)
        self.facts_note.setText(self._muted(html_text(note or "")))
        self.values_section.setVisible(False)
        for label in self.fact_labels.values():
            label.setText("")

    def _show_facts(self, facts: TensorFacts, label: str) -> None:
        self.facts_section.setVisible(True)
        self.facts_form_widget.setVisible(True)
        self.facts_note.setVisible(False)
        self.values_section.setVisible(True)
        fl = self.fact_labels
        fl["tensor"].setText(
            f"<code>{shape_text(facts.shape)}</code> · {facts.dtype} · {facts.device}"
            + self._muted(f" · tensor #{facts.tensor_id}")
        )
        fl["requires_grad"].setText(_bool(facts.requires_grad))
        leaf_note = (
            "created by you, not by an operation"
            if facts.is_leaf and facts.requires_grad
            else (
                "does not require grad, so a leaf by convention"
                if facts.is_leaf
                else "the result of an operation"
            )
        )
        fl["is_leaf"].setText(f"{_bool(facts.is_leaf)} {self._muted('— ' + leaf_note)}")
        fn = facts.grad_fn
        if fn is None:
            fl["grad_fn"].setText("<code>None</code>")
            self.next_links.set_links([])
            self.next_links.setVisible(False)
            self.next_row_label.setVisible(False)
        else:
            fl["grad_fn"].setText(
                f"<code>&lt;{html_text(fn.name)}&gt;</code> "
                + self._muted("— the backward function that made this tensor")
            )
            self.next_links.set_links(self._next_links(fn))
            self.next_links.setVisible(True)
            self.next_row_label.setVisible(True)
        fl["grad"].setText(self._grad_html(facts, label))
        fl["retains_grad"].setText(
            _bool(facts.retains_grad)
            + (
                self._muted(" — retain_grad() was called")
                if facts.retains_grad and not facts.is_leaf
                else ""
            )
        )
        fl["version"].setText(
            f"<code>{facts.version}</code>"
            + (self._muted(" — changed in place") if facts.version else "")
        )
        fl["saved"].setText(self._saved_html(fn) if fn is not None else self._muted("—"))
        grad_fn_name = fn.name if fn is not None else None
        self.values.value.set_tensor(
            facts.array,
            facts.dtype,
            facts.device,
            text=tensor_text(
                facts.array, facts.dtype, facts.device, grad_fn_name, facts.requires_grad
            ),
        )
        grad = facts.grad
        placeholder = ".grad is None"
        if grad is None and facts.grad_access_warns:
            placeholder = ".grad is None (not kept for a non-leaf)"
        elif grad is None and not facts.requires_grad:
            placeholder = ".grad is None (does not require grad)"
        elif grad is None:
            placeholder = ".grad is None (no backward has reached it yet)"
        self.values.grad.set_tensor(
            None if grad is None else grad.array,
            grad.dtype if grad is not None else facts.dtype,
            grad.device if grad is not None else facts.device,
            placeholder=placeholder,
        )

    def _grad_html(self, facts: TensorFacts, label: str) -> str:
        grad = facts.grad
        if facts.grad_access_warns:
            return (
                f"<span style='color:{WARNING}'>⚠ reading "
                f"<code>{html_text(label)}.grad</code> warns</span> and gives <code>None</code>"
                + self._muted(
                    f"<br>{html_text(label)} is not a leaf, so backward does not keep its gradient "
                    "unless you call retain_grad(). PyTorch says:<br><i>"
                    + html_text(NONLEAF_WARNING)
                    + "</i>"
                )
            )
        if grad is None:
            return "<code>None</code>"
        text = tensor_text(grad.array, grad.dtype, grad.device)
        note = "kept by retain_grad()" if not facts.is_leaf else "accumulated by backward"
        return f"{_code(text, grad.shape)}{self._muted(note)}"

    def _saved_html(self, fn: GradFnFacts) -> str:
        rows = []
        for s in fn.saved:
            name = f"<code>_saved_{html_text(s.name)}</code>"
            if s.kind == "tensor":
                v = s.value
                text = tensor_text(v.array, v.dtype, v.device)
                rows.append(f"{name} = {_code(text, v.shape).replace(' — printed below', '')}")
            elif s.kind == "freed":
                rows.append(f"{name}: {self._muted('freed by backward (retain_graph=False)')}")
            elif s.kind == "modified":
                rows.append(f"{name}: <span style='color:{ERROR}'>{html_text(str(s.value))}</span>")
            elif s.kind == "none":
                rows.append(f"{name} = <code>None</code>")
            else:
                rows.append(f"{name} = <code>{html_text(str(s.value))}</code>")
        return "<br>".join(rows) if rows else self._muted("none")

    def _next_links(
        self, fn: GradFnFacts
    ) -> list[tuple[str, str, Callable[[], None] | None, bool]]:
        index = self.state.playhead.index
        links: list[tuple[str, str, Callable[[], None] | None, bool]] = []
        for i, nxt in enumerate(fn.next_functions):
            if nxt is None:
                links.append((f"[{i}] None", "this input does not require grad", None, False))
                continue
            owner = index.node_for(nxt.key) if index is not None else None
            where = f" → {index.label(owner)}" if owner is not None and index is not None else ""
            tip = "select this grad_fn" + (
                f" and its node {index.label(owner)}" if where and index else ""
            )
            links.append(
                (
                    f"[{i}] ({nxt.name}, {nxt.index}){where}",
                    tip,
                    lambda _=False, k=nxt.key: self.open_grad_fn(k),
                    False,
                )
            )
        return links

    def open_grad_fn(self, key: int) -> None:
        """Select a grad_fn and the node that owns it (what a next_functions click does)."""
        index = self.state.playhead.index
        owner = index.node_for(key) if index is not None else None
        self.state.select_grad_fn(str(key))
        self.state.select((owner,) if owner is not None else ())

    def _show_problem(self, error: StepError | None, happened: bool) -> None:
        section = self.problem_section
        section.setVisible(error is not None)
        if error is None:
            if self.code_editor is not None:
                self.code_editor.set_error_line(None)
            return
        parts = [
            f"<b style='color:{ERROR}'>{html_text(error.title)}</b>",
            f"<code style='color:{ERROR}'>{html_text(error.exc_type)}: "
            f"{html_text(error.message)}</code>",
            html_text(error.explanation),
            f"<b>How to fix:</b> {html_text(error.fix)}",
        ]
        if error.traceback:
            parts.append(f"<pre>{html_text(error.traceback)}</pre>")
        if not happened:
            parts.insert(0, self._muted(f"(at step {error.step + 1}, later on the timeline)"))
        self.problem_label.setText(
            "".join(f"<p style='margin:0 0 6px 0'>{p}</p>" for p in parts if p)
        )
        if self.code_editor is not None:
            lines = re.findall(r"line (\d+)", error.traceback or "")
            self.code_editor.set_error_line(int(lines[-1]) if lines else None)

    def _show_warnings(self, warnings: list[Any]) -> None:
        self.warning_section.setVisible(bool(warnings))
        rows = []
        for w in warnings:
            row = f"<b style='color:{WARNING}'>{html_text(w.category)}</b>: {html_text(w.message)}"
            if w.explanation:
                row += "<br>" + self._muted(html_text(w.explanation))
            rows.append(row)
        self.warning_label.setText("<br><br>".join(rows))

    def _show_trace(self, node_id: str) -> None:
        ev = self.state.evaluation
        trace = ev.steps[ev.plan.step_of[node_id]].trace if ev is not None else None
        self.trace_section.setVisible(trace is not None)
        if trace is None or ev is None:
            return
        playhead = self.state.playhead
        at = playhead.trace_at()
        live = at is not None and at.trace is trace and at.live
        done = len(at.executed) if live and at is not None and playhead.replay is not None else None
        index = playhead.index
        assert index is not None
        links: list[tuple[str, str, Callable[[], None] | None, bool]] = []
        for i, ex in enumerate(trace.executions):
            owner = index.node_for(ex.key)
            where = f" → {index.label(owner)}" if owner else ""
            grad = ex.incoming[0] if ex.incoming else None
            g = (
                f"  ∂ = {tensor_text(grad.array, grad.dtype, grad.device)}"
                if grad is not None
                else ""
            )
            current = done is not None and i == done - 1
            pending = done is not None and i >= done
            text = f"{i + 1}. {ex.name}{where}{'  (not yet)' if pending else ''}"
            links.append(
                (
                    text,
                    f"gradient in{g}" if g else ex.name,
                    lambda _=False, k=ex.key: self.open_grad_fn(k),
                    current,
                )
            )
        self.trace_intro.setText(
            self._muted(
                f"backward ran {len(trace.executions)} grad_fn nodes, in this order "
                "(the timeline replays them one by one):"
            )
        )
        self.trace_links.set_links(links)


def _code(text: str, shape: tuple[int, ...] = ()) -> str:
    """Printed tensor text as code; several lines become a pointer to the panel below."""
    if "\n" not in text:
        return f"<code>{html_text(text)}</code> "
    return f"<code>tensor(...)</code> of shape {shape_text(shape)} — printed below "


def _bool(value: bool) -> str:
    return f"<code>{value}</code>"
