"""The inspector's edits: the label, parameters, step, ``retain_grad()`` and code of the
node shown, each change one undoable command pushed through ``state.push``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from gradstudio.catalogue import NodeKind, PortType
from gradstudio.document.autograd_edits import retain_grad, retain_grad_nodes
from gradstudio.document.commands import ReorderStepCommand, SetLabelCommand, SetParamCommand
from gradstudio.document.values import Node
from gradstudio.params import param_kind
from gradstudio.text import html_text
from ui.inspector.fact_text import (
    ERROR,
    WARNING,
)
from ui.inspector.params import editor_for, is_invalid
from ui.inspector.sections import Section, make_form
from ui.inspector.value_view import WrapLabel


class InspectorEditing:
    """``Inspector``'s editable settings (mixed into it)."""

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
