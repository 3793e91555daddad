"""Parameter editors come from the kind table: each kind names its editor and parses
what the user types (``engine.param_kinds``)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gradstudio.document.model import Document
from ui.inspector.panel import Inspector
from ui.inspector.params import ChoiceEditor, DataEditor, LiteralEditor
from ui.state import StudioState

pytestmark = pytest.mark.gui


def _inspect(qtbot, doc: Document, node_id: str) -> tuple[StudioState, Inspector]:  # noqa: ANN001
    state = StudioState(doc)
    inspector = Inspector(state)
    qtbot.addWidget(inspector)
    inspector.show()
    state.select((node_id,))
    inspector.flush()
    return state, inspector


def _type_into(qtbot, line, text: str) -> None:  # noqa: ANN001
    line.setFocus()
    line.selectAll()
    qtbot.keyClicks(line, text)
    qtbot.keyClick(line, Qt.Key.Key_Return)


def test_free_text_and_shape_kinds_parse_what_is_typed(qtbot) -> None:  # noqa: ANN001
    doc = Document(trusted=True)
    z = doc.new_node("torch.zeros", (0, 0), {}, "z")
    doc.add_node(z)
    e = doc.new_node("torch.einsum", (300, 0), {}, "e")
    doc.add_node(e)
    doc.connect(z.id, "out", e.id, "operands")
    state, inspector = _inspect(qtbot, doc, e.id)
    equation = inspector.param_editors["equation"]
    assert isinstance(equation, LiteralEditor)  # "str" without choices: a line, raw text
    before = len(state.undo_stack)
    _type_into(qtbot, equation.line, "ij->ji")
    qtbot.waitUntil(lambda: doc.node(e.id).params["equation"] == "ij->ji")
    assert len(state.undo_stack) == before + 1

    state.select((z.id,))
    inspector.flush()
    size = inspector.param_editors["size"]
    assert size.line.placeholderText() == "e.g. [2, 3]"  # the kind's placeholder
    _type_into(qtbot, size.line, "4, 5")  # a bare list reads as a shape
    qtbot.waitUntil(lambda: doc.node(z.id).params["size"] == [4, 5])


def test_choice_kinds_offer_their_options(qtbot) -> None:  # noqa: ANN001
    doc = Document(trusted=True)
    x = doc.new_node("torch.ones", (0, 0), {"size": [2]}, "x")
    doc.add_node(x)
    loss = doc.new_node("torch.nn.functional.mse_loss", (300, 0), {}, "loss")
    doc.add_node(loss)
    _, inspector = _inspect(qtbot, doc, loss.id)
    reduction = inspector.param_editors["reduction"]
    assert isinstance(reduction, ChoiceEditor)
    assert [v for _, v in reduction.choices] == ["mean", "sum", "none"]
    reduction.combo.activated.emit(1)
    assert doc.node(loss.id).params["reduction"] == "sum"


def test_minus_inf_is_typed_and_shown_as_itself(qtbot) -> None:  # noqa: ANN001
    """An attention mask's fill: typed "-inf" in a number's line or a data cell, held
    by its name (JSON has no infinity) and shown as typed."""
    doc = Document(trusted=True)
    x = doc.new_node("torch.tensor", (0, 0), {"data": [1.0, "-inf"]}, "x")
    doc.add_node(x)
    fill = doc.new_node("torch.masked_fill", (300, 0), {}, "fill")
    doc.add_node(fill)
    state, inspector = _inspect(qtbot, doc, fill.id)
    value = inspector.param_editors["value"]
    assert isinstance(value, LiteralEditor)
    _type_into(qtbot, value.line, "-inf")
    qtbot.waitUntil(lambda: doc.node(fill.id).params["value"] == "-inf")
    inspector.flush()
    assert inspector.param_editors["value"].line.text() == "-inf"

    state.select((x.id,))
    inspector.flush()
    data = inspector.param_editors["data"]
    assert isinstance(data, DataEditor)
    assert data.table.item(0, 1).text() == "-inf"
    data.table.item(0, 0).setText("nan")
    qtbot.waitUntil(lambda: doc.node(x.id).params["data"] == ["nan", "-inf"])
