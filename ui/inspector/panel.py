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

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gradstudio.catalogue import NodeKind, PortType
from gradstudio.document.autograd_edits import retain_grad, retain_grad_nodes
from gradstudio.document.commands import ReorderStepCommand, SetLabelCommand, SetParamCommand
from gradstudio.document.events import (
    DocumentEvent,
    EdgeAdded,
    EdgeRemoved,
    MetaChanged,
    NodeRemoved,
    Unsubscribe,
)
from gradstudio.document.model import Node
from gradstudio.evaluation.facts import OutputRef, StepError, TensorFacts, waiting_text
from gradstudio.params import param_kind
from gradstudio.text import html_text
from ui.inspector.fact_text import (
    ERROR,
    WARNING,
    fact_rows,
    grad_placeholder,
    problem_html,
    warnings_html,
)
from ui.inspector.pages import blank_page, next_function_links, trace_links
from ui.inspector.params import ParamEditor, editor_for, is_invalid
from ui.inspector.sections import FlowHolder, LinkList, Section, make_form, value_label
from ui.inspector.value_view import ValueGradView, WrapLabel, tensor_text
from ui.state import StudioState

if TYPE_CHECKING:
    from ui.inspector.code_editor import CodeEditor


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
        page = blank_page(self.state, self, self._muted, self.open_grad_fn)
        self.title.setText(page.title)
        self.subtitle.setText(page.subtitle)
        self.status.setText("")
        for widget in page.widgets:
            self.body_layout.addWidget(widget)

    def _build_edits(self, node: Node) -> None:
        ntype = node.type
        section = Section("Node", self)
        w, form = make_form()
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
            w, form = make_form()
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
        self.facts_note = value_label("factsNote")
        self.facts_section.add(self.facts_note)
        self.facts_form_widget, form = make_form()
        for name, title in (
            ("tensor", "tensor"),
            ("requires_grad", "requires_grad"),
            ("is_leaf", "is_leaf"),
            ("grad_fn", "grad_fn"),
        ):
            label = value_label(f"fact_{name}")
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
            label = value_label(f"fact_{name}")
            self.fact_labels[name] = label
            form.addRow(title, label)
        self.facts_section.add(self.facts_form_widget)
        self.body_layout.addWidget(self.facts_section)

        self.problem_section = Section("Error", self)
        self.problem_label = value_label("errorText")
        self.problem_section.add(self.problem_label)
        self.body_layout.addWidget(self.problem_section)

        self.warning_section = Section("Warnings", self)
        self.warning_label = value_label("warningText")
        self.warning_section.add(self.warning_label)
        self.body_layout.addWidget(self.warning_section)

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
        for name, text in fact_rows(facts, label, self._muted).items():
            self.fact_labels[name].setText(text)
        fn = facts.grad_fn
        if fn is None:
            self.next_links.set_links([])
            self.next_links.setVisible(False)
            self.next_row_label.setVisible(False)
        else:
            self.next_links.set_links(
                next_function_links(fn, self.state.playhead.index, self.open_grad_fn)
            )
            self.next_links.setVisible(True)
            self.next_row_label.setVisible(True)
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
        self.values.grad.set_tensor(
            None if grad is None else grad.array,
            grad.dtype if grad is not None else facts.dtype,
            grad.device if grad is not None else facts.device,
            placeholder=grad_placeholder(facts),
        )

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
        self.problem_label.setText(problem_html(error, happened, self._muted))
        if self.code_editor is not None:
            lines = re.findall(r"line (\d+)", error.traceback or "")
            self.code_editor.set_error_line(int(lines[-1]) if lines else None)

    def _show_warnings(self, warnings: list[Any]) -> None:
        self.warning_section.setVisible(bool(warnings))
        self.warning_label.setText(warnings_html(warnings, self._muted))

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
        self.trace_intro.setText(
            self._muted(
                f"backward ran {len(trace.executions)} grad_fn nodes, in this order "
                "(the timeline replays them one by one):"
            )
        )
        self.trace_links.set_links(trace_links(trace, index, done, self.open_grad_fn))
