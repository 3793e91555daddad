"""Groups on the canvas, through what users use: Ctrl+G, the frame's menu, double-clicks,
dragging the title, Delete and Copy on a selected frame, undo."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel

from gradstudio.document.groups import Group
from gradstudio.interchange.fileformat import load_document
from tests.ui.uitools import add_source, drag, node_id, node_view_pos
from ui.canvas.group_item import GroupCardItem, GroupFrameItem

pytestmark = pytest.mark.gui


def three_nodes(window) -> tuple[str, str, str]:  # noqa: ANN001
    """w → exp → sum, on the canvas, shown whole."""
    w = add_source(window, "w", [1.0, 2.0], True, (0, 0))
    e = window.canvas.add_node("torch.exp", QPointF(400, 60))
    s = window.canvas.add_node("torch.sum", QPointF(800, 60))
    window.canvas.connect_ports(w, "out", e, "input")
    window.canvas.connect_ports(e, "out", s, "input")
    window.canvas.fit_all()
    return w, e, s


def title_pos(window, group_id: str, dx: float = 80.0) -> QPoint:  # noqa: ANN001
    frame = window.canvas.graph_scene.groups.frame(group_id)
    assert frame is not None
    return window.canvas.mapFromScene(frame.mapToScene(QPointF(dx, 12.0)))


def test_ctrl_g_groups_the_selection_and_undo_removes_the_frame(window, qtbot) -> None:  # noqa: ANN001
    w, e, s = three_nodes(window)
    canvas = window.canvas
    canvas.select_nodes([w, e])
    canvas.setFocus()
    qtbot.waitUntil(canvas.hasFocus)
    QTest.keyClick(canvas, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    doc = window.state.document
    (gid,) = doc.groups
    assert doc.group(gid).members == {w, e}
    assert window.act_undo.text() == "&Undo Group 2 nodes"
    frame = canvas.graph_scene.groups.frame(gid)
    assert frame is not None and frame.isSelected()
    cards = [canvas.graph_scene.node_item(n).sceneBoundingRect() for n in (w, e)]
    assert all(frame.scene_rect().contains(c.adjusted(8, 12, -8, -8)) for c in cards)
    assert not frame.scene_rect().intersects(canvas.graph_scene.node_item(s).sceneBoundingRect())
    assert frame.zValue() < canvas.graph_scene.node_item(w).zValue()  # behind the cards
    window.act_undo.trigger()
    assert not doc.groups
    qtbot.waitUntil(lambda: canvas.graph_scene.groups.frame(gid) is None)
    window.act_redo.trigger()
    assert canvas.graph_scene.groups.frame(gid) is not None


def test_group_action_with_nothing_selected_says_so(window) -> None:  # noqa: ANN001
    three_nodes(window)
    messages: list[str] = []
    window.canvas.message.connect(messages.append)
    window.canvas.graph_scene.clearSelection()
    window.act_group.trigger()
    assert not window.state.document.groups
    assert messages[-1] == "Select the nodes to group first"


def test_collapse_shows_one_card_with_rerouted_wires_and_expands(window, qtbot) -> None:  # noqa: ANN001
    _, e, _ = three_nodes(window)
    canvas = window.canvas
    scene = canvas.graph_scene
    canvas.select_nodes([e])
    window.act_group.trigger()
    (gid,) = window.state.document.groups
    window.act_collapse.trigger()
    doc = window.state.document
    assert doc.group(gid).collapsed
    card = scene.groups.card(gid)
    assert isinstance(card, GroupCardItem) and scene.groups.frame(gid) is None
    assert not scene.node_item(e).isVisible()
    assert [(p.node_id, p.is_input) for p in card.ports] == [(e, True), (e, False)]
    into = next(x for x in doc.edges() if x.dst == e)
    wire = scene.edge_item(into)
    assert wire.end == card.port_scene_pos(e, "input", True)  # the wire ends on the card
    # double-click the card: the group opens again
    QTest.mouseDClick(
        canvas.viewport(),
        Qt.MouseButton.LeftButton,
        pos=canvas.mapFromScene(card.mapToScene(QPointF(100, 10))),
    )
    assert not doc.group(gid).collapsed
    assert scene.node_item(e).isVisible()
    assert wire.end == scene.node_item(e).port_scene_pos("input", True)
    window.act_undo.trigger()
    assert doc.group(gid).collapsed
    qtbot.waitUntil(lambda: not scene.node_item(e).isVisible())  # on the next turn of the loop


def test_collapsed_state_is_saved_in_the_file(window, answers, tmp_path) -> None:  # noqa: ANN001
    w, e, _ = three_nodes(window)
    window.canvas.select_nodes([w, e])
    window.act_group.trigger()
    window.act_collapse.trigger()
    path = tmp_path / "g.gstudio"
    answers.save_path = str(path)
    window.act_save.trigger()
    again = load_document(path)
    (group,) = again.groups.values()
    assert group.collapsed and group.members == {w, e}
    window.open_file(path, ask=False)
    gid = next(iter(window.state.document.groups))
    assert window.canvas.graph_scene.groups.card(gid) is not None
    assert not window.canvas.graph_scene.node_item(w).isVisible()


def test_dragging_the_title_moves_the_members_in_one_undo_step(window, qtbot) -> None:  # noqa: ANN001
    w, e, s = three_nodes(window)
    canvas = window.canvas
    canvas.select_nodes([w, e])
    window.act_group.trigger()
    (gid,) = window.state.document.groups
    doc = window.state.document
    before = {n: doc.node(n).position for n in (w, e, s)}
    start = title_pos(window, gid)
    drag(canvas.viewport(), start, start + QPoint(40, 30), steps=5)
    moved = {n: doc.node(n).position for n in (w, e)}
    dx, dy = moved[w][0] - before[w][0], moved[w][1] - before[w][1]
    assert dx > 10 and dy > 10
    assert moved[e] == (before[e][0] + dx, before[e][1] + dy)
    assert doc.node(s).position == before[s]  # outside the group: stays
    assert window.act_undo.text() == "&Undo Move group Group"
    window.act_undo.trigger()
    assert {n: doc.node(n).position for n in (w, e, s)} == before
    frame = canvas.graph_scene.groups.frame(gid)
    assert frame.scene_rect().contains(canvas.graph_scene.node_item(w).pos())


def test_double_click_title_renames_inline(window, qtbot) -> None:  # noqa: ANN001
    w, e, _ = three_nodes(window)
    window.canvas.select_nodes([w, e])
    window.act_group.trigger()
    (gid,) = window.state.document.groups
    QTest.mouseDClick(
        window.canvas.viewport(), Qt.MouseButton.LeftButton, pos=title_pos(window, gid)
    )
    editor = window.canvas._editor
    assert editor is not None and editor.text() == "Group"
    editor.setText("layer 1")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    assert window.state.document.group(gid).title == "layer 1"
    assert window.act_undo.text() == "&Undo Rename group Group to layer 1"


def test_frame_menu_colours_collapses_ungroups_and_deletes(window, qtbot) -> None:  # noqa: ANN001
    w, e, s = three_nodes(window)
    canvas = window.canvas
    canvas.select_nodes([w, e])
    window.act_group.trigger()
    doc = window.state.document
    (gid,) = doc.groups

    def menu_action(path: list[str]):  # noqa: ANN202
        menu = canvas.context_menu(title_pos(window, gid))
        for name in path[:-1]:
            menu = next(a.menu() for a in menu.actions() if a.text() == name)
        return next(a for a in menu.actions() if a.text() == path[-1])

    assert canvas.graph_scene.groups.frame(gid).isSelected()
    menu_action(["Colour", "Green"]).trigger()
    assert doc.group(gid).color == "#4f9d5a"
    menu_action(["Ungroup"]).trigger()
    assert not doc.groups and w in doc
    window.act_undo.trigger()
    menu_action(["Delete Group and Nodes"]).trigger()
    assert w not in doc and e not in doc and s in doc and not doc.groups
    window.act_undo.trigger()
    assert doc.group(gid).members == {w, e} and len(doc.edges()) == 2


def test_a_selected_frame_deletes_and_copies_as_a_unit(window, qtbot) -> None:  # noqa: ANN001
    w, e, s = three_nodes(window)
    canvas = window.canvas
    canvas.select_nodes([w, e])
    window.act_group.trigger()
    doc = window.state.document
    (gid,) = doc.groups
    # click the title: the frame alone is selected, and stands for its nodes
    pos = title_pos(window, gid)
    QTest.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert set(canvas.graph_scene.selected_node_ids()) == {w, e}
    window.act_duplicate.trigger()
    assert len(doc.groups) == 2 and len(doc) == 5
    copy = next(g for g in doc.groups.values() if g.id != gid)
    assert copy.title == "Group" and len(copy.members) == 2
    window.act_undo.trigger()
    canvas.select_group(gid)
    window.act_delete.trigger()
    assert set(doc.order) == {s} and not doc.groups
    window.act_undo.trigger()
    assert doc.group(gid).members == {w, e}


def test_grouping_a_frame_with_a_node_nests_it(window, qtbot) -> None:  # noqa: ANN001
    w, e, s = three_nodes(window)
    canvas = window.canvas
    canvas.select_nodes([w, e])
    window.act_group.trigger()
    doc = window.state.document
    (inner,) = doc.groups
    canvas.select_group(inner)
    canvas.graph_scene.node_item(s).setSelected(True)
    window.act_group.trigger()
    outer = next(g for g in doc.groups if g != inner)
    assert doc.group(inner).parent == outer and doc.group(outer).members == {s}
    layer = canvas.graph_scene.groups
    assert layer.frame(outer).scene_rect().contains(layer.frame(inner).scene_rect())
    assert layer.frame(inner).zValue() > layer.frame(outer).zValue()
    # collapsing the outer group hides the inner frame and every card inside
    canvas.select_group(outer)
    window.act_collapse.trigger()
    assert layer.frame(inner) is None and layer.card(inner) is None
    assert not any(canvas.graph_scene.node_item(n).isVisible() for n in (w, e, s))
    # ungroup the outer one (Ctrl+Shift+G): the inner frame comes back at top level
    window.act_collapse.trigger()
    canvas.select_group(outer)
    window.act_ungroup.trigger()
    assert set(doc.groups) == {inner} and doc.group(inner).parent is None


def test_removing_the_last_member_removes_the_frame(window, qtbot) -> None:  # noqa: ANN001
    *_, s = three_nodes(window)
    window.canvas.select_nodes([s])
    window.act_group.trigger()
    (gid,) = window.state.document.groups
    window.canvas.select_nodes([s])
    window.act_delete.trigger()
    assert not window.state.document.groups
    qtbot.waitUntil(lambda: window.canvas.graph_scene.groups.frame(gid) is None)
    assert not [i for i in window.canvas.graph_scene.items() if isinstance(i, GroupFrameItem)]


def test_imported_example_with_group_runs_and_keeps_results(window, qtbot, example_paths) -> None:  # noqa: ANN001
    """Grouping and collapsing never make results stale: they change no computation."""
    assert window.open_example(example_paths["001_leaf_grad"], ask=False)
    qtbot.waitUntil(lambda: window.state.evaluation is not None, timeout=15000)
    doc = window.state.document
    window.canvas.select_nodes([node_id(doc, "a"), node_id(doc, "b")])
    revision = doc.revision
    window.act_group.trigger()
    window.act_collapse.trigger()
    assert doc.revision == revision and not window.runner.stale


def test_a_frame_follows_a_card_dragged_inside_it(window, qtbot) -> None:  # noqa: ANN001
    w, e, _ = three_nodes(window)
    canvas = window.canvas
    canvas.select_nodes([w, e])
    window.act_group.trigger()
    (gid,) = window.state.document.groups
    canvas.select_nodes([e])
    start = node_view_pos(window, e)
    drag(canvas.viewport(), start, start + QPoint(0, 160))
    card = canvas.graph_scene.node_item(e).sceneBoundingRect().adjusted(8, 12, -8, -8)
    assert window.state.document.node(e).position[1] > 100
    assert canvas.graph_scene.groups.frame(gid).scene_rect().contains(card)


def test_inspector_describes_a_selected_group(window, qtbot) -> None:  # noqa: ANN001
    w, e, _ = three_nodes(window)
    doc = window.state.document
    doc.add_group(Group("m", "model.fc1 (Linear)", {w, e}, kind="module", meta={"class": "Linear"}))
    window.canvas.select_group("m")
    inspector = window.panel("inspector")
    assert inspector.title.text() == "model.fc1 (Linear)"
    assert "module Linear · 2 nodes" in inspector.subtitle.text()
    labels = {lab.objectName(): lab.text() for lab in inspector.findChildren(QLabel)}
    assert labels["group_kind"] == "module" and labels["group_class"] == "Linear"


def test_select_all_and_delete_takes_collapsed_groups_too(window, qtbot) -> None:  # noqa: ANN001
    w, e, _ = three_nodes(window)
    window.canvas.select_nodes([w, e])
    window.act_group.trigger()
    window.act_collapse.trigger()
    window.act_select_all.trigger()
    window.act_delete.trigger()
    doc = window.state.document
    assert len(doc) == 0 and not doc.groups
    window.act_undo.trigger()
    assert len(doc) == 3 and next(iter(doc.groups.values())).collapsed
