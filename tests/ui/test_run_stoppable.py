"""Every run can be stopped, whatever the user's code does (issue 9, part 3).

A trusted Function that loops, sleeps forever, raises SystemExit or KeyboardInterrupt,
or calls ``os._exit``: the window stays responsive (no gap over 100 ms in its event
loop), Cancel ends the run within a second, the next run works and quitting works.
"""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QTimer

from gradstudio.document.commands import SetParamCommand
from gradstudio.evaluation.budget import GIB
from tests.hostile import HANGS, HOSTILE, function_source, hostile
from tests.ui.uitools import run_and_wait

pytestmark = pytest.mark.gui

MAX_GAP_S = 0.1


class GapMeter:
    """The longest wait between ticks of a 10 ms timer while a run is under way: how
    long the UI was blocked (it stops when the run is no longer busy, before the
    results are applied to the panels)."""

    def __init__(self, window) -> None:  # noqa: ANN001
        self.ticks: list[float] = [time.perf_counter()]
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.timer.start()
        self.window = window
        window.runner.busyChanged.connect(self._busy)

    def _tick(self) -> None:
        self.ticks.append(time.perf_counter())

    def _busy(self, busy: bool) -> None:
        if not busy and self.timer.isActive():
            self._tick()
            self.timer.stop()

    def stop(self) -> float:
        self.window.runner.busyChanged.disconnect(self._busy)
        if self.timer.isActive():
            self._tick()
            self.timer.stop()
        return max(b - a for a, b in zip(self.ticks, self.ticks[1:]))


def _start_and_reach_f(window, qtbot) -> None:  # noqa: ANN001
    """Run; return once the worker is inside ``f`` (step 2 of 3)."""
    with qtbot.waitSignal(
        window.runner.progress, timeout=20000, check_params_cb=lambda step, total: step == 1
    ):
        window.act_run.trigger()


def _repair_and_rerun(window, qtbot) -> None:  # noqa: ANN001
    doc = window.state.document
    f = next(n for n in doc.nodes() if n.label == "f")
    window.bridge.push(lambda: SetParamCommand(doc, f.id, "source", function_source()))
    run_and_wait(qtbot, window)
    ev = window.state.evaluation
    assert ev is not None and ev.ok
    assert window.canvas.graph_scene.facts_of(f.id).value == "[2.]"


@pytest.mark.parametrize("name", HANGS)
def test_cancel_stops_a_hanging_function_within_a_second(window, qtbot, name: str) -> None:  # noqa: ANN001
    window.set_document(hostile(HOSTILE[name]), run=False)
    _start_and_reach_f(window, qtbot)
    meter = GapMeter(window)
    qtbot.wait(200)  # the step keeps running; the window keeps painting
    assert window.runner.busy and window.act_cancel.isEnabled()
    asked = time.perf_counter()
    with qtbot.waitSignal(window.runner.finished, timeout=5000) as blocker:
        window.act_cancel.trigger()
    latency = time.perf_counter() - asked
    gap = meter.stop()
    assert blocker.args[0].cancelled and latency < 1.0
    assert gap < MAX_GAP_S, f"the UI was blocked for {gap * 1000:.0f} ms"
    assert window.error_label.text() == "Run cancelled"
    _repair_and_rerun(window, qtbot)


@pytest.mark.parametrize("name", ["SystemExit", "KeyboardInterrupt", "os._exit"])
def test_exiting_code_ends_its_step_not_the_studio(window, qtbot, name: str) -> None:  # noqa: ANN001
    window.set_document(hostile(HOSTILE[name]), run=False)
    meter = GapMeter(window)
    run_and_wait(qtbot, window)
    gap = meter.stop()
    assert window.isVisible() and not window.runner.busy
    ev = window.state.evaluation
    assert ev is not None and [s.status for s in ev.steps] == ["ok", "error", "not run"]
    assert window.error_label.text().startswith("⚠ f: ")
    assert gap < MAX_GAP_S, f"the UI was blocked for {gap * 1000:.0f} ms"
    _repair_and_rerun(window, qtbot)


def test_quitting_during_a_hanging_run_is_prompt(window, qtbot) -> None:  # noqa: ANN001
    window.set_document(hostile(HOSTILE["busy loop"]), run=False)
    _start_and_reach_f(window, qtbot)
    window.bridge.set_clean()
    started = time.perf_counter()
    assert window.close()
    assert time.perf_counter() - started < 1.0
    assert not window.runner.busy or window.runner.pool.activeThreadCount() == 0


def test_memory_budget_is_a_setting_in_the_run_menu(window, qtbot) -> None:  # noqa: ANN001
    from gradstudio.document.model import Document

    doc = Document()
    node = doc.new_node("torch.zeros", (0, 0), {"size": [1000, 300]}, "big")  # 1.1 MiB
    doc.add_node(node)
    window.set_document(doc, run=False)
    menu = window.budget_menu
    assert menu.title() == "&Memory Budget"
    assert window.act_budgets[GIB].isChecked()  # the default
    quarter = window.act_budgets[GIB // 4]
    quarter.trigger()
    assert window.settings.memory_budget == GIB // 4 and window.runner.memory_budget == GIB // 4
    run_and_wait(qtbot, window)
    assert window.state.evaluation.ok
    window.set_memory_budget(1 << 20)  # 1 MiB, as a stored setting could say
    run_and_wait(qtbot, window)
    facts = window.canvas.graph_scene.facts_of(node.id)
    assert facts.status == "error"
    assert "`big` would allocate 1.1 MiB; the budget is 1 MiB" in facts.error_message
    with qtbot.waitSignal(window.runner.finished, timeout=15000):
        quarter.trigger()  # raising it re-runs what the old budget refused
    assert window.state.evaluation.ok
