"""The panels never hide the answer (issue 30): the backward graph's heading stays put and
its graph is fitted after every change a learner makes; the inspector's facts come first,
above the fold; nodes that Backward from Selection and Zero Grads add land in view."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QScrollArea

from tests.ui.test_running import build_seed_001
from tests.ui.uitools import wait_evaluated
from ui.backward.view import BackwardView
from ui.window.examples import example_files
from ui.window.main_window import MainWindow

pytestmark = pytest.mark.gui


def fitted(view: BackwardView) -> bool:
    """Every box shown whole, and the graph filling the view along one side (or at the
    largest fit zoom): what Fit does, not a corner of it nor a speck."""
    boxes = view.visible_boxes()
    if not boxes:
        return False
    port = view.view.viewport().rect()
    shown = view.view.mapToScene(port).boundingRect()
    graph = QRectF()
    for box in boxes:
        graph = graph.united(box.sceneBoundingRect())
    if not shown.adjusted(-1, -1, 1, 1).contains(graph):
        return False
    scale = view.view.transform().m11()
    fills = max(graph.width() * scale / port.width(), graph.height() * scale / port.height())
    return fills > 0.6 or scale >= 1.39


def open_seed(qtbot, window: MainWindow, size: tuple[int, int]) -> BackwardView:  # noqa: ANN001
    window.resize(*size)
    example = next(e for e in example_files() if e.name == "001_leaf_grad")
    assert window.open_example(example, ask=False)
    wait_evaluated(qtbot, window)
    view = window.backward_view
    qtbot.waitUntil(lambda: fitted(view))
    return view


@pytest.mark.parametrize("size", [(1440, 900), (1280, 720)])
def test_the_heading_stays_and_the_graph_is_fitted_after_each_change(qtbot, window, size) -> None:  # noqa: ANN001
    view = open_seed(qtbot, window, size)
    dock = window.docks["backwardGraph"]
    assert dock.widget() is view  # no scroll area to carry the heading away
    assert not any(isinstance(w.parentWidget(), QScrollArea) for w in (view, view.status))
    window.act_backward_big.trigger()  # Ctrl+Shift+B: to its tab ...
    qtbot.waitUntil(lambda: view.view.viewport().width() > 700 and fitted(view))
    window.act_backward_big.trigger()  # ... and back
    qtbot.waitUntil(lambda: dock.isVisible() and fitted(view))
    with qtbot.waitSignal(window.runner.finished, timeout=10000):
        window.act_zero.trigger()
    qtbot.waitUntil(lambda: fitted(view))
    window.resize(size[0] - 200, size[1] - 100)
    qtbot.waitUntil(lambda: fitted(view))


def test_a_hand_zoom_is_kept_across_a_resize(qtbot, window) -> None:  # noqa: ANN001
    view = open_seed(qtbot, window, (1440, 900))
    view.zoom_in_button.click()
    scale = view.view.transform().m11()
    window.resize(1300, 800)
    qtbot.waitUntil(lambda: view.view.viewport().height() < 800)
    assert view.view.transform().m11() == scale and not view.view.auto_fit


def test_the_inspector_shows_the_facts_above_the_fold(qtbot, window) -> None:  # noqa: ANN001
    open_seed(qtbot, window, (1440, 900))
    inspector = window.panel("inspector")
    checked = 0
    for node in window.state.document.nodes():
        window.canvas.select_nodes([node.id])
        qtbot.waitUntil(lambda n=node.id: inspector.node_id == n)
        scroll = inspector.scroll
        port = scroll.viewport()
        names = ["requires_grad", "grad"] if "requires_grad" in inspector.fact_labels else []
        widgets = [inspector.fact_labels[n] for n in names]
        if inspector.problem_label.isVisibleTo(inspector):
            widgets.append(inspector.problem_label)
        for widget in [w for w in widgets if w.isVisibleTo(inspector)]:
            checked += 1
            bottom = widget.mapTo(port, widget.rect().bottomLeft()).y()
            assert scroll.verticalScrollBar().value() == 0
            assert bottom <= port.height(), (node.label, widget.objectName(), bottom)
        # the facts come before the editors
        facts_y = inspector.facts_section.mapTo(port, inspector.facts_section.rect().topLeft())
        label_y = inspector.label_edit.mapTo(port, inspector.label_edit.rect().topLeft())
        assert facts_y.y() < label_y.y()
    assert checked >= 6  # requires_grad and .grad of w, x, y at least


def _in_view(window: MainWindow, node_id: str) -> bool:
    canvas = window.canvas
    item = canvas.graph_scene.node_item(node_id)
    shown = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
    return item is not None and shown.contains(item.sceneBoundingRect())


def test_backward_and_zero_grads_land_in_view(qtbot, window) -> None:  # noqa: ANN001
    ids = build_seed_001(window)
    window.canvas.fit_all([window.canvas.graph_scene.node_item(ids["w"])])
    window.canvas.zoom_in()
    window.canvas.select_nodes([ids["y"]])
    with qtbot.waitSignal(window.runner.finished, timeout=10000):
        window.act_backward.trigger()
    doc = window.state.document
    (backward,) = [n for n in doc.nodes() if n.type_id == "Tensor.backward"]
    assert _in_view(window, backward.id)
    window.canvas.fit_all([window.canvas.graph_scene.node_item(ids["y"])])
    with qtbot.waitSignal(window.runner.finished, timeout=10000):
        window.act_zero.trigger()
    (zero,) = [n for n in doc.nodes() if n.type_id == "gradstudio.zero_grad"]
    assert _in_view(window, zero.id)
