"""A re-run after editing values alone (the graph's structure the same): the views carry
their work over from the run before, and every panel then shows what it shows for the
new run drawn afresh, a panel hidden meanwhile included once it is shown again."""

from __future__ import annotations

import dataclasses

import pytest

from gradstudio.document.commands import SetParamCommand
from gradstudio.instruments.memory import MemoryStep, memory
from gradstudio.interchange.pytorch_import import import_snippet
from tests.ui.uitools import node_id, wait_evaluated
from ui.backward.view import BackwardView
from ui.instruments.memory import breakdown_html

pytestmark = pytest.mark.gui

PROGRAM = """\
import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, -1.0], requires_grad=True)
c = a * b
c.retain_grad()
d = torch.tanh(c) + a
e = torch.exp(d) * b
loss = e.sum()
loss.backward()
"""


def picture(view: BackwardView) -> tuple:
    """What the view shows, positions aside: every shown box's text and state, every
    shown link's gradient (items brought to the position first, as a click or a zoom
    does; a hidden item keeps whatever it showed last)."""
    view.sync_items()
    boxes = sorted(
        (repr(k), b.box, b.executed, b.current, b.output, b.selected)
        for k, b in view.boxes.items()
        if b.shown
    )
    links = sorted(
        (
            repr(li.link),
            li.strong,
            li.flow_text,
            None if li.flow is None else li.flow.array.tolist(),
        )
        for li in view.links
        if li.shown
    )
    return boxes, links, view.model.fn_count


def fresh_picture(qtbot, view: BackwardView) -> tuple:  # noqa: ANN001
    """The picture a new view draws of the state from scratch."""
    other = BackwardView(view.state)
    qtbot.addWidget(other)
    other.resize(view.size())
    other.show()
    qtbot.waitExposed(other)
    return picture(other)


def numbers(steps: list[MemoryStep]) -> list[tuple]:
    fields = [f.name for f in dataclasses.fields(MemoryStep) if not f.name.startswith("_")]
    return [tuple(getattr(m, name) for name in fields) for m in steps]


def edit_and_run(qtbot, window, label: str, data: list[float]) -> None:  # noqa: ANN001
    doc = window.state.document
    window.bridge.push(lambda: SetParamCommand(doc, node_id(doc, label), "data", data))
    with qtbot.waitSignal(window.runner.finished, timeout=15000):
        window.act_run.trigger()


def open_program(qtbot, window) -> BackwardView:  # noqa: ANN001
    window.set_document(import_snippet(PROGRAM))
    wait_evaluated(qtbot, window)
    view = window.backward_view
    qtbot.waitUntil(view.isVisible)
    return view


@pytest.mark.parametrize("far_out", [False, True])
def test_every_panel_shows_the_new_values_after_a_rerun(window, qtbot, far_out) -> None:  # noqa: ANN001
    view = open_program(qtbot, window)
    if far_out:  # the overview draws the graph: the items catch up when asked
        view.view.zoom(0.02)
        assert not view.detail
    items, links, scrub = dict(view.boxes), list(view.links), view._scrub
    first = window.state.evaluation
    edit_and_run(qtbot, window, "a", [0.5, -3.0])
    ev = window.state.evaluation
    assert ev is not first and ev.ok
    doc = window.state.document
    # the backward graph: the same items and model, the new gradients, as a new view
    # draws them
    assert view.boxes == items and view.links == links
    assert view._scrub is scrub and scrub.evaluation is ev
    assert picture(view) == fresh_picture(qtbot, view)
    b_grad = ev.final.facts(node_id(doc, "b")).grad
    assert (
        b_grad is not None
        and b_grad.array.tolist() != first.final.facts(node_id(doc, "b")).grad.array.tolist()
    )
    # memory: the strip's numbers and the inspector's breakdown are the new run's
    assert numbers(window.state.playhead.memory_steps()) == numbers(memory(ev))
    inspector = window.panel("inspector")
    label = inspector.findChild(type(inspector.title), "memoryBreakdown")
    assert label is not None and label.text() == breakdown_html(window.state)
    # what changed: a's value, and the values and gradients after it
    changes = window.instruments.changes.shown
    assert ("value", [1.0, 2.0], [0.5, -3.0]) in [
        (c.fact, c.before, c.after) for c in changes[node_id(doc, "a")]
    ]
    assert any(c.fact == "grad" for c in changes[node_id(doc, "b")])
    assert window.canvas.graph_scene.facts_of(node_id(doc, "a")).value == "[0.5, -3.]"
    # undo brings the remembered first run back, drawn as the first run
    with qtbot.waitSignal(window.runner.finished, timeout=15000):
        window.act_undo.trigger()
    assert window.state.evaluation is first
    assert picture(view) == fresh_picture(qtbot, view)
    assert numbers(window.state.playhead.memory_steps()) == numbers(memory(first))


def test_a_hidden_backward_graph_catches_up_when_shown(window, qtbot) -> None:  # noqa: ANN001
    view = open_program(qtbot, window)
    toggle = window.docks["backwardGraph"].toggleViewAction()
    toggle.trigger()
    qtbot.waitUntil(lambda: not view.isVisible())
    edit_and_run(qtbot, window, "b", [2.0, 0.25])
    edit_and_run(qtbot, window, "a", [-1.0, 4.0])
    toggle.trigger()
    qtbot.waitUntil(view.isVisible)
    assert picture(view) == fresh_picture(qtbot, view)


def test_a_rerun_keeps_the_position_and_shows_its_picture(window, qtbot) -> None:  # noqa: ANN001
    """Inside a replayed backward, and at a forward step before it, the view after a
    re-run is the one a new view draws there; moving on from it too."""
    view = open_program(qtbot, window)
    playhead = window.state.playhead
    window.act_fn_back.trigger()  # replaying the backward: one grad_fn still to run
    window.act_fn_back.trigger()
    position = (playhead.step, playhead.replay)
    assert position[1] is not None
    edit_and_run(qtbot, window, "a", [3.0, 3.0])
    assert (playhead.step, playhead.replay) == position
    assert view.current_key is not None
    assert picture(view) == fresh_picture(qtbot, view)
    for _ in range(3):
        window.act_step_back.trigger()
    position = (playhead.step, playhead.replay)
    edit_and_run(qtbot, window, "b", [-2.0, 5.0])
    assert (playhead.step, playhead.replay) == position
    assert picture(view) == fresh_picture(qtbot, view)
    for _ in range(3):
        window.act_step_next.trigger()
    assert playhead.at_end
    assert picture(view) == fresh_picture(qtbot, view)
