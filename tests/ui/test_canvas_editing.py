"""Building a graph on the canvas the way a user does: palette, Tab search, wires, edits."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from gradstudio.document.layout import ROW_GAP
from tests.ui.uitools import (
    add_source,
    drag,
    node_view_pos,
    port_view_pos,
    run_and_wait,
)
from ui.canvas.style import NODE_WIDTH
from ui.canvas.view_quick_add import NODE_MIME

pytestmark = pytest.mark.gui


def drop_from_palette(window, type_id: str, at: QPoint) -> None:  # noqa: ANN001
    """Drag the palette's own data for ``type_id`` over the canvas and drop it at ``at``."""
    data = window.palette_widget.mime_for(type_id)
    viewport = window.canvas.viewport()
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    action = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(QPointF(at), action, data, buttons, mods)
    QApplication.sendEvent(viewport, enter)
    assert enter.isAccepted()
    QApplication.sendEvent(viewport, QDragMoveEvent(QPointF(at), action, data, buttons, mods))
    QApplication.sendEvent(viewport, QDropEvent(QPointF(at), action, data, buttons, mods))


def test_palette_lists_catalogue_by_category_and_searches(window) -> None:  # noqa: ANN001
    palette = window.palette_widget
    assert palette.objectName() == "palette"
    assert "torch.add" in palette.visible_types()
    palette.search.setText("matm")
    assert palette.visible_types()[0] == "torch.matmul"
    palette.search.setText("")
    assert len(palette.visible_types()) > 50


def test_drop_from_palette_adds_node_at_drop_point(window) -> None:  # noqa: ANN001
    at = QPoint(300, 200)
    drop_from_palette(window, "torch.add", at)
    doc = window.state.document
    assert len(doc) == 1
    node = doc.nodes()[0]
    assert node.type_id == "torch.add"
    scene_at = window.canvas.mapToScene(at)
    assert abs(node.x + NODE_WIDTH / 2 - scene_at.x()) < 2  # centred under the cursor
    assert window.state.selection == (node.id,)
    assert window.act_undo.text() == "&Undo Add add"


def test_palette_mime_carries_type(window) -> None:  # noqa: ANN001
    data = window.palette_widget.mime_for("torch.mul")
    assert bytes(data.data(NODE_MIME).data()) == b"torch.mul"


def test_double_click_in_palette_adds_node(window, qtbot) -> None:  # noqa: ANN001
    palette = window.palette_widget
    palette.search.setText("sigmoid")
    QTest.keyClick(palette.search, Qt.Key.Key_Return)
    assert [n.type_id for n in window.state.document.nodes()] == [palette.visible_types()[0]]


def test_tab_opens_quick_search_at_cursor_and_adds(window, qtbot) -> None:  # noqa: ANN001
    canvas = window.canvas
    canvas.setFocus()
    QTest.keyClick(canvas, Qt.Key.Key_Tab)
    popup = canvas.search
    qtbot.waitUntil(popup.isVisible)
    assert popup.objectName() == "nodeSearch"
    QTest.keyClicks(popup.field, "mul")
    assert popup.results()[0] == "torch.mul"
    QTest.keyClick(popup.field, Qt.Key.Key_Return)
    assert not popup.isVisible()
    assert [n.type_id for n in window.state.document.nodes()] == ["torch.mul"]


def test_quick_search_keyboard_navigation_and_escape(window, qtbot) -> None:  # noqa: ANN001
    canvas = window.canvas
    popup = canvas.open_search(QPoint(100, 100))
    qtbot.waitUntil(popup.isVisible)
    QTest.keyClicks(popup.field, "exp")
    first = popup.results()[0]
    QTest.keyClick(popup.field, Qt.Key.Key_Down)
    assert popup.list.currentRow() == 1
    QTest.keyClick(popup.field, Qt.Key.Key_Escape)
    assert not popup.isVisible()
    assert len(window.state.document) == 0
    assert first == "torch.exp"


def test_connect_ports_by_dragging_output_to_input(window, qtbot) -> None:  # noqa: ANN001
    w = add_source(window, "w", [1.0], True, (0, 0))
    a = window.canvas.add_node("torch.exp", QPointF(400, 60))
    window.canvas.fit_all()
    viewport = window.canvas.viewport()
    drag(viewport, port_view_pos(window, w, "out", False), port_view_pos(window, a, "input", True))
    edges = window.state.document.edges()
    assert [(e.src, e.src_port, e.dst, e.dst_port) for e in edges] == [(w, "out", a, "input")]
    assert window.canvas.graph_scene.edge_item(edges[0]) is not None
    assert window.act_undo.text().startswith("&Undo Connect w")


def test_connect_by_dragging_from_input_to_output(window) -> None:  # noqa: ANN001
    w = add_source(window, "w", [1.0], True, (0, 0))
    a = window.canvas.add_node("torch.exp", QPointF(400, 60))
    window.canvas.fit_all()
    viewport = window.canvas.viewport()
    drag(viewport, port_view_pos(window, a, "input", True), port_view_pos(window, w, "out", False))
    assert len(window.state.document.edges()) == 1


def test_wrong_port_type_is_refused_with_reason(window, qtbot) -> None:  # noqa: ANN001
    doc = window.state.document
    grad = window.canvas.add_node("torch.autograd.grad", QPointF(100, 100))
    exp = window.canvas.add_node("torch.exp", QPointF(500, 100))
    window.canvas.fit_all()
    messages: list[str] = []
    window.canvas.message.connect(messages.append)
    viewport = window.canvas.viewport()
    drag(
        viewport,
        port_view_pos(window, grad, "grads", False),
        port_view_pos(window, exp, "input", True),
    )
    assert doc.edges() == []
    assert messages and "list of tensors" in messages[-1]
    assert window.canvas.check_wire(
        window.canvas.graph_scene.node_item(grad).port("grads", False),
        window.canvas.graph_scene.node_item(exp).port("input", True),
    )


def test_wire_dropped_on_empty_canvas_offers_accepting_nodes(window, qtbot) -> None:  # noqa: ANN001
    w = add_source(window, "w", [1.0, 2.0], True, (0, 0))
    window.canvas.fit_all()
    window.canvas.set_zoom(0.8)
    viewport = window.canvas.viewport()
    start = port_view_pos(window, w, "out", False)
    drag(viewport, start, start + QPoint(200, 40))
    popup = window.canvas.search
    qtbot.waitUntil(popup.isVisible)
    results = popup.results()
    assert "torch.sum" in results
    assert "torch.tensor" not in results  # a source takes no input
    assert "gradstudio.select" not in results  # takes a list, not a tensor
    popup.set_query("sum")
    popup.choose_current()
    doc = window.state.document
    added = [n for n in doc.nodes() if n.type_id == "torch.sum"]
    assert len(added) == 1
    assert [(e.src, e.dst, e.dst_port) for e in doc.edges()] == [(w, added[0].id, "input")]
    assert window.act_undo.text() == "&Undo Add sum and connect"
    window.bridge.undo()
    assert len(doc) == 1 and doc.edges() == []


def test_pick_up_wire_from_input_and_drop_unplugs(window) -> None:  # noqa: ANN001
    w = add_source(window, "w", [1.0], True, (0, 0))
    a = window.canvas.add_node("torch.exp", QPointF(400, 60))
    window.canvas.connect_ports(w, "out", a, "input")
    window.canvas.fit_all()
    viewport = window.canvas.viewport()
    start = port_view_pos(window, a, "input", True)
    drag(viewport, start, start + QPoint(0, 150))
    assert window.state.document.edges() == []
    window.bridge.undo()
    assert len(window.state.document.edges()) == 1


def test_move_node_by_dragging_is_one_undo_step(window) -> None:  # noqa: ANN001
    w = add_source(window, "w", [1.0], True, (0, 0))
    window.canvas.fit_all()
    window.canvas.zoom_reset()
    doc = window.state.document
    start = node_view_pos(window, w)
    drag(window.canvas.viewport(), start, start + QPoint(120, 80), steps=10)
    node = doc.node(w)
    assert (node.x, node.y) == pytest.approx((120.0, 80.0), abs=1.0)
    assert window.act_undo.text() == "&Undo Move node"
    window.bridge.undo()
    assert doc.node(w).position == (0.0, 0.0)
    item = window.canvas.graph_scene.node_item(w)
    assert (item.x(), item.y()) == (0.0, 0.0)


def test_rubber_band_selects_nodes(window) -> None:  # noqa: ANN001
    a = add_source(window, "a", [1.0], False, (0, 0))
    b = add_source(window, "b", [2.0], False, (0, 200))
    window.canvas.fit_all()
    viewport = window.canvas.viewport()
    top_left = window.canvas.mapFromScene(QPointF(-60, -60))
    bottom_right = window.canvas.mapFromScene(QPointF(260, 360))
    drag(viewport, top_left, bottom_right)
    assert set(window.state.selection) == {a, b}


def test_delete_selection_is_one_undo_step_and_keeps_results(window, qtbot) -> None:  # noqa: ANN001
    w = add_source(window, "w", [1.0], True, (0, 0))
    e = window.canvas.add_node("torch.exp", QPointF(400, 60))
    window.canvas.connect_ports(w, "out", e, "input")
    run_and_wait(qtbot, window)
    before = window.state.evaluation
    window.canvas.select_all()
    window.act_delete.trigger()
    doc = window.state.document
    assert len(doc) == 0
    assert window.act_undo.text() == "&Undo Remove 2 nodes"
    window.bridge.undo()
    assert len(doc) == 2 and len(doc.edges()) == 1
    assert window.runner.stale
    qtbot.waitUntil(lambda: not window.runner.stale)
    assert window.state.evaluation is before  # the results came back with the nodes
    facts = window.canvas.graph_scene.facts_of(e)
    assert facts.grad_fn == "ExpBackward0"


def test_copy_paste_across_documents(window, qtbot) -> None:  # noqa: ANN001
    w = add_source(window, "w", [1.0], True, (0, 0))
    e = window.canvas.add_node("torch.exp", QPointF(400, 60))
    window.canvas.connect_ports(w, "out", e, "input")
    window.canvas.select_all()
    window.act_copy.trigger()
    window.new_document()
    assert len(window.state.document) == 0
    ids = window.canvas.paste(QPointF(500, 500))
    doc = window.state.document
    assert len(ids) == 2 and len(doc) == 2 and len(doc.edges()) == 1
    assert {n.label for n in doc.nodes()} == {"w", "exp"}
    assert min(n.x for n in doc.nodes()) == pytest.approx(500, abs=1)
    assert set(window.state.selection) == set(ids)
    window.act_paste.trigger()
    assert len(doc) == 4  # labels made unique
    assert len({n.label for n in doc.nodes()}) == 4
    assert window.act_undo.text() == "&Undo Paste"


def test_cut_and_duplicate(window) -> None:  # noqa: ANN001
    a = add_source(window, "a", [1.0], False, (0, 0))
    window.canvas.select_nodes([a])
    window.act_duplicate.trigger()
    doc = window.state.document
    assert len(doc) == 2
    assert window.act_undo.text() == "&Undo Duplicate"
    window.canvas.select_all()
    window.act_cut.trigger()
    assert len(doc) == 0
    assert window.act_undo.text() == "&Undo Cut"
    window.canvas.paste(QPointF(0, 0))
    assert len(doc) == 2


def test_edit_value_inline_and_rename(window, qtbot) -> None:  # noqa: ANN001
    a = add_source(window, "a", [1.0], True, (0, 0))
    editor = window.canvas.edit_param(a, "data")
    assert editor is not None and editor.text() == "[1.0]"
    editor.setText("[3.0, 4.0]")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    doc = window.state.document
    assert doc.node(a).params["data"] == [3.0, 4.0]
    run_and_wait(qtbot, window)
    assert window.canvas.graph_scene.facts_of(a).value == "[3., 4.]"
    editor = window.canvas.edit_label(a)
    editor.setText("weights")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    assert doc.node(a).label == "weights"
    assert window.act_undo.text() == "&Undo Rename a to weights"


def test_double_click_on_card_value_edits_it(window, qtbot) -> None:  # noqa: ANN001
    a = add_source(window, "a", [1.0], False, (0, 0))
    window.canvas.fit_all()
    item = window.canvas.graph_scene.node_item(a)
    pos = window.canvas.mapFromScene(item.mapToScene(QPointF(60, item.facts_top + 10)))
    QTest.mouseDClick(window.canvas.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    editor = window.canvas._editor
    assert editor is not None and editor.isVisible()
    assert editor.text() == "[1.0]"
    QTest.keyClick(editor, Qt.Key.Key_Escape)
    assert window.state.document.node(a).params["data"] == [1.0]


def test_bad_value_is_refused_with_message(window) -> None:  # noqa: ANN001
    a = add_source(window, "a", [1.0], False, (0, 0))
    messages: list[str] = []
    window.canvas.message.connect(messages.append)
    editor = window.canvas.edit_param(a, "data")
    editor.setText("[1, oops")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    assert window.state.document.node(a).params["data"] == [1.0]
    assert messages and "not a Python value" in messages[-1]


def test_auto_layout_is_one_undo_step_left_to_right(window) -> None:  # noqa: ANN001
    doc = window.state.document
    w = add_source(window, "w", [1.0], True, (500, 500))
    x = add_source(window, "x", [2.0], True, (500, 500))
    a = window.canvas.add_node("torch.add", QPointF(0, 0))
    window.canvas.connect_ports(w, "out", a, "input")
    window.canvas.connect_ports(x, "out", a, "other")
    before = {n.id: n.position for n in doc.nodes()}
    window.act_layout.trigger()
    assert window.act_undo.text() == "&Undo Auto-layout"
    assert doc.node(a).x > doc.node(w).x
    assert doc.node(w).x == doc.node(x).x
    height = window.canvas.graph_scene.node_item(w).height  # the real card, not the default
    assert abs(doc.node(w).y - doc.node(x).y) == height + ROW_GAP
    laid_out = {n.id: n.position for n in doc.nodes()}
    window.act_layout.trigger()  # nothing moves: no second undo step
    assert {n.id: n.position for n in doc.nodes()} == laid_out
    window.bridge.undo()
    assert {n.id: n.position for n in doc.nodes()} == before


def test_zoom_and_pan(window) -> None:  # noqa: ANN001
    add_source(window, "a", [1.0], False, (0, 0))
    canvas = window.canvas
    canvas.zoom_reset()
    window.act_zoom_in.trigger()
    assert canvas.zoom == pytest.approx(1.25)
    window.act_zoom_out.trigger()
    assert canvas.zoom == pytest.approx(1.0)
    before = canvas.mapToScene(canvas.viewport().rect().center())
    drag(canvas.viewport(), QPoint(300, 300), QPoint(200, 250), Qt.MouseButton.MiddleButton)
    after = canvas.mapToScene(canvas.viewport().rect().center())
    assert (after - before).x() == pytest.approx(100, abs=2)
    assert (after - before).y() == pytest.approx(50, abs=2)


def test_zoom_keeps_point_under_cursor(window) -> None:  # noqa: ANN001
    canvas = window.canvas
    canvas.zoom_reset()
    at = QPoint(150, 120)
    anchor = canvas.mapToScene(at)
    canvas.set_zoom(2.0, anchor)
    assert canvas.mapFromScene(anchor) == at


def test_space_drag_pans(window, qtbot) -> None:  # noqa: ANN001
    canvas = window.canvas
    canvas.zoom_reset()
    QTest.keyPress(canvas, Qt.Key.Key_Space)
    before = canvas.mapToScene(canvas.viewport().rect().center())
    drag(canvas.viewport(), QPoint(300, 300), QPoint(250, 300))
    QTest.keyRelease(canvas, Qt.Key.Key_Space)
    after = canvas.mapToScene(canvas.viewport().rect().center())
    assert (after - before).x() == pytest.approx(50, abs=2)
    assert window.state.selection == ()


def test_far_out_the_overview_draws_and_cards_still_take_clicks_and_drags(window) -> None:  # noqa: ANN001
    from PySide6.QtWidgets import QGraphicsItem

    from ui.canvas.overview import OVERVIEW_LOD

    a = add_source(window, "a", [1.0], True, (0, 0))
    b = add_source(window, "b", [2.0], False, (400, 300))
    scene = window.canvas.graph_scene
    no_contents = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents
    card = scene.node_item(a)
    window.canvas.set_zoom(OVERVIEW_LOD / 2)
    assert scene.overview.isVisible()
    assert card.flags() & no_contents and scene.node_item(b).flags() & no_contents
    window.canvas.viewport().grab()  # the overview batches on its first paint
    assert {what for what, _, _ in scene.overview._batches} == {"body", "band"}
    # a click still selects the card, a drag still moves it (one undo step)
    QTest.mouseClick(
        window.canvas.viewport(), Qt.MouseButton.LeftButton, pos=node_view_pos(window, b)
    )
    assert window.state.selection == (b,)
    window.canvas.viewport().grab()
    assert ("selected", scene.style.c("node_selected").rgba(), False) in scene.overview._batches
    start = node_view_pos(window, b)
    drag(window.canvas.viewport(), start, start + QPoint(20, 10))
    node = window.state.document.node(b)
    assert (node.x, node.y) != (400, 300)
    assert window.act_undo.text().startswith("&Undo Move")
    window.canvas.zoom_reset()
    assert not scene.overview.isVisible() and not card.flags() & no_contents


def test_an_image_exported_far_out_shows_every_card_in_full(window, tmp_path) -> None:  # noqa: ANN001
    from PySide6.QtGui import QImage

    from ui.window.export_image import export_png

    add_source(window, "a", [1.0], True, (0, 0))
    scene = window.canvas.graph_scene
    window.canvas.zoom_reset()
    export_png(scene, tmp_path / "near.png")
    window.canvas.set_zoom(0.05)
    export_png(scene, tmp_path / "far.png")
    assert scene.overview.isVisible()  # the view is back to its overview afterwards
    assert QImage(str(tmp_path / "near.png")) == QImage(str(tmp_path / "far.png"))
