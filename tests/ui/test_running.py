"""Running graphs from the window: Run, Backward, Zero grads, live mode, cancel, errors."""

from __future__ import annotations

import sys
import time

import pytest
from PySide6.QtCore import QPointF, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gradstudio.document.commands import (
    AddNodeCommand,
    ConnectCommand,
    RemoveNodesCommand,
    SetParamCommand,
)
from gradstudio.document.model import Document
from tests.ui.uitools import add_source, run_and_wait, wait_evaluated
from ui.errors import ErrorReporter

pytestmark = pytest.mark.gui


def build_seed_001(window) -> dict[str, str]:  # noqa: ANN001
    """w, x -> a = w + x, b = w + 1, y = a * b (no backward yet)."""
    doc = window.state.document
    canvas = window.canvas
    ids = {
        "w": add_source(window, "w", [1.0], True, (0, 0)),
        "x": add_source(window, "x", [2.0], True, (0, 160)),
    }
    ids["a"] = canvas.add_node("torch.add", QPointF(400, 200))
    ids["b"] = canvas.add_node("torch.add", QPointF(400, 0))
    ids["y"] = canvas.add_node("torch.mul", QPointF(700, 100))
    window.bridge.push(lambda: SetParamCommand(doc, ids["b"], "other", 1))
    canvas.connect_ports(ids["w"], "out", ids["a"], "input")
    canvas.connect_ports(ids["x"], "out", ids["a"], "other")
    canvas.connect_ports(ids["w"], "out", ids["b"], "input")
    canvas.connect_ports(ids["a"], "out", ids["y"], "input")
    canvas.connect_ports(ids["b"], "out", ids["y"], "other")
    return ids


def chain(doc: Document, n: int) -> None:
    prev = doc.new_node("torch.tensor", (0, 0), {"data": [1.0, 2.0], "requires_grad": True}, "x")
    doc.add_node(prev)
    for i in range(n - 1):
        node = doc.new_node("torch.mul" if i % 2 else "torch.add", (40 * i, 0), {"other": 1.001})
        doc.add_node(node)
        doc.connect(prev.id, "out", node.id, "input")
        prev = node


def test_ctrl_enter_runs_in_background_and_shows_facts(window, qtbot) -> None:  # noqa: ANN001
    ids = build_seed_001(window)
    window.activateWindow()
    qtbot.waitActive(window)
    with qtbot.waitSignal(window.runner.finished, timeout=10000):
        QTest.keyClick(window.canvas, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    facts = window.canvas.graph_scene.facts_of
    assert facts(ids["y"]).value == "[6.]"
    assert facts(ids["a"]).grad_fn == "AddBackward0"
    assert facts(ids["a"]).is_leaf is False
    assert facts(ids["w"]).is_leaf is True and facts(ids["w"]).requires_grad is True
    assert "6 steps" not in window.result_label.text()
    assert window.result_label.text().startswith("5 steps")


def test_backward_from_selected_scalar(window, qtbot) -> None:  # noqa: ANN001
    ids = build_seed_001(window)
    window.canvas.select_nodes([ids["y"]])
    assert window.act_backward.isEnabled()
    with qtbot.waitSignal(window.runner.finished, timeout=10000):
        window.act_backward.trigger()
    doc = window.state.document
    backward = [n for n in doc.nodes() if n.type_id == "Tensor.backward"]
    assert len(backward) == 1
    assert window.act_undo.text() == "&Undo Backward from mul"
    facts = window.canvas.graph_scene.facts_of
    assert facts(ids["w"]).grad == "[5.]"
    assert facts(ids["w"]).has_grad
    assert facts(ids["x"]).grad == "[2.]"
    assert not facts(ids["a"]).has_grad  # a non-leaf keeps no .grad
    window.bridge.undo()
    assert not [n for n in doc.nodes() if n.type_id == "Tensor.backward"]


def test_backward_refuses_a_non_scalar(window, qtbot) -> None:  # noqa: ANN001
    v = add_source(window, "v", [1.0, 2.0], True)
    run_and_wait(qtbot, window)
    window.canvas.select_nodes([v])
    assert window.backward_from_selection() is None
    assert "needs a scalar" in window.statusBar().currentMessage()
    assert len(window.state.document) == 1


def test_zero_grads_resets_leaf_grads(window, qtbot) -> None:  # noqa: ANN001
    ids = build_seed_001(window)
    window.canvas.select_nodes([ids["y"]])
    with qtbot.waitSignal(window.runner.finished, timeout=10000):
        window.act_backward.trigger()
    assert window.canvas.graph_scene.facts_of(ids["w"]).has_grad
    with qtbot.waitSignal(window.runner.finished, timeout=10000):
        window.act_zero.trigger()
    doc = window.state.document
    zero = [n for n in doc.nodes() if n.type_id == "gradstudio.zero_grad"]
    assert len(zero) == 1
    wired = {e.src for e in doc.edges() if e.dst == zero[0].id}
    assert wired == {ids["w"], ids["x"]}
    facts = window.canvas.graph_scene.facts_of
    assert not facts(ids["w"]).has_grad and not facts(ids["x"]).has_grad
    # the timeline can still show the step before: w.grad was 5 then
    ev = window.state.evaluation
    window.state.playhead.set_position(ev.plan.step_of[zero[0].id] - 1)
    assert facts(ids["w"]).grad == "[5.]"
    window.state.playhead.set_position(-1)
    assert not facts(ids["w"]).has_grad


def test_timeline_position_dims_later_steps(window, qtbot) -> None:  # noqa: ANN001
    ids = build_seed_001(window)
    run_and_wait(qtbot, window)
    scene = window.canvas.graph_scene
    window.state.playhead.set_position(1)  # after w and x
    assert scene.facts_of(ids["y"]).status == "pending"
    assert scene.node_item(ids["y"]).dimmed
    assert scene.facts_of(ids["w"]).status == "ok"
    window.state.playhead.set_position(-1)
    assert not scene.node_item(ids["y"]).dimmed


def test_device_selector_disables_cuda_with_reason(window, monkeypatch) -> None:  # noqa: ANN001
    import engine

    selector = window.device_selector
    assert selector.objectName() == "deviceSelector"
    if engine.cuda.is_available():
        assert selector.item_enabled("cuda")
    else:
        assert not selector.item_enabled("cuda")
        assert engine.cuda.unavailable_reason() in selector.item_tooltip("cuda")
        assert "CUDA is not available" in selector.toolTip()


def test_device_change_is_an_undoable_setting(window) -> None:  # noqa: ANN001
    doc = window.state.document
    window.device_selector.deviceChosen.emit("cuda")
    assert doc.settings["device"] == "cuda"
    assert window.device_selector.device == "cuda"
    window.bridge.undo()
    assert doc.settings["device"] == "cpu"
    assert window.device_selector.device == "cpu"


def test_live_mode_reevaluates_after_each_edit(window, qtbot) -> None:  # noqa: ANN001
    a = add_source(window, "a", [1.0], False)
    window.act_live.setChecked(True)
    assert window.settings.live
    wait_evaluated(qtbot, window)
    doc = window.state.document
    with qtbot.waitSignal(window.runner.finished, timeout=10000):
        window.bridge.push(lambda: SetParamCommand(doc, a, "data", [7.0]))
    assert window.canvas.graph_scene.facts_of(a).value == "[7.]"
    assert not window.runner.stale
    window.act_live.setChecked(False)
    window.bridge.push(lambda: SetParamCommand(doc, a, "data", [8.0]))
    qtbot.waitUntil(lambda: window.runner.stale)
    assert "out of date" in window.stale_label.text()
    assert window.canvas.graph_scene.facts_of(a).value == "[7.]"


def test_an_edit_back_to_a_remembered_state_shows_its_results_and_ends_a_run(window, qtbot) -> None:  # noqa: ANN001
    """Undo (or an edit back) restores remembered results at once, even over a Run
    started a moment before: the status bar says so and a waiting caller is answered."""
    import threading

    from PySide6.QtCore import QRunnable

    a = add_source(window, "a", [1.0], False)
    doc = window.state.document
    run_and_wait(qtbot, window)
    first = window.state.evaluation
    window.bridge.push(lambda: SetParamCommand(doc, a, "data", [7.0]))
    run_and_wait(qtbot, window)
    window.result_label.setText("")

    class Hold(QRunnable):  # keeps the worker busy: the run waits, the restore comes first
        def __init__(self, gate: threading.Event) -> None:
            super().__init__()
            self.gate = gate

        def run(self) -> None:
            self.gate.wait(10)

    gate = threading.Event()
    hold = Hold(gate)
    hold.setAutoDelete(False)
    window.runner.pool.start(hold)
    try:
        with qtbot.waitSignal(window.runner.finished, timeout=10000) as blocker:
            window.bridge.undo()  # back to [1.0], whose evaluation is remembered
            window.run_graph()  # queued behind Hold: the restore answers it
    finally:
        gate.set()
    assert blocker.args == [first] and window.state.evaluation is first
    assert not window.runner.busy and not window.runner.stale
    assert window.result_label.text().startswith("1 step ·")
    assert window.canvas.graph_scene.facts_of(a).value == "[1.]"
    window.runner.wait()
    assert window.state.evaluation is first  # the dropped run changed nothing


def test_long_run_shows_progress_and_never_blocks(window, qtbot) -> None:  # noqa: ANN001
    doc = Document()
    chain(doc, 6000)
    window.set_document(doc, run=False)
    for _ in range(3):  # let the scene index and first paint settle before timing
        QApplication.processEvents()
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    seen_progress: list[bool] = []
    window.runner.progress.connect(lambda *_: seen_progress.append(window.progress.isVisible()))
    started = time.perf_counter()
    with qtbot.waitSignal(window.runner.finished, timeout=60000) as blocker:
        window.run_graph()
    finished = time.perf_counter()
    timer.stop()
    assert not blocker.args[0].cancelled
    assert any(seen_progress)  # a long run shows its progress bar
    # The event loop kept running while the graph was evaluated on the worker thread.
    assert any(started < t < finished for t in ticks)
    assert not window.progress.isVisible()


def test_run_can_be_cancelled(window, qtbot) -> None:  # noqa: ANN001
    doc = Document()
    chain(doc, 4000)
    window.set_document(doc, run=False)
    with qtbot.waitSignal(window.runner.finished, timeout=60000) as blocker:
        window.run_graph()
        assert window.act_cancel.isEnabled()
        window.act_cancel.trigger()
    ev = blocker.args[0]
    assert ev.cancelled
    assert window.error_label.text() == "Run cancelled"
    assert not window.progress.isVisible()
    assert window.runner.stale


def test_error_is_shown_on_the_node_that_raised(window, qtbot) -> None:  # noqa: ANN001
    doc = window.state.document
    w = add_source(window, "w", [1.0], True)
    e = window.canvas.add_node("torch.exp", QPointF(300, 0))
    window.canvas.connect_ports(w, "out", e, "input")
    first = window.bridge.push(lambda: AddNodeCommand(doc, "Tensor.backward", (600, 0)))
    second = window.bridge.push(lambda: AddNodeCommand(doc, "Tensor.backward", (600, 200)))
    window.bridge.push(lambda: ConnectCommand(doc, e, "out", first.node_id, "input"))
    window.bridge.push(lambda: ConnectCommand(doc, e, "out", second.node_id, "input"))
    run_and_wait(qtbot, window)
    facts = window.canvas.graph_scene.facts_of(second.node_id)
    assert facts.status == "error"
    assert "second time" in facts.error_message
    assert window.canvas.graph_scene.facts_of(first.node_id).status == "ok"
    assert "⚠" in window.error_label.text()
    tip = window.canvas.graph_scene.node_item(second.node_id).toolTip()
    assert "retain_graph" in tip
    assert len(doc) == 4  # the document is kept


def test_error_reporter_shows_a_dialog_instead_of_dying(qtbot) -> None:  # noqa: ANN001
    shown: list[tuple[str, str]] = []
    reporter = ErrorReporter(
        show=lambda parent, title, text, details: shown.append((text, details))
    )
    try:
        raise RuntimeError("boom in a slot")
    except RuntimeError:
        reporter(*sys.exc_info())
    qtbot.waitUntil(lambda: bool(shown))
    assert "boom in a slot" in shown[0][0]
    assert "Traceback" in shown[0][1]
    previous = sys.excepthook
    reporter.install()
    assert sys.excepthook is reporter
    reporter.uninstall()
    assert sys.excepthook is previous


def test_an_edit_and_its_run_share_one_copy_of_the_document_until_a_rename(
    window,  # noqa: ANN001
    qtbot,  # noqa: ANN001
) -> None:
    """The check after an edit (is the result remembered?) and the run that follows
    prepare the document once; a rename, which bumps no revision, is not missed."""
    from gradstudio.document.commands import SetLabelCommand

    ids = build_seed_001(window)
    runner = window.runner
    doc = window.state.document
    assert runner.cached() is None
    plan = runner._prepare(doc)
    assert runner._prepare(doc) is plan  # the same state: the same copy
    window.bridge.push(lambda: SetLabelCommand(doc, ids["y"], "product"))
    with qtbot.waitSignal(runner.finished, timeout=10000):
        runner.run()
    ev = window.state.evaluation
    assert ev.plan.labels[ids["y"]] == "product"
    assert runner._prepare(doc) is not plan


def test_edited_values_update_the_last_copy_as_a_fresh_copy_would_read(
    window,  # noqa: ANN001
    qtbot,  # noqa: ANN001
) -> None:
    """After edits of values alone (and a move), the next plan is the last one with
    those steps' parameters renewed: equal to a fresh copy, and a run shows them."""
    from gradstudio.document.commands import MoveNodesCommand
    from gradstudio.evaluation.plan import prepare
    from gradstudio.evaluation.plan_key import plan_key

    ids = build_seed_001(window)
    runner = window.runner
    doc = window.state.document
    plan = runner._prepare(doc)
    window.bridge.push(lambda: SetParamCommand(doc, ids["w"], "data", [3.0]))
    window.bridge.push(lambda: SetParamCommand(doc, ids["b"], "other", 2))
    window.bridge.push(lambda: MoveNodesCommand(doc, {ids["y"]: (720.0, 90.0)}))
    edited = runner._prepare(doc)
    fresh = prepare(doc, runner.device, runner.memory_budget)
    assert edited is not plan and edited.steps[1] is plan.steps[1]  # x: the same step
    assert edited == fresh and plan_key(edited) == plan_key(fresh)
    assert edited.revision == doc.revision
    window.bridge.undo()  # the move, then a value edit: one more edit of values
    window.bridge.undo()
    assert runner._prepare(doc) == prepare(doc, runner.device, runner.memory_budget)
    window.bridge.push(lambda: RemoveNodesCommand(doc, [ids["b"]]))
    after = runner._prepare(doc)
    assert after == prepare(doc, runner.device, runner.memory_budget)
    with qtbot.waitSignal(runner.finished, timeout=10000):
        runner.run()
    facts = window.state.evaluation.final.facts(ids["a"], "out")
    assert facts is not None and facts.array.tolist() == [5.0]  # w = 3 + x = 2


def test_a_new_evaluation_reaches_every_view_by_one_signal(window, qtbot) -> None:  # noqa: ANN001
    """A re-run is announced once (``evaluationChanged``, which stands for the position
    too), so no view re-reads a big graph twice; yet each shows the new results, and a
    position the new run no longer has falls back to the end everywhere."""
    ids = build_seed_001(window)
    run_and_wait(qtbot, window)
    state, scene = window.state, window.canvas.graph_scene
    state.playhead.set_position(3)
    signals: list[str] = []
    state.evaluationChanged.connect(lambda: signals.append("evaluation"))
    state.positionChanged.connect(lambda: signals.append("position"))
    window.bridge.push(lambda: SetParamCommand(state.document, ids["w"], "data", [3.0]))
    run_and_wait(qtbot, window)
    assert signals == ["evaluation"]
    assert state.playhead.step == 3  # the position stays where it still exists
    assert scene.facts_of(ids["w"]).value == "[3.]"
    assert scene.facts_of(ids["y"]).status == "pending" and scene.node_item(ids["y"]).dimmed
    assert window.position_label.text() == state.playhead.caption().text
    state.playhead.set_position(4)  # the last step of a graph about to lose one
    signals.clear()
    window.bridge.push(lambda: RemoveNodesCommand(state.document, [ids["y"]]))
    run_and_wait(qtbot, window)
    assert signals == ["evaluation"] and state.playhead.step == -1
    assert scene.facts_of(ids["b"]).value == "[4.]" and not scene.node_item(ids["b"]).dimmed
    assert window.position_label.text() == state.playhead.caption().text
    step_text = window.panel("timeline").step_label.text()
    assert step_text == state.playhead.caption().step == "step 4 / 4  (end)"
