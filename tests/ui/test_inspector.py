"""The inspector: seed 001's facts, clickable next_functions, undoable edits, errors."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from gradstudio.evaluation.evaluate import evaluate
from tests.gradstudio.snippets import SEED_001
from tests.ui.uitools import make_state, node_id
from ui.inspector.panel import Inspector
from ui.state import StudioState

pytestmark = pytest.mark.gui


def reevaluate(state: StudioState) -> None:
    """What the runner does after an edit: a fresh evaluation on the state."""
    state.set_evaluation(evaluate(state.document))


@pytest.fixture
def seed(qtbot) -> tuple[StudioState, Inspector]:  # noqa: ANN001
    state = make_state(SEED_001)
    inspector = Inspector(state)
    qtbot.addWidget(inspector)
    inspector.resize(460, 900)
    inspector.show()
    return state, inspector


def test_object_name_and_empty_page(seed: tuple[StudioState, Inspector]) -> None:
    _, inspector = seed
    assert inspector.objectName() == "inspector"
    assert inspector.node_id is None
    assert "Select a node" in inspector.subtitle.text()


def test_seed_001_leaf_w_has_grad_5(seed: tuple[StudioState, Inspector]) -> None:
    state, inspector = seed
    state.select([node_id(state.document, "w")])
    facts = inspector.fact_labels
    assert inspector.title.text() == "w"
    assert "True" in facts["requires_grad"].text()
    assert "True" in facts["is_leaf"].text()
    assert "None" in facts["grad_fn"].text()
    assert "tensor([5.])" in facts["grad"].text()
    assert inspector.values.grad.picture.mode == "bars"
    assert inspector.values.grad.text.toPlainText() == "tensor([5.])"
    assert inspector.values.value.text.toPlainText() == "tensor([1.], requires_grad=True)"
    assert not inspector.next_links.isVisible()


def test_seed_001_non_leaf_a(seed: tuple[StudioState, Inspector]) -> None:
    state, inspector = seed
    state.select([node_id(state.document, "a")])
    facts = inspector.fact_labels
    assert "False" in facts["is_leaf"].text()
    assert "AddBackward0" in facts["grad_fn"].text()
    # reading a.grad would warn (a non-leaf that does not retain grad) and give None
    assert "warns" in facts["grad"].text()
    assert "a.grad" in facts["grad"].text()
    assert inspector.values.grad.picture.mode == "none"
    assert inspector.values.value.text.toPlainText() == "tensor([3.], grad_fn=<AddBackward0>)"
    texts = [b.text() for b in inspector.next_links.buttons]
    assert texts == ["[0] (AccumulateGrad, 0) → w", "[1] (AccumulateGrad, 0) → x"]


def test_saved_tensors_before_and_after_backward(seed: tuple[StudioState, Inspector]) -> None:
    state, inspector = seed
    y = node_id(state.document, "y")
    state.select([y])
    state.playhead.set_position(state.document.step_of(y))  # right after y = a * b
    saved = inspector.fact_labels["saved"].text()
    assert "_saved_self" in saved and "tensor([3.])" in saved
    assert "_saved_other" in saved and "tensor([2.])" in saved
    state.playhead.set_position(-1)  # after backward: the saved tensors were freed
    assert "freed" in inspector.fact_labels["saved"].text()


def test_clicking_a_next_function_selects_its_node(qtbot, seed) -> None:  # noqa: ANN001
    state, inspector = seed
    doc = state.document
    state.select([node_id(doc, "y")])
    buttons = inspector.next_links.buttons
    assert [b.text() for b in buttons] == ["[0] (AddBackward0, 0) → a", "[1] (AddBackward0, 0) → b"]
    with qtbot.waitSignal(state.selectionChanged):
        qtbot.mouseClick(buttons[1], Qt.MouseButton.LeftButton)
    b = node_id(doc, "b")
    assert state.selection == (b,)
    assert inspector.node_id == b
    key = state.playhead.snapshot().facts(b).grad_fn.key
    assert state.grad_fn_key == str(key)
    # and on to a leaf: AccumulateGrad selects the leaf's node
    with qtbot.waitSignal(state.selectionChanged):
        qtbot.mouseClick(inspector.next_links.buttons[0], Qt.MouseButton.LeftButton)
    assert state.selection == (node_id(doc, "w"),)


def test_editing_data_pushes_one_undoable_command(seed: tuple[StudioState, Inspector]) -> None:
    state, inspector = seed
    doc = state.document
    w = node_id(doc, "w")
    state.select([w])
    editor = inspector.param_editors["data"]
    assert editor.table.isVisible()
    before = len(state.undo_stack)
    editor.table.item(0, 0).setText("3.0")  # what typing in the table cell does
    inspector.flush()
    assert doc.node(w).params["data"] == [3.0]
    assert len(state.undo_stack) == before + 1
    assert state.undo_stack.can_undo and "data" in state.undo_stack.undo_text
    reevaluate(state)
    assert "tensor([9.])" in inspector.fact_labels["grad"].text()  # dy/dw = 2w + x + 1
    state.undo_stack.undo()
    inspector.flush()
    assert doc.node(w).params["data"] == [1.0]
    assert editor.table.item(0, 0).text() == "1.0"


def test_table_resize_and_text_literal(seed: tuple[StudioState, Inspector]) -> None:
    state, inspector = seed
    doc = state.document
    x = node_id(doc, "x")
    state.select([x])
    editor = inspector.param_editors["data"]
    editor.resize_data("col+")
    inspector.flush()
    assert doc.node(x).params["data"] == [2.0, 0.0]
    editor.resize_data("row+")
    inspector.flush()
    assert doc.node(x).params["data"] == [[2.0, 0.0], [0.0, 0.0]]
    assert (editor.table.rowCount(), editor.table.columnCount()) == (2, 2)
    editor.text.line.setText("[[1, 2, 3]]")
    editor.text.line.editingFinished.emit()
    inspector.flush()
    assert doc.node(x).params["data"] == [[1, 2, 3]]


def test_bad_literal_shows_an_error_and_pushes_nothing(seed) -> None:  # noqa: ANN001
    state, inspector = seed
    b = node_id(state.document, "b")
    state.select([b])
    before = len(state.undo_stack)
    line = inspector.param_editors["alpha"].line
    line.setText("two")
    line.editingFinished.emit()
    assert len(state.undo_stack) == before
    assert inspector.edit_error is not None and not inspector.edit_error.isHidden()
    assert "alpha" in inspector.edit_error.text()


def test_dtype_and_requires_grad_editors(qtbot, seed) -> None:  # noqa: ANN001
    state, inspector = seed
    doc = state.document
    x = node_id(doc, "x")
    state.select([x])
    dtype = inspector.param_editors["dtype"]
    index = next(i for i, (_, v) in enumerate(dtype.choices) if v == "float64")
    dtype.combo.activated.emit(index)
    assert doc.node(x).params["dtype"] == "float64"
    box = inspector.param_editors["requires_grad"].box
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    assert doc.node(x).params["requires_grad"] is False
    state.undo_stack.undo()
    inspector.flush()
    assert box.isChecked()


def test_label_and_step_edits_are_commands(seed: tuple[StudioState, Inspector]) -> None:
    state, inspector = seed
    doc = state.document
    b = node_id(doc, "b")
    state.select([b])
    inspector.label_edit.setText("bias")
    inspector.label_edit.editingFinished.emit()
    assert doc.node(b).label == "bias"
    assert inspector.title.text() == "bias"
    # b = w + 1 (step 4) may run as early as right after w (step 1)
    assert (inspector.step_spin.minimum(), inspector.step_spin.maximum()) == (2, 4)
    inspector.step_spin.setValue(2)
    assert doc.step_of(b) == 1
    state.undo_stack.undo()
    state.undo_stack.undo()
    inspector.flush()
    assert doc.node(b).label == "b" and doc.step_of(b) == 3
    assert inspector.label_edit.text() == "b"
    assert inspector.step_spin.value() == 4


def test_duplicate_label_is_refused_with_a_message(seed: tuple[StudioState, Inspector]) -> None:
    state, inspector = seed
    b = node_id(state.document, "b")
    state.select([b])
    before = len(state.undo_stack)
    inspector.label_edit.setText("a")
    inspector.label_edit.editingFinished.emit()
    assert len(state.undo_stack) == before
    assert state.document.node(b).label == "b"
    assert "already labelled" in inspector.edit_error.text()


def test_retain_grad_toggle_adds_a_step_and_keeps_a_grad(seed) -> None:  # noqa: ANN001
    state, inspector = seed
    doc = state.document
    a = node_id(doc, "a")
    state.select([a])
    before = len(doc)
    inspector.retain_box.click()
    assert len(doc) == before + 1
    retain = next(n for n in doc.nodes() if n.type_id == "Tensor.retain_grad")
    assert doc.step_of(retain.id) == doc.step_of(a) + 1
    reevaluate(state)
    facts = inspector.fact_labels
    assert "True" in facts["retains_grad"].text()
    assert "tensor([2.])" in facts["grad"].text()  # dy/da = b = 2
    assert inspector.values.grad.picture.mode == "bars"
    state.undo_stack.undo()  # one undo step removes the whole retain_grad()
    inspector.flush()
    assert len(doc) == before
    assert not inspector.retain_box.isChecked()


def test_node_not_run_yet_at_the_timeline_position(seed) -> None:  # noqa: ANN001
    state, inspector = seed
    y = node_id(state.document, "y")
    state.select([y])
    state.playhead.set_position(1)
    assert "has not run yet" in inspector.facts_note.text()
    assert inspector.values_section.isHidden()
    state.playhead.set_position(-1)
    assert not inspector.values_section.isHidden()


def test_error_shows_pytorch_message_and_explanation(qtbot) -> None:  # noqa: ANN001
    state = make_state(SEED_001 + "y.backward()\n")
    inspector = Inspector(state)
    qtbot.addWidget(inspector)
    second = [n for n in state.document.nodes() if n.type_id == "Tensor.backward"][1]
    state.select([second.id])
    assert not inspector.problem_section.isHidden()
    text = inspector.problem_label.text()
    assert "Trying to backward through the graph a second time" in text
    assert "retain_graph=True" in text  # the plain-language fix
    assert "RuntimeError" in inspector.status.text()


def test_backward_node_lists_its_trace(seed) -> None:  # noqa: ANN001
    state, inspector = seed
    bw = next(n for n in state.document.nodes() if n.type_id == "Tensor.backward")
    state.select([bw.id])
    names = [b.text() for b in inspector.trace_links.buttons]
    assert names[0] == "1. MulBackward0 → y"
    assert len(names) == 5
    state.playhead.set_position(-1, 1)
    assert "not yet" in inspector.trace_links.buttons[1].text()
    assert inspector.trace_links.buttons[0].font().bold()


def test_grad_fn_without_a_node_shows_its_page(seed) -> None:  # noqa: ANN001
    state, inspector = seed
    key = state.playhead.snapshot().facts(node_id(state.document, "y")).grad_fn.key
    state.select(())
    state.select_grad_fn(str(key))
    assert inspector.title.text() == "MulBackward0"


def _inspecting_leaf(qtbot, leaf: str) -> Inspector:  # noqa: ANN001
    """An inspector on ``x = leaf`` after ``x.sum().backward()``, with ``x`` selected."""
    state = make_state(f"import torch\nx = {leaf}\ns = x.sum()\ns.backward()\n")
    inspector = Inspector(state)
    qtbot.addWidget(inspector)
    state.select([node_id(state.document, "x")])
    return inspector


def test_heat_map_for_a_matrix(qtbot) -> None:  # noqa: ANN001
    inspector = _inspecting_leaf(qtbot, "torch.tensor([[1., -2.], [3., 4.]], requires_grad=True)")
    assert inspector.values.value.picture.mode == "heatmap"
    assert inspector.values.grad.picture.mode == "heatmap"
    np.testing.assert_array_equal(inspector.values.grad.picture._arr, np.ones((2, 2)))
    assert inspector.param_editors["data"].table.rowCount() == 2


def test_a_long_gradient_names_its_shape_as_python_writes_a_tuple(qtbot) -> None:  # noqa: ANN001
    """A gradient printed on several lines is pointed to by its shape: ``(20,)``."""
    inspector = _inspecting_leaf(qtbot, "torch.linspace(0, 1, 20, requires_grad=True)")
    assert "of shape (20,) — printed below" in inspector.fact_labels["grad"].text()


def test_an_owned_grad_fn_names_its_node(seed) -> None:  # noqa: ANN001
    state, inspector = seed
    key = state.playhead.snapshot().facts(node_id(state.document, "y")).grad_fn.key
    state.select(())
    state.select_grad_fn(str(key))
    assert "the grad_fn of y" in inspector.subtitle.text()
    assert "no node" not in inspector.subtitle.text()


def test_several_selected_nodes_are_listed_and_each_selects_itself(seed) -> None:  # noqa: ANN001
    state, inspector = seed
    a, b = node_id(state.document, "a"), node_id(state.document, "b")
    state.select((a, b))
    assert inspector.node_id is None
    assert inspector.title.text() == "2 nodes selected"
    from PySide6.QtWidgets import QToolButton

    links = inspector.findChildren(QToolButton, "inspectorLink")
    assert [link.text() for link in links] == ["a", "b"]
    links[1].click()
    assert state.selection == (b,)
    assert inspector.node_id == b


def test_a_wired_input_is_not_also_a_parameter(qtbot) -> None:  # noqa: ANN001
    """``add``'s ``other`` takes a number or a wire; wired, it is no longer offered as a
    parameter (and it comes back when the wire goes)."""
    from gradstudio.document.commands import ConnectCommand, DisconnectCommand
    from gradstudio.document.model import Document

    doc = Document(trusted=True)
    a = doc.new_node("torch.ones", (0, 0), {"size": [2]}, "a")
    doc.add_node(a)
    b = doc.new_node("torch.ones", (0, 200), {"size": [2]}, "b")
    doc.add_node(b)
    s = doc.new_node("torch.add", (300, 0), {}, "s")
    doc.add_node(s)
    doc.connect(a.id, "out", s.id, "input")
    state = StudioState(doc)
    inspector = Inspector(state)
    qtbot.addWidget(inspector)
    state.select((s.id,))
    inspector.flush()
    assert "other" in inspector.param_editors
    state.push(lambda: ConnectCommand(doc, b.id, "out", s.id, "other"))
    inspector.flush()
    assert "other" not in inspector.param_editors
    (edge,) = doc.inputs_of(s.id, "other")
    state.push(lambda: DisconnectCommand(doc, edge))
    inspector.flush()
    assert "other" in inspector.param_editors
