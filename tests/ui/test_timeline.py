"""The timeline: .grad before and after backward, replay in PyTorch's order, seed 002."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gradstudio.document.model import Document
from tests.gradstudio.snippets import SEED_001
from tests.ui.uitools import make_state, node_id
from ui.backward.view import BackwardView
from ui.inspector.panel import Inspector
from ui.state import StudioState
from ui.timeline.panel import Timeline

pytestmark = pytest.mark.gui

SEED_002_CLONE = """\
import torch

a = torch.tensor(1, requires_grad=True, dtype=torch.float32)
b = a * 2

b_clone = b.clone()

b.backward(retain_graph=True)
b_clone.backward()
"""


def backward_steps(state: StudioState) -> list[int]:
    return [i for i, n in enumerate(state.document.nodes()) if n.type_id == "Tensor.backward"]


@pytest.fixture
def panels(qtbot) -> tuple[StudioState, Timeline, Inspector, BackwardView]:  # noqa: ANN001
    state = make_state(SEED_001)
    timeline, inspector, view = Timeline(state), Inspector(state), BackwardView(state)
    for w in (timeline, inspector, view):
        qtbot.addWidget(w)
    timeline.show()
    return state, timeline, inspector, view


def test_object_name_and_range(panels) -> None:  # noqa: ANN001
    _, timeline, _, _ = panels
    assert timeline.objectName() == "timeline"
    assert (timeline.slider.minimum(), timeline.slider.maximum()) == (0, 5)
    assert timeline.slider.value() == 5
    assert "step 6 / 6" in timeline.step_label.text()
    assert (
        "y.backward()" in timeline.caption.text() and "Tensor.backward" in timeline.caption.text()
    )


def test_grad_is_none_before_backward_and_5_after(panels) -> None:  # noqa: ANN001
    state, timeline, inspector, _ = panels
    state.select([node_id(state.document, "w")])
    bw = backward_steps(state)[0]
    timeline.go_to_step(bw - 1)
    assert state.playhead.step == bw - 1
    assert inspector.fact_labels["grad"].text() == "<code>None</code>"
    assert inspector.values.grad.picture.mode == "none"
    assert "y" in timeline.caption.text() and "torch.mul" in timeline.caption.text()
    timeline.next_step()
    assert state.playhead.effective_step == bw
    assert "tensor([5.])" in inspector.fact_labels["grad"].text()
    assert state.playhead.step == -1  # the last step is "the end": it follows later edits


def test_slider_buttons_and_keys_move_the_position(qtbot, panels) -> None:  # noqa: ANN001
    state, timeline, _, _ = panels
    with qtbot.waitSignal(state.positionChanged):
        timeline.slider.setValue(2)
    assert state.playhead.step == 2
    qtbot.mouseClick(timeline.prev_button, Qt.MouseButton.LeftButton)
    assert state.playhead.step == 1
    timeline.setFocus()
    qtbot.keyClick(timeline, Qt.Key.Key_Right)
    assert state.playhead.step == 2
    qtbot.keyClick(timeline, Qt.Key.Key_Home)
    assert state.playhead.step == 0 and not timeline.prev_button.isEnabled()
    qtbot.keyClick(timeline, Qt.Key.Key_End)
    assert state.playhead.step == -1 and not timeline.next_button.isEnabled()
    assert timeline.slider.value() == 5


def test_replay_advances_one_execution_at_a_time_in_pytorch_order(qtbot, panels) -> None:  # noqa: ANN001
    state, timeline, _, view = panels
    trace = state.evaluation.traces[0]
    assert not timeline.replay_row.isHidden()
    seen_names, seen_keys = [], []
    timeline.setFocus()
    qtbot.keyClick(timeline, Qt.Key.Key_Period)  # start the replay: nothing executed yet
    assert state.playhead.replay == 0 and view.current_key is None
    for i in range(len(trace.executions)):
        timeline.next_execution()
        assert state.playhead.replay == i + 1
        assert timeline.replay_slider.value() == i + 1
        seen_keys.append(view.current_key)
        seen_names.append(view.fn_item(view.current_key).box.title)
        assert view.executed_keys == tuple(seen_keys)
        assert state.playhead.current.key == view.current_key
    assert seen_keys == [e.key for e in trace.executions]
    assert seen_names == [
        "MulBackward0",
        "AddBackward0",
        "AddBackward0",
        "AccumulateGrad",
        "AccumulateGrad",
    ]
    index = state.playhead.index
    owners = [index.label(index.node_for(k)) for k in seen_keys]
    # PyTorch runs b's AddBackward0 (created later) before a's, then w's and x's AccumulateGrad
    assert owners == ["y", "b", "a", "w", "x"]
    assert not timeline.next_execution()  # the end of the replay
    assert "AccumulateGrad" in timeline.replay_label.text()


def test_replay_shows_grad_only_once_accumulate_grad_ran(panels) -> None:  # noqa: ANN001
    state, timeline, inspector, _ = panels
    w = node_id(state.document, "w")
    state.select([w])
    timeline.go_to_replay(3)  # MulBackward0, both AddBackward0 ran; AccumulateGrad(w) not yet
    assert state.playhead.facts(w).grad is None
    assert inspector.fact_labels["grad"].text() == "<code>None</code>"
    timeline.go_to_replay(4)
    assert state.playhead.facts(w).grad.value == [5.0]
    assert "tensor([5.])" in inspector.fact_labels["grad"].text()
    timeline.previous_execution()
    assert state.playhead.replay == 3
    timeline.next_step()  # from a replay, stepping keeps the end; a previous step drops replay
    timeline.previous_step()
    assert state.playhead.replay is None


def test_play_runs_through_the_replay(qtbot, panels) -> None:  # noqa: ANN001
    state, timeline, _, view = panels
    timeline.play_interval_ms = 5
    timeline.set_playing(True)
    assert timeline.playing and state.playhead.replay == 0
    n = len(state.evaluation.traces[0].executions)
    qtbot.waitUntil(lambda: not timeline.playing, timeout=5000)
    assert state.playhead.replay == n
    assert view.current_key == state.evaluation.traces[0].executions[-1].key


def test_seed_002_clone_accumulates_2_then_4(qtbot) -> None:  # noqa: ANN001
    state = make_state(SEED_002_CLONE)
    timeline, inspector = Timeline(state), Inspector(state)
    qtbot.addWidget(timeline)
    qtbot.addWidget(inspector)
    state.select([node_id(state.document, "a")])
    first, second = backward_steps(state)
    timeline.go_to_step(first - 1)
    assert inspector.fact_labels["grad"].text() == "<code>None</code>"
    timeline.go_to_step(first)
    assert "tensor(2.)" in inspector.fact_labels["grad"].text()
    assert inspector.values.grad.picture.mode == "scalar"
    timeline.go_to_step(second)
    assert "tensor(4.)" in inspector.fact_labels["grad"].text()
    # inside the second backward, .grad stays 2 until AccumulateGrad adds the clone's 2
    trace = state.evaluation.steps[second].trace
    names = [e.name for e in trace.executions]
    assert names == ["CloneBackward0", "MulBackward0", "AccumulateGrad"]
    timeline.go_to_replay(2)
    assert "tensor(2.)" in inspector.fact_labels["grad"].text()
    timeline.go_to_replay(3)
    assert "tensor(4.)" in inspector.fact_labels["grad"].text()


def test_no_evaluation_disables_everything(qtbot) -> None:  # noqa: ANN001
    state = StudioState(Document())
    timeline = Timeline(state)
    qtbot.addWidget(timeline)
    assert not timeline.slider.isEnabled()
    assert timeline.replay_row.isHidden()
    timeline.next_step()
    timeline.next_execution()
    assert state.playhead.step == -1 and state.playhead.replay is None


@pytest.mark.torch
def test_replay_order_matches_pytorch_itself(panels) -> None:  # noqa: ANN001
    import torch

    w = torch.tensor([1.0], requires_grad=True)
    x = torch.tensor([2.0], requires_grad=True)
    a = torch.add(w, x)
    b = torch.add(w, 1)
    y = torch.mul(a, b)
    nodes = {y.grad_fn: "y", a.grad_fn: "a", b.grad_fn: "b"}
    nodes[a.grad_fn.next_functions[0][0]] = "w"
    nodes[a.grad_fn.next_functions[1][0]] = "x"
    order: list[str] = []
    for node, label in nodes.items():
        node.register_prehook(lambda grads, label=label: order.append(label))
    y.backward()

    state, timeline, _, view = panels
    index = state.playhead.index
    timeline.go_to_replay(0)
    replayed = []
    while timeline.next_execution():
        replayed.append(index.label(index.node_for(view.current_key)))
    assert replayed == order
