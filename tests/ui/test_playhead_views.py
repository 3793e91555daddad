"""One playhead, one truth: every view shows what the playhead gives, at every position.

Walks every step and every replay position of every shipped example in a full
window, and checks the canvas badges, the inspector, the backward-graph view, the
timeline labels and the status bar against the playhead's answers.
"""

from __future__ import annotations

import html
import re

import pytest

from gradstudio.evaluation.facts import OutputRef
from gradstudio.evaluation.playhead import Playhead
from gradstudio.interchange.examples import EXAMPLES
from tests.ui.uitools import node_id, wait_evaluated
from ui.backward.view import BackwardView
from ui.canvas.node_facts import format_array
from ui.inspector.panel import Inspector
from ui.inspector.value_view import tensor_text
from ui.timeline.panel import Timeline
from ui.window.main_window import MainWindow

pytestmark = pytest.mark.gui


def plain(rich: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", rich))


def open_example(window: MainWindow, qtbot, path) -> None:  # noqa: ANN001
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        assert window.open_example(path)
    wait_evaluated(qtbot, window)


def first_tensor(window: MainWindow, nid: str) -> OutputRef | None:
    ports = window.state.document.node(nid).type.outputs
    if not ports:
        return None
    index = 0 if ports[0].type.value == "tensors" else None
    return OutputRef(nid, ports[0].name, index)


def check_canvas(window: MainWindow, playhead: Playhead) -> None:
    scene = window.canvas.graph_scene
    executing = playhead.executing_node
    touched = playhead.touched_nodes()
    for node in window.state.document.nodes():
        shown = scene.facts_of(node.id)
        ref = first_tensor(window, node.id)
        if shown.status != "ok" or ref is None:
            continue
        truth = playhead.facts(ref.node_id, ref.port, ref.index)
        assert shown.tensor is truth, node.label
        want = None if truth is None or truth.grad is None else format_array(truth.grad.array)
        assert shown.grad == want, (node.label, playhead.step, playhead.replay)
        role = "executing" if node.id == executing else "touched" if node.id in touched else ""
        assert shown.replay_role == role, node.label


def check_inspector(inspector: Inspector, playhead: Playhead) -> None:
    ref = inspector.port_ref
    truth = playhead.facts(ref.node_id, ref.port, ref.index)
    assert inspector.facts() is truth
    if truth is None or inspector.fact_labels["grad"].isHidden():
        return
    text = inspector.fact_labels["grad"].text()
    if truth.grad_access_warns:
        assert "warns" in text
    elif truth.grad is None:
        assert text == "<code>None</code>"
    else:
        printed = tensor_text(truth.grad.array, truth.grad.dtype, truth.grad.device)
        assert "\n" in printed or printed in plain(text), (printed, plain(text))


def check_backward(view: BackwardView, playhead: Playhead) -> None:
    # far out, the hidden items catch up when asked; what the overview draws meanwhile
    # is checked by test_scrub_views (the keys below are kept live either way)
    current = playhead.current
    assert view.current_key == (None if current is None else current.key)
    at = playhead.trace_at()
    assert view.executed_keys == (tuple(ex.key for ex in at.executed) if at is not None else ())
    view.sync_items()
    assert view.current_key == (None if current is None else current.key)
    flows = playhead.edge_gradients()
    for link in view.links:
        if link.shown:
            assert link.flow is flows.get(link.link.flow), link.link.flow
    at = playhead.trace_at()
    executed = tuple(ex.key for ex in at.executed) if at is not None else ()
    assert view.executed_keys == executed


def check_timeline(timeline: Timeline, window: MainWindow, playhead: Playhead) -> None:
    caption = playhead.caption()
    assert timeline.step_label.text() == caption.step
    assert timeline.slider.value() == playhead.effective_step
    if playhead.replay_length:
        assert plain(timeline.replay_label.text()).startswith(caption.replay)
        assert timeline.replay_slider.value() == playhead.replayed
    assert window.position_label.text() == caption.text


@pytest.mark.parametrize("name", [e.name for e in EXAMPLES])
def test_every_view_shows_the_playhead_at_every_position(
    window: MainWindow,
    qtbot,  # noqa: ANN001
    example_paths,  # noqa: ANN001
    name: str,
) -> None:
    open_example(window, qtbot, example_paths[name])
    playhead = window.state.playhead
    inspector = window.panel("inspector")
    view = window.panel("backwardGraph")
    timeline = window.panel("timeline")
    assert isinstance(inspector, Inspector)
    assert isinstance(view, BackwardView)
    assert isinstance(timeline, Timeline)
    final = playhead.evaluation.final
    # the inspector looks at every node whose .grad the run ever sets
    with_grad = [
        node.id
        for node in window.state.document.nodes()
        if (ref := first_tensor(window, node.id)) is not None
        and (f := final.facts(ref.node_id, ref.port, ref.index)) is not None
        and f.grad is not None
    ] or [window.state.document.nodes()[0].id]
    positions = playhead.positions()
    assert len(positions) >= len(playhead.evaluation.steps)
    for selected in with_grad:
        window.canvas.select_nodes([selected])
        for step, replay in positions:
            playhead.set_position(step, replay)
            check_canvas(window, playhead)
            check_inspector(inspector, playhead)
            check_backward(view, playhead)
            check_timeline(timeline, window, playhead)


def test_gradients_accumulate_agree_inside_the_second_backward(
    window: MainWindow,
    qtbot,  # noqa: ANN001
    example_paths,  # noqa: ANN001
) -> None:
    """Seed 002 at "grad_fn 2 / 3: MulBackward0" of the second backward: ``a.grad`` is
    still 2 on the canvas badge, in the inspector and in the playhead, and the canvas
    marks ``b``, whose MulBackward0 is executing."""
    open_example(window, qtbot, example_paths["006_clone_accumulates"])
    playhead = window.state.playhead
    a = node_id(window.state.document, "a")
    b = node_id(window.state.document, "b")
    window.canvas.select_nodes([a])
    second = [r.step for r in playhead.evaluation.steps if r.trace is not None][1]
    timeline = window.panel("timeline")
    assert isinstance(timeline, Timeline)
    timeline.go_to_step(second)
    timeline.go_to_replay(2)
    assert playhead.caption().replay == "grad_fn 2 / 3: MulBackward0 → b"
    assert playhead.facts(a).grad.value == 2.0
    assert window.canvas.graph_scene.facts_of(a).grad == "2."
    inspector = window.panel("inspector")
    assert isinstance(inspector, Inspector)
    assert "tensor(2.)" in inspector.fact_labels["grad"].text()
    assert window.canvas.graph_scene.facts_of(b).replay_role == "executing"
    assert window.canvas.graph_scene.facts_of(a).replay_role == "touched"
    timeline.next_execution()  # AccumulateGrad adds the clone's 2
    assert window.canvas.graph_scene.facts_of(a).grad == "4."
    assert "tensor(4.)" in inspector.fact_labels["grad"].text()
    assert window.canvas.graph_scene.facts_of(a).replay_role == "executing"
