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
from PySide6.QtGui import QColor, QPalette

from gradstudio.document.layout import auto_layout
from gradstudio.document.model import Document
from gradstudio.interchange.examples import EXAMPLES
from tests.ui.test_playhead_views import (
    check_backward,
    check_canvas,
    check_inspector,
    open_example,
)
from tests.ui.uitools import wait_evaluated
from ui.backward.overview import OVERVIEW_LOD
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


def in_detail(view: BackwardView) -> None:
    """Zoom the view in far enough for its items to draw (a small dock may fit the
    graph below the overview's threshold)."""
    scale = view.view.transform().m11()
    if scale < OVERVIEW_LOD:
        view.view.zoom(OVERVIEW_LOD * 1.5 / scale)
    assert view.detail


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
    in_detail(view)  # the items draw (far out they wait: the test after the next)
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


def overview_batches(view: BackwardView) -> list:
    """What the backward view's overview draws: per batch its style and its shapes."""
    return overview_paths(view.overview._batch(QColor("#3d7be0")))


def overview_paths(batches: list) -> list:
    """Batches of the backward view's overview as plain data: style and shapes."""
    out = []
    for kind, colour, width, shapes in batches:
        if kind == "edge":
            drawn = [
                (e.type, round(e.x, 3), round(e.y, 3))
                for e in map(shapes.elementAt, range(shapes.elementCount()))
            ]
        else:
            drawn = [r.getRect() for r in shapes]
        out.append((kind, colour.rgba(), width, drawn))
    return out


@pytest.mark.parametrize("name", [e.name for e in EXAMPLES])
def test_zoomed_far_out_the_overview_draws_the_position_before_the_items_catch_up(
    window: MainWindow,
    qtbot,  # noqa: ANN001
    example_paths,  # noqa: ANN001
    name: str,
) -> None:
    """Far out, a scrub restyles no hidden item: once the timeline rests the overview
    draws the model and the gradients at the position, exactly as it draws the items
    once they are brought up to date; zooming back in (or asking the view) brings
    them, as a full redraw would."""
    open_example(window, qtbot, example_paths[name])
    playhead = window.state.playhead
    view = window.panel("backwardGraph")
    assert isinstance(view, BackwardView)
    view.view.zoom(0.02)
    assert not view.detail
    positions = playhead.positions()
    rng = random.Random(name)
    order = positions[::-1][:12] + rng.sample(positions, min(len(positions), 12))
    waited = False
    for i, (step, replay) in enumerate(order):
        playhead.set_position(step, replay)
        if i % 2:  # dragging on: the overview catches up once the timeline rests
            playhead.set_position(*order[i - 1])
            playhead.set_position(step, replay)
        waited |= view._deferred
        qtbot.waitUntil(lambda: not view._overview_timer.isActive())
        ahead = overview_batches(view)
        if i % 3:
            continue
        view.sync_items()
        assert overview_batches(view) == ahead, (name, step, replay)
        check_backward(view, playhead)
        assert backward_state(view) == redrawn(window, view)[1], (name, step, replay)
    assert waited  # the items did wait
    view.view.fit()
    playhead.set_position(*order[0])
    view.view.zoom(0.02)
    playhead.set_position(*order[-1])
    view.view.zoom(100.0)  # back in: the items show the position
    assert view.detail
    assert backward_state(view) == redrawn(window, view)[1]


def test_cards_and_wires_restyled_far_out_are_repainted_when_zoomed_back_in(
    window: MainWindow,
    qtbot,  # noqa: ANN001
    example_paths,  # noqa: ANN001
) -> None:
    """Far out the canvas's overview draws the graph and a scrub repaints no card or
    wire (they paint nothing, or are hidden); zoomed back in, each one restyled meanwhile
    must show the position, not its cached picture.  The oracle: every item repainted."""
    from ui.canvas.overview import OVERVIEW_LOD as CANVAS_LOD

    open_example(window, qtbot, example_paths[EXAMPLES[0].name])
    canvas, playhead = window.canvas, window.state.playhead
    scene = canvas.graph_scene
    canvas.zoom_reset()
    canvas.centerOn(scene.overview.boundingRect().center())
    canvas.viewport().grab()  # the cards and wires cache their pictures at the end
    for step, replay in playhead.positions()[:: max(1, len(playhead.positions()) // 4)]:
        canvas.set_zoom(CANVAS_LOD / 2)
        assert scene.overview_on
        playhead.set_position(step, replay)
        canvas.viewport().grab()
        canvas.zoom_reset()
        canvas.centerOn(scene.overview.boundingRect().center())
        shown = canvas.viewport().grab().toImage()
        for item in (*scene.node_items(), *scene.edge_items()):
            item.update()
        assert shown == canvas.viewport().grab().toImage(), (step, replay)


def chain_document(length: int = 60) -> Document:
    """A leaf and a chain of ``length`` operations after it, laid out as a saved file is:
    wider than any window at 100 %, so that most cards are off screen there."""
    doc = Document(trusted=True)
    leaf = doc.new_node("torch.tensor", (0, 0), {"data": [0.5, -1.0], "requires_grad": True}, "w")
    doc.add_node(leaf)
    last = leaf.id
    for i in range(length):
        node = doc.new_node(("torch.tanh", "torch.sigmoid", "torch.exp")[i % 3], (0, 0))
        doc.add_node(node)
        doc.connect(last, "out", node.id, "input")
        last = node.id
    total = doc.new_node("torch.sum", (0, 0), label="loss")
    doc.add_node(total)
    doc.connect(last, "out", total.id, "input")
    backward = doc.new_node("Tensor.backward", (0, 0))
    doc.add_node(backward)
    doc.connect(total.id, "out", backward.id, "input")
    for node_id, (x, y) in auto_layout(doc).items():
        doc.move_node(node_id, x, y)
    return doc


def test_cards_restyled_off_screen_are_repainted_once_they_come_into_view(
    window: MainWindow,
    qtbot,  # noqa: ANN001
) -> None:
    """Zoomed in, a scrub repaints only the cards and wires on screen: the others take
    their facts at once but keep their cached pictures until a view shows them (panned
    to, or a grown window).  Each then must show the position, as the inspector does.
    The oracle: the view after every item is repainted."""
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        window.set_document(chain_document())
    wait_evaluated(qtbot, window)
    canvas, playhead, state = window.canvas, window.state.playhead, window.state
    scene = canvas.graph_scene
    cards = sorted(scene.node_items(), key=lambda card: card.x())
    canvas.zoom_reset()
    assert not scene.overview_on
    for card in cards:  # every card and wire caches its picture at the end
        canvas.centerOn(card)
        canvas.viewport().grab()
    canvas.centerOn(cards[0])
    timeline = window.panel("timeline")
    timeline.first_button.click()  # the first step: every card after it turns pending
    assert playhead.effective_step == 0
    for _ in range(len(cards) // 2):
        window.act_step_next.trigger()
    assert scene._put_off, "the scrub put off the cards off screen"
    inspector = window.panel("inspector")
    for card in cards[1:]:
        canvas.pan_by(-(canvas.mapFromScene(card.pos()).x() - 20), 0)  # as a drag does
        shown = canvas.viewport().grab().toImage()
        assert card not in scene._put_off
        for item in (*scene.node_items(), *scene.edge_items()):
            item.update()
        assert shown == canvas.viewport().grab().toImage(), card.node.label
        drawn = {where: text for where, text, _ in card.drawn_texts()}
        if card.facts.status == "ok" and card.facts.tensor is not None:
            assert drawn.get("value") == card.facts.value, card.node.label
            state.select((card.node_id,))
            qtbot.waitUntil(lambda card=card: inspector.node_id == card.node_id)
            check_inspector(inspector, playhead)
            assert inspector.facts() is card.facts.tensor
    timeline.last_button.click()  # back at the end, then a window grown to show more cards
    canvas.centerOn(cards[0])
    canvas.viewport().grab()
    timeline.first_button.click()
    width = canvas.viewport().width()
    window.resize(window.width() + 600, window.height())
    qtbot.waitUntil(lambda: canvas.viewport().width() > width)
    shown = canvas.viewport().grab().toImage()
    for item in (*scene.node_items(), *scene.edge_items()):
        item.update()
    assert shown == canvas.viewport().grab().toImage()
    timeline.last_button.click()  # and zoomed out, still above the overview's zoom
    canvas.zoom_reset()
    canvas.centerOn(cards[0])
    canvas.viewport().grab()
    timeline.first_button.click()
    canvas.zoom_out()
    assert not scene.overview_on
    shown = canvas.viewport().grab().toImage()
    for item in (*scene.node_items(), *scene.edge_items()):
        item.update()
    assert shown == canvas.viewport().grab().toImage()


def test_a_big_graph_catches_up_at_rest_a_chunk_per_tick_as_a_full_redraw_draws(
    window: MainWindow,
    qtbot,  # noqa: ANN001
    monkeypatch,  # noqa: ANN001
) -> None:
    """Far out, once the timeline rests, a big graph's model and overview are brought
    to the position a chunk per idle tick (a jump walks thousands of grad_fns: done at
    once, the window would stop answering for a tenth of a second).  The picture shown
    then is the one made at once, and the items brought up later agree with it.  Chunks
    are made tiny here so that a small graph takes many ticks."""
    from ui.backward import overview, scrub_model
    from ui.backward import view_catch_up as view_module

    monkeypatch.setattr(view_module, "CATCH_UP_BOXES", 0)
    monkeypatch.setattr(scrub_model, "REBUILD_CHUNK", 2)
    monkeypatch.setattr(overview, "BATCH_CHUNK", 2)
    ticks: list[int] = []
    meanwhile: list = []  # what the user does while the view catches up
    catch_tick = BackwardView._catch_tick

    def tick(self: BackwardView) -> None:
        ticks.append(1)
        if meanwhile:
            meanwhile.pop()()
        catch_tick(self)

    monkeypatch.setattr(BackwardView, "_catch_tick", tick)
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        window.set_document(chain_document(30))
    wait_evaluated(qtbot, window)
    playhead = window.state.playhead
    view = window.panel("backwardGraph")
    assert isinstance(view, BackwardView)
    view.finish_layout()
    view.view.zoom(0.02)
    assert not view.detail
    positions = playhead.positions()
    rng = random.Random(7)
    for i, (step, replay) in enumerate(positions[::-1][:6] + rng.sample(positions, 6)):
        ticks.clear()
        playhead.set_position(step, replay)
        if i % 2:  # moved on while catching up: it catches up once more after
            there = (step, replay)
            meanwhile.append(
                lambda there=there: (
                    playhead.set_position(*positions[0]),
                    playhead.set_position(*there),
                )
            )
        qtbot.waitUntil(lambda: not view._overview_timer.isActive() and not view.catching_up)
        shown = view.overview._paths
        assert shown is not None
        assert len(ticks) > 2, "in chunks, a tick each"
        view.view.grab()
        assert shown is view.overview._paths  # nothing made again to paint
        highlight = view.view.viewport().palette().color(QPalette.ColorRole.Highlight)
        at_once = view.overview._batch(highlight)  # from the model, made at once
        assert overview_paths(shown) == overview_paths(at_once), (step, replay)
        drawn = overview_batches(view)
        if i % 3:
            continue
        view.sync_items()
        assert overview_batches(view) == drawn, (step, replay)
        check_backward(view, playhead)
        assert backward_state(view) == redrawn(window, view)[1], (step, replay)
        view.view.zoom(0.02 / view.view.transform().m11())  # far out again


def test_cards_restyled_inside_a_collapsed_group_are_repainted_once_it_expands(
    window: MainWindow,
    qtbot,  # noqa: ANN001
) -> None:
    """A card or wire hidden in a collapsed group when a scrub restyles it repaints
    once the group expands (Edit > Collapse/Expand Group), not only when panned to."""
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        window.set_document(chain_document(12))
    wait_evaluated(qtbot, window)
    canvas, playhead = window.canvas, window.state.playhead
    scene = canvas.graph_scene
    cards = sorted(scene.node_items(), key=lambda card: card.x())
    canvas.zoom_reset()
    canvas.centerOn(cards[4])
    canvas.viewport().grab()  # the cards and wires cache their pictures at the end
    window.state.select(tuple(card.node_id for card in cards[3:6]))
    window.act_group.trigger()
    window.act_collapse.trigger()
    assert not cards[4].isVisible()
    window.panel("timeline").first_button.click()  # everything after the leaf turns pending
    assert playhead.effective_step == 0 and cards[4].facts.status == "pending"
    window.act_collapse.trigger()
    assert cards[4].isVisible()
    shown = canvas.viewport().grab().toImage()
    for item in (*scene.node_items(), *scene.edge_items()):
        item.update()
    assert shown == canvas.viewport().grab().toImage()
