"""The Run menu of the window: run, cancel, backward from the selection, zero grads, live
mode, the memory budget.

Evaluation itself happens in ``ui.run.runner``; these are the window's commands and the
way it reports a run (progress after a moment, errors in the status bar, stale
results marked on the canvas).  A mixin of ``MainWindow``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QActionGroup

from gradstudio.document.autograd_edits import backward_from, grad_leaves, zero_grads
from gradstudio.document.commands import SequenceCommand, SetSettingCommand
from gradstudio.evaluation.budget import GIB, format_size
from gradstudio.interchange.trust import TrustStore, trust_document
from ui.actions import connect_action

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QLabel, QProgressBar, QToolButton, QWidget

    from gradstudio.evaluation.facts import TensorFacts
    from ui.canvas.view import GraphView
    from ui.run.runner import EvaluationRunner
    from ui.state import StudioState
    from ui.window.settings import StudioSettings
    from ui.window.undo_bridge import UndoBridge


#: The budgets Run > Memory Budget offers (bytes of tensor data one run may hold).
BUDGET_CHOICES = (GIB // 4, GIB // 2, GIB, 2 * GIB, 4 * GIB, 8 * GIB, 16 * GIB)


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
    #: The last progress reported (step, total), drawn when the bar appears.
    _progress_at: tuple[int, int] = (0, 1)
    result_label: QLabel
    error_label: QLabel
    stale_label: QLabel
    trust_banner: QWidget
    _progress_timer: QTimer

    if TYPE_CHECKING:  # provided by MainWindow

        def show_message(self, text: str, msecs: int = 0) -> None: ...

        def _update_trust_banner(self) -> None: ...

    def _build_budget_actions(self) -> dict[int, QAction]:
        """One checkable action per budget; the stored setting is checked and applied."""
        chosen = self.settings.memory_budget
        group = QActionGroup(self)  # type: ignore[arg-type]
        actions: dict[int, QAction] = {}
        choices = sorted({*BUDGET_CHOICES, chosen})
        for nbytes in choices:
            action = QAction(format_size(nbytes), self, checkable=True)  # type: ignore[call-overload]
            action.setStatusTip(f"A run may hold up to {format_size(nbytes)} of tensor data")
            action.setChecked(nbytes == chosen)
            connect_action(action, lambda n=nbytes: self.set_memory_budget(n))
            group.addAction(action)
            actions[nbytes] = action
        self.runner.set_memory_budget(chosen)
        return actions

    def set_memory_budget(self, nbytes: int) -> None:
        """Remember the budget; a result the old budget refused is run again."""
        self.settings.memory_budget = nbytes
        self.runner.set_memory_budget(nbytes)
        self.show_message(f"Memory budget: {format_size(nbytes)} of tensor data per run", 4000)
        ev = self.state.evaluation
        if ev is not None and any(
            e.exc_type in ("MemoryBudgetError", "MemoryError") for e in ev.errors
        ):
            self.run_graph()

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
            self._progress_at = (0, 1)
            self._progress_timer.start()
        else:
            self._progress_timer.stop()
            self.progress.hide()
            self.cancel_button.hide()

    def _show_progress(self) -> None:
        if self.runner.busy:
            self._progress(*self._progress_at)
            self.progress.show()
            self.cancel_button.show()

    def _progress(self, step: int, total: int) -> None:
        """Remember the step; draw it only while the bar shows (``setValue`` repaints
        at once, a few milliseconds each, and a short run never shows the bar)."""
        self._progress_at = (step, total)
        if self.progress.isVisible():
            self.progress.setMaximum(max(total, 1))
            self.progress.setValue(step)

    def _finished(self, ev: object) -> None:
        from gradstudio.evaluation.facts import waiting_text
        from gradstudio.evaluation.results import Evaluation

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
        elif ev.waiting:
            # not a failure: the graph is being built, and says what it needs next
            first = ev.waiting[0]
            label = ev.plan.labels.get(first.node_id, first.node_id)
            self.error_label.setText(f"{label}: {waiting_text(first.missing, first.waits_for)}")
            self.error_label.setToolTip("")
        else:
            self.error_label.setText("")
            self.error_label.setToolTip("")
        self._hint_style(not ev.cancelled and not ev.errors and bool(ev.waiting))

    def _hint_style(self, hint: bool) -> None:
        """The status line in the hint colour (a node waits for an input), not in red."""
        if bool(self.error_label.property("hint")) != hint:
            self.error_label.setProperty("hint", hint)
            self.error_label.style().unpolish(self.error_label)
            self.error_label.style().polish(self.error_label)

    def _failed(self, details: str) -> None:
        from ui.errors import show_error

        self._hint_style(False)
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
        return self._edit_and_run(lambda: backward_from(doc, ids[0], self._facts_of))

    def zero_grads(self) -> str | None:
        """Add a "zero grads" step on every leaf that requires grad (one undo step)."""
        doc = self.state.document
        return self._edit_and_run(lambda: zero_grads(doc, grad_leaves(doc, self._facts_of)))

    def _facts_of(self, node_id: str, port: str) -> TensorFacts | None:
        """A tensor's facts at the playhead (what the window shows), for the edits' checks."""
        return self.state.playhead.facts(node_id, port)

    def _edit_and_run(self, make: Callable[[], SequenceCommand]) -> str | None:
        """Push an edit that adds a node (a refusal goes to the status bar), then run;
        returns the added node's id."""
        command = self.state.push(make, refused=lambda text: self.show_message(text, 8000))
        if command is None:
            return None
        self.canvas.follow(list(command.added))
        if not self.runner.live:
            self.run_graph()
        return command.added[0]

    def trust_document(self) -> None:
        trust_document(self.state.document, self.trust_store)
        self._update_trust_banner()
        self.run_graph()
