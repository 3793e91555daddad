"""The inspector's facts: what PyTorch would report about the node shown at the
playhead's position (value, grad_fn, .grad, saved tensors), its error or warnings, and
the backward trace."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
)

from gradstudio.catalogue import PortType
from gradstudio.document.values import Node
from gradstudio.evaluation.facts import OutputRef, StepError, TensorFacts, waiting_text
from gradstudio.text import html_text
from ui.inspector.fact_text import (
    ERROR,
    WARNING,
    fact_rows,
    grad_placeholder,
    problem_html,
    warnings_html,
)
from ui.inspector.pages import next_function_links, trace_links
from ui.inspector.sections import FormGrid, LinkList, Section, make_form, value_label
from ui.inspector.value_view import tensor_text


class InspectorFacts:
    """``Inspector``'s facts at the timeline position (mixed into it)."""

    def _add_fact_rows(self, form: FormGrid, rows: tuple[tuple[str, str], ...]) -> None:
        """One value label per fact, named ``fact_NAME`` for the tests and the walk-through."""
        for name, title in rows:
            label = value_label(f"fact_{name}")
            self.fact_labels[name] = label
            form.addRow(title, label)

    def _build_facts(self, node: Node) -> None:
        self.facts_section = Section("Autograd facts", self)
        self.output_combo = QComboBox()
        self.output_combo.setObjectName("outputChoice")
        self.output_combo.activated.connect(self._output_chosen)
        self.facts_section.add(self.output_combo)
        self.facts_note = value_label("factsNote")
        self.facts_section.add(self.facts_note)
        self.facts_form_widget, form = make_form()
        self._add_fact_rows(
            form,
            (
                ("tensor", "tensor"),
                ("requires_grad", "requires_grad"),
                ("is_leaf", "is_leaf"),
                ("grad_fn", "grad_fn"),
            ),
        )
        self.next_links = LinkList()
        self.next_links.setObjectName("nextFunctions")
        self.next_row_label = QLabel("next_functions")
        form.addRow(self.next_row_label, self.next_links)
        self._add_fact_rows(
            form,
            (
                ("grad", ".grad"),
                ("retains_grad", "retains_grad"),
                ("version", "_version"),
                ("saved", "saved tensors"),
            ),
        )
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
