"""The Run menu of the window: run, cancel, backward from the selection, zero grads, live mode.

Evaluation itself happens in ``ui.run.runner``; these are the window's commands and the
way it reports a run (progress after a moment, errors in the status bar, stale
results marked on the canvas).  A mixin of ``MainWindow``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradstudio.document.commands import AddNodeCommand, ConnectCommand, SetSettingCommand
from gradstudio.interchange.trust import TrustStore, trust_document
from ui.canvas.style import NODE_WIDTH

if TYPE_CHECKING:
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QLabel, QProgressBar, QToolButton, QWidget

    from ui.canvas.view import GraphView
    from ui.run.runner import EvaluationRunner
    from ui.state import StudioState
    from ui.window.settings import StudioSettings
    from ui.window.undo_bridge import UndoBridge


class RunCommands:
    """Running the graph from the window (needs the attributes ``MainWindow`` builds)."""

    state: StudioState
    settings: StudioSettings
    runner: EvaluationRunner
    bridge: UndoBridge
    canvas: GraphView
    trust_store: TrustStore
    act_cancel: QAction
    progress: QProgressBar
    cancel_button: QToolButton
    result_label: QLabel
    error_label: QLabel
    stale_label: QLabel
    trust_banner: QWidget
    _progress_timer: QTimer

    if TYPE_CHECKING:  # provided by MainWindow

        def show_message(self, text: str, msecs: int = 0) -> None: ...

        def _update_trust_banner(self) -> None: ...

    def run_graph(self) -> int:
        """Evaluate the document in the background (Ctrl+Enter)."""
        return self.runner.run()

    def _set_live(self, live: bool) -> None:
        self.settings.live = live
        self.runner.set_live(live)
        self.show_message(
            "Live mode on: the graph re-runs after every edit" if live else "Live mode off", 3000
        )

    def _device_chosen(self, device: str) -> None:
        doc = self.state.document
        if doc.settings["device"] != device:
            self.bridge.push(lambda: SetSettingCommand(doc, "device", device))
            if not self.runner.live:
                self.run_graph()

    def _busy_changed(self, busy: bool) -> None:
        self.act_cancel.setEnabled(busy)
        if busy:
            self._progress_timer.start()
        else:
            self._progress_timer.stop()
            self.progress.hide()
            self.cancel_button.hide()

    def _show_progress(self) -> None:
        if self.runner.busy:
            self.progress.show()
            self.cancel_button.show()

    def _progress(self, step: int, total: int) -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(step)

    def _finished(self, ev: object) -> None:
        from gradstudio.evaluation.evaluate import Evaluation

        assert isinstance(ev, Evaluation)
        ms = ev.seconds * 1000.0
        steps = sum(1 for s in ev.steps if s.status != "not run")
        noun = "step" if steps == 1 else "steps"
        self.result_label.setText(f"{steps} {noun} · {ms:.0f} ms · {ev.device}")
        if ev.cancelled:
            self.error_label.setText("Run cancelled")
        elif ev.errors:
            err = ev.errors[0]
            label = ev.plan.labels.get(err.node_id, err.node_id)
            self.error_label.setText(f"⚠ {label}: {err.title or err.exc_type}")
            self.error_label.setToolTip(f"{err.exc_type}: {err.message}")
        else:
            self.error_label.setText("")
            self.error_label.setToolTip("")

    def _failed(self, details: str) -> None:
        from ui.errors import show_error

        self.error_label.setText("Evaluation failed (see details)")
        show_error(
            self,
            "Evaluation failed",
            "GradStudio could not evaluate this graph. The document is unchanged.",
            details,
        )

    def _stale_changed(self, stale: bool) -> None:
        self.canvas.graph_scene.set_stale(stale)
        self.stale_label.setText("Results are out of date — Ctrl+Enter to run" if stale else "")

    def backward_from_selection(self) -> str | None:
        """Add ``.backward()`` on the selected tensor (one undo step) and run."""
        ids = self.state.selection
        doc = self.state.document
        if len(ids) != 1 or ids[0] not in doc:
            self.show_message("Select one tensor node to run backward from", 4000)
            return None
        node = doc.node(ids[0])
        outputs = [p for p in node.type.outputs if p.type.value == "tensor"]
        if not outputs:
            self.show_message(f"{node.label} has no tensor output", 4000)
            return None
        snap = self.state.playhead.snapshot()
        facts = snap.facts(node.id, outputs[0].name) if snap is not None else None
        if facts is not None and facts.array.size != 1:
            self.show_message(
                f"backward() needs a scalar, but {node.label} has shape {tuple(facts.shape)}: "
                "add a sum or mean first, or pass a gradient",
                8000,
            )
            return None
        add = AddNodeCommand(doc, "Tensor.backward", (node.x + NODE_WIDTH + 70.0, node.y))
        ok = self.bridge.push_group(
            f"Backward from {node.label}",
            [add, lambda: ConnectCommand(doc, node.id, outputs[0].name, add.node_id, "input")],
        )
        if not ok:
            return None
        if not self.runner.live:
            self.run_graph()
        return add.node_id

    def zero_grads(self) -> str | None:
        """Add a "zero grads" step on every leaf that requires grad (one undo step)."""
        doc = self.state.document
        snap = self.state.playhead.snapshot()
        leaves: list[tuple[str, str]] = []
        for node in doc.nodes():
            for port in node.type.outputs:
                if port.type.value != "tensor":
                    continue
                facts = snap.facts(node.id, port.name) if snap is not None else None
                if facts is not None:
                    if facts.is_leaf and facts.requires_grad:
                        leaves.append((node.id, port.name))
                elif node.params.get("requires_grad") is True:
                    leaves.append((node.id, port.name))
        if not leaves:
            self.show_message("No leaf tensor requires grad: nothing to zero", 4000)
            return None
        right = max(n.x for n in doc.nodes()) + NODE_WIDTH + 70.0
        top = min(n.y for n in doc.nodes())
        add = AddNodeCommand(doc, "gradstudio.zero_grad", (right, top))
        commands: list[object] = [add]
        for node_id, port in leaves:
            commands.append(
                lambda n=node_id, p=port: ConnectCommand(doc, n, p, add.node_id, "tensors")
            )
        if not self.bridge.push_group("Zero grads", commands):
            return None
        if not self.runner.live:
            self.run_graph()
        return add.node_id

    def trust_document(self) -> None:
        trust_document(self.state.document, self.trust_store)
        self._update_trust_banner()
        self.run_graph()
