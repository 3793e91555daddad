"""Facts a learner looks for, where the learner looks (issue 30): a retained non-leaf's
``.grad`` value on its card as a leaf's, the status bar saying what the timeline says
mid-replay, the backward view's heading true at a step that runs no backward, and the
backward node keeping its label when ``retain_grad()`` is inserted."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QPushButton

from tests.ui.uitools import node_id, wait_evaluated
from ui.canvas.node_item import NodeItem
from ui.window.main_window import MainWindow


def _open(qtbot, window: MainWindow, name: str) -> None:  # noqa: ANN001
    """Open a bundled example from the Examples menu and run it (Run)."""
    (action,) = [a for a in window.example_actions() if Path(a.toolTip()).stem == name]
    action.trigger()
    qtbot.waitUntil(lambda: window.example_name == name)
    window.act_run.trigger()
    wait_evaluated(qtbot, window)


def _plain(html: str) -> str:
    doc = QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText()


def _badge(window: MainWindow, label: str) -> str:
    item = window.canvas.graph_scene.node_item(node_id(window.state.document, label))
    assert isinstance(item, NodeItem)
    return next((drawn for part, _full, drawn in item.drawn_texts() if part == "grad"), "")


def _retain_with_the_inspector(qtbot, window: MainWindow, label: str) -> None:  # noqa: ANN001
    steps = len(window.state.document.nodes())
    window.canvas.select_nodes([node_id(window.state.document, label)])
    inspector = window.panel("inspector")
    qtbot.waitUntil(lambda: inspector.findChild(QPushButton, "retainGrad") is not None)
    qtbot.mouseClick(inspector.findChild(QPushButton, "retainGrad"), Qt.MouseButton.LeftButton)
    assert len(window.state.document.nodes()) == steps + 1
    window.act_run.trigger()
    qtbot.waitUntil(
        lambda: (
            not window.runner.busy
            and window.state.evaluation is not None
            and len(window.state.evaluation.plan.steps) == steps + 1
        ),
        timeout=15000,
    )


def test_a_retained_non_leaf_shows_its_grad_value_as_a_leaf_does(
    qtbot,
    window: MainWindow,  # noqa: ANN001
) -> None:
    _open(qtbot, window, "001_leaf_grad")
    assert _badge(window, "w") == ".grad [5.]"
    assert _badge(window, "a") == ""  # a non-leaf keeps no .grad...
    _retain_with_the_inspector(qtbot, window, "a")
    qtbot.waitUntil(lambda: _badge(window, "a") == ".grad [2.]")  # ...unless it retains it
    assert _badge(window, "w") == ".grad [5.]"


def test_the_status_bar_says_what_the_timeline_says_through_a_replay(
    qtbot,
    window: MainWindow,  # noqa: ANN001
) -> None:
    _open(qtbot, window, "001_leaf_grad")
    timeline = window.panel("timeline")
    playhead = window.state.playhead
    status = window.position_label
    assert status.text().startswith("step 6 / 6  (end)")
    timeline.setFocus()
    qtbot.waitUntil(timeline.hasFocus)
    seen, texts = [], []
    for replayed in range(0, 6):
        qtbot.keyClick(timeline, Qt.Key.Key_Period)  # the replay's next grad_fn
        qtbot.waitUntil(lambda r=replayed: playhead.replay == r)
        step = timeline.step_label.text()
        replay = _plain(timeline.replay_label.text())
        assert status.text().startswith(step + " · "), (status.text(), step)
        assert status.text().endswith(replay), (status.text(), replay)
        heading = _plain(window.backward_view.status.text())
        assert f"replaying y.backward(): {replayed} / 5" in heading
        seen.append(step)
        texts.append(status.text())
    # mid-replay the facts shown are not the end's: only all 5 grad_fns run are
    assert seen == ["step 6 / 6"] * 5 + ["step 6 / 6  (end)"]
    assert (
        texts[1] == "step 6 / 6 · y.backward() (Tensor.backward) · grad_fn 1 / 5: MulBackward0 → y"
    )


def test_the_backward_heading_is_true_at_a_step_that_runs_no_backward(
    qtbot,
    window: MainWindow,  # noqa: ANN001
) -> None:
    _open(qtbot, window, "005_mlp_training_step")
    heading = window.backward_view.status
    # the last step, b2.grad = None, zeroes a gradient: it runs no grad_fn
    assert window.position_label.text().startswith("step 27 / 27  (end) · b2.grad = None")
    for _ in range(4):  # back through the four "grad = None" steps
        text = _plain(heading.text())
        assert "gradients of the last backward, loss.backward() (step 11)" in text, text
        assert ".grad = None" not in text
        window.act_step_back.trigger()
    qtbot.waitUntil(lambda: "b2 -= 0.1 * b2.grad" in window.position_label.text())
    window.act_step_back.trigger()  # ... and the steps after the backward say the same
    assert "gradients of the last backward, loss.backward() (step 11)" in _plain(heading.text())


def test_the_backward_node_keeps_its_label_when_retain_grad_is_inserted(
    qtbot,
    window: MainWindow,  # noqa: ANN001
) -> None:
    _open(qtbot, window, "001_leaf_grad")
    window.canvas.select_nodes([node_id(window.state.document, "a")])
    window.act_explain.trigger()
    fix = window.explain_panel.fix_button
    qtbot.waitUntil(lambda: not fix.isHidden())
    qtbot.mouseClick(fix, Qt.MouseButton.LeftButton)
    window.act_run.trigger()
    qtbot.waitUntil(
        lambda: (
            not window.runner.busy
            and window.state.evaluation is not None
            and len(window.state.evaluation.plan.steps) == 7
        ),
        timeout=15000,
    )
    doc = window.state.document
    backward = next(n for n in doc.nodes() if n.type_id == "Tensor.backward")
    assert backward.label == "y.backward()"
    item = window.canvas.graph_scene.node_item(backward.id)
    assert isinstance(item, NodeItem)
    assert ("label", "y.backward()", "y.backward()") in item.drawn_texts()
    assert "y.backward() (Tensor.backward)" in window.position_label.text()
    assert "gradients of y.backward() (step 7)" in _plain(window.backward_view.status.text())
    assert "y.backward()" in _plain(window.panel("timeline").caption.text())
