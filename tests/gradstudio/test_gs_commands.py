"""Edits as commands on an undo stack: every command undoes exactly."""

from __future__ import annotations

import pytest

from gradstudio.document.clipboard import copy_nodes
from gradstudio.document.commands import (
    AddNodeCommand,
    AutoLayoutCommand,
    ConnectCommand,
    DisconnectCommand,
    MoveNodesCommand,
    PasteCommand,
    RemoveNodesCommand,
    ReorderStepCommand,
    SetLabelCommand,
    SetParamCommand,
    SetSettingCommand,
)
from gradstudio.document.model import Document
from gradstudio.document.undo import UndoStack
from gradstudio.document.values import EditError
from gradstudio.interchange.fileformat import to_json
from gradstudio.interchange.pytorch_import import import_snippet
from tests.gradstudio.snippets import SEED_001


def _doc() -> Document:
    return import_snippet(SEED_001)


def _ids(doc: Document, *labels: str) -> list[str]:
    return [doc.node_by_label(label).id for label in labels]  # type: ignore[union-attr]


def _undo_restores(doc: Document, stack: UndoStack, command) -> None:
    before = to_json(doc)
    stack.push(command)
    after = to_json(doc)
    assert after != before
    stack.undo()
    assert to_json(doc) == before
    stack.redo()
    assert to_json(doc) == after


def test_add_node_goes_last_and_undoes() -> None:
    doc, stack = _doc(), UndoStack()
    command = AddNodeCommand(doc, "torch.exp", (5.0, 6.0))
    _undo_restores(doc, stack, command)
    assert doc.order[-1] == command.node_id
    assert stack.undo_text == "Add exp"


def test_remove_restores_nodes_edges_and_steps_exactly() -> None:
    doc, stack = _doc(), UndoStack()
    _undo_restores(doc, stack, RemoveNodesCommand(doc, _ids(doc, "w", "b")))
    assert doc.node_by_label("w") is None
    stack.undo()
    assert [n.label for n in doc.nodes()][:2] == ["w", "x"]


def test_connect_repairs_order_and_undo_restores_it() -> None:
    doc, stack = _doc(), UndoStack()
    late = AddNodeCommand(doc, "torch.tensor", label="late")
    stack.push(late)
    (a,) = _ids(doc, "a")
    before = doc.order
    _undo_restores(doc, stack, ConnectCommand(doc, late.node_id, "out", a, "other"))
    # ``late`` now runs before ``a``, which lost its old ``other`` input
    assert doc.step_of(late.node_id) < doc.step_of(a)
    assert [e.src for e in doc.inputs_of(a, "other")] == [late.node_id]
    stack.undo()
    assert doc.order == before


def test_connect_refuses_cycles_up_front() -> None:
    doc = _doc()
    y, a = _ids(doc, "y", "a")
    with pytest.raises(EditError, match="cycle"):
        ConnectCommand(doc, y, "out", a, "input")


def test_disconnect_and_undo() -> None:
    doc, stack = _doc(), UndoStack()
    (y,) = _ids(doc, "y")
    edge = doc.inputs_of(y, "other")[0]
    _undo_restores(doc, stack, DisconnectCommand(doc, edge))


def test_moves_merge_into_one_undo_step() -> None:
    doc, stack = _doc(), UndoStack()
    (w,) = _ids(doc, "w")
    start = doc.node(w).position
    for i in range(5):
        stack.push(MoveNodesCommand(doc, {w: (float(i), float(i))}))
    assert len(stack) == 1 and doc.node(w).position == (4.0, 4.0)
    stack.undo()
    assert doc.node(w).position == start


def test_param_edits_merge_and_bad_values_are_refused() -> None:
    doc, stack = _doc(), UndoStack()
    (b,) = _ids(doc, "b")
    stack.push(SetParamCommand(doc, b, "other", 2))
    stack.push(SetParamCommand(doc, b, "other", 3))
    assert len(stack) == 1
    stack.undo()
    assert doc.node(b).params["other"] == 1
    with pytest.raises(EditError):
        SetParamCommand(doc, b, "alpha", "lots")


def test_label_and_setting_commands() -> None:
    doc, stack = _doc(), UndoStack()
    (w,) = _ids(doc, "w")
    _undo_restores(doc, stack, SetLabelCommand(doc, w, "weight"))
    with pytest.raises(EditError, match="already labelled"):
        SetLabelCommand(doc, w, "x")
    _undo_restores(doc, stack, SetSettingCommand(doc, "device", "cuda"))


def test_reorder_step_within_data_flow() -> None:
    doc, stack = _doc(), UndoStack()
    x, a = _ids(doc, "x", "a")
    _undo_restores(doc, stack, ReorderStepCommand(doc, x, 0))
    with pytest.raises(EditError, match="between steps"):
        ReorderStepCommand(doc, a, 0)


def test_paste_relabels_and_keeps_internal_edges() -> None:
    doc, stack = _doc(), UndoStack()
    text = copy_nodes(doc, _ids(doc, "w", "b", "y"))
    paste = PasteCommand(doc, text)
    _undo_restores(doc, stack, paste)
    labels = [doc.node(n).label for n in paste.node_ids]
    assert labels == ["w_2", "b_2", "y_2"]
    pasted_b = paste.node_ids[1]
    assert [doc.node(e.src).label for e in doc.inputs_of(pasted_b, "input")] == ["w_2"]
    assert doc.inputs_of(paste.node_ids[2], "other")[0].src == pasted_b
    assert doc.inputs_of(paste.node_ids[2], "input") == []  # ``a`` was not copied
    with pytest.raises(EditError, match="no GradStudio nodes"):
        PasteCommand(doc, "hello")


def test_auto_layout_goes_left_to_right() -> None:
    doc, stack = _doc(), UndoStack()
    for node in doc.nodes():
        doc.move_node(node.id, 0, 0)
    _undo_restores(doc, stack, AutoLayoutCommand(doc))
    w, a, y = (doc.node(i) for i in _ids(doc, "w", "a", "y"))
    assert w.x < a.x < y.x


def test_macro_is_one_step_and_clean_state_tracks_saves() -> None:
    doc, stack = _doc(), UndoStack()
    changes = []
    stack.subscribe(lambda: changes.append(stack.index))
    assert stack.is_clean
    with stack.macro("Add two"):
        stack.push(AddNodeCommand(doc, "torch.exp"))
        stack.push(AddNodeCommand(doc, "torch.log"))
    assert len(stack) == 1 and stack.undo_text == "Add two" and not stack.is_clean
    stack.set_clean()
    stack.undo()
    assert not stack.is_clean and len(doc) == 6
    stack.redo()
    assert stack.is_clean and changes


def test_failed_macro_rolls_back() -> None:
    doc, stack = _doc(), UndoStack()
    before = to_json(doc)
    with pytest.raises(EditError), stack.macro("Broken"):
        stack.push(AddNodeCommand(doc, "torch.exp"))
        stack.push(SetParamCommand(doc, "n1", "nope", 1))
    assert to_json(doc) == before and len(stack) == 0


def test_new_command_after_undo_drops_redo_and_clean_index() -> None:
    doc, stack = _doc(), UndoStack()
    stack.push(AddNodeCommand(doc, "torch.exp"))
    stack.set_clean()
    stack.undo()
    stack.push(AddNodeCommand(doc, "torch.log"))
    assert not stack.can_redo and not stack.is_clean


def test_set_dirty_marks_modified_until_the_next_save() -> None:
    stack = UndoStack()
    seen: list[bool] = []
    stack.subscribe(lambda: seen.append(stack.is_clean))
    stack.set_dirty()
    assert not stack.is_clean and seen == [False]
    doc = _doc()
    stack.push(AddNodeCommand(doc, "torch.exp"))
    stack.undo()
    assert not stack.is_clean  # no step leads back to a saved state
    stack.set_clean()
    assert stack.is_clean


def test_undo_selects_what_was_selected_before_and_redo_what_after() -> None:
    doc, stack = _doc(), UndoStack()
    sel = stack.selection
    w, x = _ids(doc, "w", "x")
    sel.set([w])
    add = AddNodeCommand(doc, "torch.exp", (5.0, 6.0))
    stack.push(add)
    sel.set([add.node_id])  # the view selects the node it added
    stack.push(MoveNodesCommand(doc, {add.node_id: (50.0, 60.0)}))
    sel.set([x])  # a click elsewhere, then undo: the move's own selection comes back
    stack.undo()
    assert sel.ids == (add.node_id,)
    stack.undo()
    assert sel.ids == (w,)
    stack.redo()
    assert sel.ids == (add.node_id,)
    stack.redo()
    assert sel.ids == (x,)


def test_undo_of_a_delete_selects_the_restored_nodes_and_macros_record_once() -> None:
    doc, stack = _doc(), UndoStack()
    sel = stack.selection
    w, b = _ids(doc, "w", "b")
    sel.set([w, b])
    stack.push(RemoveNodesCommand(doc, [w, b]))
    sel.set([])
    stack.undo()
    assert sel.ids == (w, b) and w in doc and b in doc
    with stack.macro("two labels"):
        stack.push(SetLabelCommand(doc, w, "w2"))
        sel.set([b])
        stack.push(SetLabelCommand(doc, b, "b2"))
    stack.undo()
    assert sel.ids == (w, b)  # the selection from before the whole step
    stack.redo()
    assert sel.ids == (b,)
