"""The backward-graph view: torchviz's picture of seed 001, selection sync, gradients."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from gradstudio.document.model import Document
from gradstudio.evaluation.grad_fn_index import index_for
from tests.gradstudio.snippets import SEED_001
from tests.ui.uitools import make_state, node_id
from ui.backward.item_style import FLOW, FN_FILL, LEAF_FILL, OUTPUT_FILL, SAVED_FILL
from ui.backward.model import layout, model_at
from ui.backward.view import BackwardView
from ui.state import StudioState

pytestmark = pytest.mark.gui


def grad_fn_key(state: StudioState, label: str) -> int:
    return state.playhead.snapshot().facts(node_id(state.document, label)).grad_fn.key


@pytest.fixture
def seed(qtbot) -> tuple[StudioState, BackwardView]:  # noqa: ANN001
    return shown_view(qtbot, make_state(SEED_001))


def shown_view(qtbot, state: StudioState) -> tuple[StudioState, BackwardView]:  # noqa: ANN001
    """A backward view of ``state``, 700 × 520, shown and exposed."""
    view = BackwardView(state)
    qtbot.addWidget(view)
    view.resize(700, 520)
    view.show()
    qtbot.waitExposed(view)
    return state, view


def test_seed_001_accumulate_grad_for_w_and_x(seed) -> None:  # noqa: ANN001
    state, view = seed
    assert view.objectName() == "backwardGraph"
    names = sorted(item.box.title for item in view.visible_boxes("fn"))
    assert names == sorted(
        ["MulBackward0", "AddBackward0", "AddBackward0", "AccumulateGrad", "AccumulateGrad"]
    )
    leaves = {item.box.title: item for item in view.visible_boxes("leaf")}
    assert set(leaves) == {"w", "x"}
    for label, leaf in leaves.items():
        acc = view.fn_item(leaf.box.key)
        assert acc is not None and acc.box.title == "AccumulateGrad"
        assert leaf.box.node_id == node_id(state.document, label)
        link = next(li for li in view.links if li.link.flow == ("acc", leaf.box.key))
        assert (
            link.link.tail == leaf.box.id and link.link.head == acc.box.id
        )  # leaf → AccumulateGrad
    outputs = view.visible_boxes("out")
    assert [o.box.title for o in outputs] == ["y"]


def test_torchviz_colours(seed) -> None:  # noqa: ANN001
    state, view = seed
    assert LEAF_FILL.name() == "#add8e6"  # lightblue
    assert FN_FILL.name() == "#d3d3d3"  # lightgrey
    assert SAVED_FILL.name() == "#ffa500"  # orange
    assert OUTPUT_FILL.name() == "#caff70"  # darkolivegreen1
    colours = {item.box.kind: item.fill.name() for item in view.visible_boxes()}
    assert colours["leaf"] == "#add8e6"
    assert colours["fn"] == "#d3d3d3"
    assert colours["out"] == "#caff70"
    # before backward, MulBackward0 holds its saved tensors (orange); after, they are freed
    state.playhead.set_position(state.document.step_of(node_id(state.document, "y")))
    saved = view.visible_boxes("saved")
    assert sorted(s.box.title for s in saved) == ["other", "self"]
    assert all(s.fill.name() == "#ffa500" and not s.box.faded for s in saved)
    state.playhead.set_position(-1)
    assert all(s.box.faded and s.box.subtitle == "freed" for s in view.visible_boxes("saved"))


def test_gradients_flow_along_edges(seed) -> None:  # noqa: ANN001
    state, view = seed
    w_acc = view.visible_boxes("leaf")
    w_key = next(i.box.key for i in w_acc if i.box.title == "w")
    np.testing.assert_array_equal(view.link_flow(("acc", w_key)).array, [5.0])
    y_key = grad_fn_key(state, "y")
    np.testing.assert_array_equal(view.link_flow(("out", y_key)).array, [1.0])
    # MulBackward0 sends b = 2 to a's AddBackward0 (slot 0) and a = 3 to b's (slot 1)
    np.testing.assert_array_equal(view.link_flow(("next", y_key, 0)).array, [2.0])
    np.testing.assert_array_equal(view.link_flow(("next", y_key, 1)).array, [3.0])
    # before backward nothing has flowed
    state.playhead.set_position(state.document.step_of(node_id(state.document, "y")))
    assert view.link_flow(("next", y_key, 0)) is None


def test_clicking_a_grad_fn_selects_its_node(qtbot, seed) -> None:  # noqa: ANN001
    state, view = seed
    key = grad_fn_key(state, "a")
    item = view.fn_item(key)
    view.view.fit()
    pos = view.view.mapFromScene(item.scenePos())
    with qtbot.waitSignal(state.selectionChanged):
        qtbot.mouseClick(view.view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert state.selection == (node_id(state.document, "a"),)
    assert state.grad_fn_key == str(key)
    assert item.selected


def test_clicking_a_leaf_selects_its_node_and_accumulate_grad(seed) -> None:  # noqa: ANN001
    state, view = seed
    leaf = next(i for i in view.visible_boxes("leaf") if i.box.title == "x")
    view.click_box(leaf.box.id)
    assert state.selection == (node_id(state.document, "x"),)
    assert state.grad_fn_key == str(leaf.box.key)
    assert leaf.selected and view.fn_item(leaf.box.key).selected


def test_selecting_a_node_highlights_its_grad_fn(seed) -> None:  # noqa: ANN001
    state, view = seed
    key = grad_fn_key(state, "b")
    with_signal = []
    state.gradFnSelected.connect(with_signal.append)
    state.select([node_id(state.document, "b")])
    assert view.selected_key == key
    assert view.fn_item(key).selected
    assert with_signal == [str(key)]
    # a leaf selects its AccumulateGrad
    state.select([node_id(state.document, "w")])
    leaf = next(i for i in view.visible_boxes("leaf") if i.box.title == "w")
    assert view.selected_key == leaf.box.key
    state.select(())
    assert view.selected_key is None and state.grad_fn_key == ""


def test_grad_fn_selected_elsewhere_is_highlighted(seed) -> None:  # noqa: ANN001
    state, view = seed
    key = grad_fn_key(state, "y")
    state.select_grad_fn(str(key))
    assert view.fn_item(key).selected


def test_replay_highlights_the_executing_grad_fn(seed) -> None:  # noqa: ANN001
    state, view = seed
    trace = state.evaluation.traces[0]
    state.playhead.set_position(-1, 0)
    assert view.current_key is None and view.executed_keys == ()
    assert view.link_flow(("out", grad_fn_key(state, "y"))) is None
    state.playhead.set_position(-1, 2)
    assert view.current_key == trace.executions[1].key
    assert view.executed_keys == (trace.executions[0].key, trace.executions[1].key)
    assert view.fn_item(view.current_key).current
    assert not view.fn_item(trace.executions[2].key).executed
    assert "replaying" in view.status.text()


def test_the_graph_grows_along_the_timeline_without_relayout(seed) -> None:  # noqa: ANN001
    state, view = seed
    items = dict(view.boxes)
    state.playhead.set_position(node_id_step(state, "a"))
    assert [i.box.title for i in view.visible_boxes("fn")].count("AccumulateGrad") == 2
    assert view.fn_item(grad_fn_key(state, "a")) is not None
    a_out = view.visible_boxes("out")
    assert a_out == [] and view.fn_item(grad_fn_key(state, "a")).output  # a is an output now
    assert view.fn_item(grad_fn_key_final(state, "y")) is None
    state.playhead.set_position(0)  # only w exists: no graph yet
    assert view.visible_boxes() == []
    assert view._message is not None and view._message.isVisible()
    state.playhead.set_position(-1)
    assert view.boxes == items  # same items: scrubbing never rebuilds the scene


def node_id_step(state: StudioState, label: str) -> int:
    return state.document.step_of(node_id(state.document, label))


def grad_fn_key_final(state: StudioState, label: str) -> int:
    return state.evaluation.final.facts(node_id(state.document, label)).grad_fn.key


def test_orientation_and_saved_toggle(seed) -> None:  # noqa: ANN001
    _, view = seed
    view.set_vertical(True)
    leaf = next(i for i in view.visible_boxes("leaf"))
    out = view.visible_boxes("out")[0]
    assert leaf.pos().y() < out.pos().y()  # torchviz: leaves at the top, outputs below
    view.set_vertical(False)
    leaf = next(i for i in view.visible_boxes("leaf"))
    out = view.visible_boxes("out")[0]
    assert leaf.pos().x() < out.pos().x()
    view.set_show_saved(False)
    assert view.visible_boxes("saved") == []


def test_no_evaluation_shows_a_message(qtbot) -> None:  # noqa: ANN001
    state = StudioState(Document())
    view = BackwardView(state)
    qtbot.addWidget(view)
    assert view.boxes == {}
    assert "Run the graph" in view._message.text()


def test_hundreds_of_grad_fns_lay_out_and_scrub(qtbot) -> None:  # noqa: ANN001
    lines = ["import torch", "w = torch.tensor([[0.5, 0.1], [0.2, 0.3]], requires_grad=True)"]
    lines.append("h0 = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)")
    for i in range(150):
        lines.append(f"h{i + 1} = torch.sin(torch.mul(h{i}, w))")
    lines += [f"loss = h{150}.sum()", "loss.backward()"]
    state = make_state("\n".join(lines) + "\n")
    view = BackwardView(state)
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    assert len(view.visible_boxes("fn")) > 300
    positions = layout(
        model_at(state.evaluation, state.playhead.snapshot(), index_for(state.evaluation)),
        {box_id: (item.w, item.h) for box_id, item in view.boxes.items()},
    )
    assert len(positions) >= len(view.visible_boxes())
    items = dict(view.boxes)
    for step in range(len(state.evaluation.steps) - 1, len(state.evaluation.steps) - 20, -1):
        state.playhead.set_position(step)
    for replay in range(0, 30):
        state.playhead.set_position(-1, replay)
    assert view.boxes == items
    assert view.current_key == state.evaluation.traces[0].executions[28].key  # 29 run so far


def test_zoomed_far_out_the_overview_draws_and_clicks_still_select(qtbot, seed) -> None:  # noqa: ANN001
    state, view = seed
    key = grad_fn_key(state, "a")
    item = view.fn_item(key)
    assert view.detail and item.isVisible() and not view.overview.isVisible()
    view.view.zoom(0.05)  # far below the scale where any label is readable
    assert not view.detail
    assert not item.isVisible() and not any(li.isVisible() for li in view.links)
    assert view.overview.isVisible() and view.fn_item(key) is item  # still part of the graph
    # the overview paints the same picture: a fill per torchviz colour, edges in flow colour
    view.view.grab()
    batches = view.overview._paths
    assert batches is not None
    fills = {colour.name() for kind, colour, _, _ in batches if kind == "fill"}
    assert {LEAF_FILL.name(), FN_FILL.name(), OUTPUT_FILL.name()} <= fills
    assert any(kind == "edge" and colour == FLOW for kind, colour, _, _ in batches)
    view.view.centerOn(item.scenePos())
    pos = view.view.mapFromScene(item.scenePos())
    with qtbot.waitSignal(state.selectionChanged):
        qtbot.mouseClick(view.view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert state.selection == (node_id(state.document, "a"),) and item.selected
    view.view.fit()
    assert view.detail and item.isVisible() and not view.overview.isVisible()


def test_scrubbing_in_overview_keeps_items_hidden(seed) -> None:  # noqa: ANN001
    state, view = seed
    view.view.zoom(0.05)
    state.playhead.set_position(node_id_step(state, "a"))
    state.playhead.set_position(-1)
    assert not any(b.isVisible() for b in view.boxes.values())
    assert {b.box.title for b in view.visible_boxes("leaf")} == {"w", "x"}  # shown, by overview
    view.view.zoom(40.0)
    assert all(b.isVisible() == b.shown for b in view.boxes.values())


def test_the_overview_catches_up_once_the_timeline_rests(qtbot, seed) -> None:  # noqa: ANN001
    state, view = seed
    view.view.zoom(0.05)

    def flowing_edges() -> bool:
        view.view.grab()
        paths = view.overview._paths
        assert paths is not None
        return any(kind == "edge" and colour == FLOW for kind, colour, _, _ in paths)

    assert flowing_edges()  # at the end: backward has run
    state.playhead.set_position(node_id_step(state, "a"))  # before it ran
    qtbot.waitUntil(lambda: not view._overview_timer.isActive())
    assert not flowing_edges()
    state.playhead.set_position(-1)
    state.playhead.set_position(state.playhead.step_count - 1)
    qtbot.waitUntil(lambda: not view._overview_timer.isActive())
    assert flowing_edges()


def test_box_tooltips_come_from_the_view(qtbot, seed) -> None:  # noqa: ANN001
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    state, view = seed
    item = view.fn_item(grad_fn_key(state, "y"))
    pos = view.view.mapFromScene(item.scenePos())
    event = QHelpEvent(QEvent.Type.ToolTip, pos, view.view.viewport().mapToGlobal(pos))
    QApplication.sendEvent(view.view.viewport(), event)
    qtbot.waitUntil(QToolTip.isVisible)
    assert QToolTip.text().startswith("MulBackward0") and "next_functions" in QToolTip.text()
    empty = QPoint(2, 2)
    event = QHelpEvent(QEvent.Type.ToolTip, empty, view.view.viewport().mapToGlobal(empty))
    QApplication.sendEvent(view.view.viewport(), event)
    qtbot.waitUntil(lambda: not QToolTip.isVisible())


def chain_state(n: int = 40) -> StudioState:
    lines = ["import torch", "h0 = torch.tensor([1.0, 2.0], requires_grad=True)"]
    lines += [f"h{i + 1} = torch.sin(h{i})" for i in range(n)]
    lines += [f"loss = h{n}.sum()", "loss.backward()"]
    return make_state("\n".join(lines) + "\n")


def test_orientation_follows_the_panel_until_the_user_picks_one(qtbot) -> None:  # noqa: ANN001
    state = chain_state()
    view = BackwardView(state)
    qtbot.addWidget(view)
    view.resize(420, 900)  # a tall dock: torchviz's top-to-bottom
    view.show()
    qtbot.waitExposed(view)
    view.refresh()
    assert view.best_orientation() is True
    view.resize(1400, 260)  # docked along the bottom: a long chain reads left to right
    qtbot.waitUntil(lambda: view.vertical is False)
    leaf = view.visible_boxes("leaf")[0]
    out = view.visible_boxes("out")[0]
    assert leaf.pos().x() < out.pos().x()
    assert view.orientation_button.text() == "⇄" and not view.orientation_button.isChecked()
    view.set_vertical(True)  # the user's choice sticks
    view.resize(1500, 250)
    qtbot.waitUntil(lambda: not view._reorient_timer.isActive())  # any pending check has run
    assert view.vertical is True and not view.orientation_auto


def test_a_rerun_of_the_same_graph_keeps_the_scene_and_shows_new_gradients(seed) -> None:  # noqa: ANN001
    from gradstudio.evaluation.evaluate import evaluate

    state, view = seed
    items, links = dict(view.boxes), list(view.links)
    drawn = {k: b for k, b in view._union.boxes.items() if k[0] in ("fn", "saved")}
    w = node_id(state.document, "w")
    state.document.set_param(w, "data", [4.0])  # y = (w + x)(w + 1): dy/dw = 2w + x + 1
    state.set_evaluation(evaluate(state.document))
    assert view.boxes == items and view.links == links  # no rebuild, no relayout
    # the equal grad_fns of the new run are drawn by the same boxes (compared by identity)
    assert all(view._union.boxes[k] is box for k, box in drawn.items())
    w_key = next(i.box.key for i in view.visible_boxes("leaf") if i.box.title == "w")
    np.testing.assert_array_equal(view.link_flow(("acc", w_key)).array, [11.0])
    state.document.set_param(w, "data", [[4.0]])  # a new shape: the boxes change
    state.set_evaluation(evaluate(state.document))
    assert view.boxes != items
    assert "(1, 1)" in {i.box.subtitle for i in view.visible_boxes("leaf")}


def test_a_big_graph_is_laid_out_on_a_thread_and_drawn_as_the_same_picture(
    qtbot,  # noqa: ANN001
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Over ``BACKGROUND_BOXES`` boxes the view says it is laying out, stays usable, and
    then shows exactly what laying out in place shows: same boxes, places and links."""
    import ui.backward.view_building as view_module

    def picture(view: BackwardView) -> tuple:
        boxes = sorted((repr(k), b.cx, b.cy, b.shown) for k, b in view.boxes.items())
        links = sorted((repr(li.link), li.shown) for li in view.links)
        return boxes, links, view.vertical

    pictures = []
    for limit in (10_000, 0):
        monkeypatch.setattr(view_module, "BACKGROUND_BOXES", limit)
        state, view = shown_view(qtbot, make_state(SEED_001))
        if limit == 0:
            assert view.laying_out and not view.boxes
            assert view._message.isVisible() and "Laying out" in view._message.text()
            state.playhead.set_position(1)  # the timeline moves on meanwhile
            qtbot.waitUntil(lambda v=view: not v.laying_out)
            state.playhead.set_position(-1)
            assert not view._message.isVisible()
        pictures.append(picture(view))
    assert pictures[0] == pictures[1] and pictures[0][0]
