"""A scrub updates only what changed: the views end up as if redrawn from scratch.

The canvas and the backward-graph view re-read only the nodes, boxes and links
that differ between the position before and the position now.  The oracle is the
view redrawn in full at the same position: after jumping between positions in a
scrambled order (replays inside backward steps and selections included), every
item must be in the state a full redraw gives it.
"""

from __future__ import annotations

import random

import pytest

from gradstudio.interchange.examples import EXAMPLES
from tests.ui.test_playhead_views import check_backward, check_canvas, open_example
from ui.backward.view import BackwardView
from ui.window.main_window import MainWindow

pytestmark = pytest.mark.gui


def backward_state(view: BackwardView) -> dict:
    boxes = {
        box_id: (item.shown, item.box, item.selected, item.executed, item.current, item.output)
        for box_id, item in view.boxes.items()
    }
    links = [(li.link, li.shown, li.flow, li.strong) for li in view.links]
    return {"boxes": boxes, "links": links, "pills": view.pill_layer.pills}


def canvas_state(window: MainWindow) -> dict:
    scene = window.canvas.graph_scene
    nodes = {i.node_id: (i.facts, i.dimmed) for i in scene.node_items()}
    edges = [e.carries_grad for e in scene.edge_items()]
    overview = scene.overview
    overview.boundingRect()  # measured, as a paint would
    groups = {
        key: sorted(
            (s.x1(), s.y1(), s.x2(), s.y2()) if key[0] == "wire" else s.getRect() for s in shapes
        )
        for key, shapes in overview._group().items()
    }
    return {"nodes": nodes, "edges": edges, "overview": groups}


def redrawn(window: MainWindow, view: BackwardView) -> tuple[dict, dict]:
    """The state of both views after a full redraw at the same position."""
    scene = window.canvas.graph_scene
    scene._facts_key = None
    scene.refresh_facts()
    view._applied_model = view._applied_flow = view._applied_selection = None
    view._model_key = None
    view.refresh()
    return canvas_state(window), backward_state(view)


@pytest.mark.parametrize("name", [e.name for e in EXAMPLES])
def test_scrambled_scrub_equals_a_full_redraw(
    window: MainWindow,
    qtbot,  # noqa: ANN001
    example_paths,  # noqa: ANN001
    name: str,
) -> None:
    open_example(window, qtbot, example_paths[name])
    playhead = window.state.playhead
    view = window.panel("backwardGraph")
    assert isinstance(view, BackwardView)
    positions = playhead.positions()
    rng = random.Random(name)
    order = positions + rng.sample(positions, len(positions)) + positions[::-1]
    nodes = [n.id for n in window.state.document.nodes()]
    for i, (step, replay) in enumerate(order):
        if i % 3 == 0:
            window.canvas.select_nodes([rng.choice(nodes)])
        playhead.set_position(step, replay)
        check_canvas(window, playhead)
        check_backward(view, playhead)
        scrubbed = canvas_state(window), backward_state(view)
        assert scrubbed == redrawn(window, view), (name, step, replay)


def test_a_hidden_backward_view_waits_and_catches_up_when_shown(
    window: MainWindow,
    qtbot,  # noqa: ANN001
    example_paths,  # noqa: ANN001
) -> None:
    name = EXAMPLES[0].name
    open_example(window, qtbot, example_paths[name])
    playhead = window.state.playhead
    view = window.panel("backwardGraph")
    assert isinstance(view, BackwardView) and view.isVisible()
    toggle = window.docks["backwardGraph"].toggleViewAction()
    toggle.trigger()  # the user closes the dock
    qtbot.waitUntil(lambda: not view.isVisible())
    before = backward_state(view)
    positions = playhead.positions()
    for step, replay in positions[len(positions) // 2 :: -1]:
        playhead.set_position(step, replay)
    assert backward_state(view) == before  # nothing redrawn while hidden
    toggle.trigger()
    qtbot.waitUntil(view.isVisible)
    check_backward(view, playhead)
    assert backward_state(view) == redrawn(window, view)[1]
