"""A custom Function node has a port per argument of its forward, and shows its arguments
as a learner writes them (issue 30), driven through the inspector's editors and keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from gradstudio.interchange.fileformat import load_document
from tests.ui.uitools import run_and_wait, wait_evaluated

pytestmark = pytest.mark.gui

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"
SCALED = """class Func(Function):
    @staticmethod
    def forward(ctx, a, b, scale=2.0):
        ctx.scale = scale
        return a * b * scale

    @staticmethod
    def backward(ctx, grad_out):
        return None, None, None
"""


def _open_004(window, qtbot):  # noqa: ANN001, ANN202
    doc = load_document(EXAMPLES / "004_custom_function.gstudio")
    doc.set_trusted(True)
    window.set_document(doc)
    wait_evaluated(qtbot, window)
    d = window.state.document.node_by_label("d")
    window.state.select([d.id])
    inspector = window.panel("inspector")
    inspector.flush()
    return d.id, inspector


def _wired(window, node_id: str) -> dict[str, str]:  # noqa: ANN001
    doc = window.state.document
    return {e.dst_port: doc.node(e.src).label for e in doc.edges() if e.dst == node_id}


def test_seed_004_has_a_port_per_argument_and_shows_them_readably(window, qtbot) -> None:  # noqa: ANN001
    d, inspector = _open_004(window, qtbot)
    card = window.canvas.graph_scene.node_item(d)
    assert [(p.name, p.is_input) for p in card.ports] == [
        ("x", True),
        ("y", True),
        ("z", True),
        ("out", False),
    ]
    assert _wired(window, d) == {"x": "a", "y": "b"}
    ports = [(full, drawn) for where, full, drawn in card.drawn_texts() if where == "port"]
    assert ports[:3] == [("x", "x"), ("y", "y"), ("z = 4", "z = 4")]  # none of them cut
    args = inspector.param_editors["args"].line
    assert args.text() == "x, y, z=4"
    assert "{" not in args.text()
    facts = window.canvas.graph_scene.facts_of(window.state.document.node_by_label("a").id)
    assert facts.grad == "10."


def test_typing_the_arguments_sets_a_value(window, qtbot) -> None:  # noqa: ANN001
    d, inspector = _open_004(window, qtbot)
    line = inspector.param_editors["args"].line
    line.setFocus()
    qtbot.waitUntil(line.hasFocus)
    line.selectAll()
    qtbot.keyClicks(line, "x, y, z=5")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    node = window.state.document.node(d)
    assert node.params["args"] == [{"name": "x"}, {"name": "y"}, {"name": "z", "value": 5}]
    ports = [full for where, full, _ in window.canvas.graph_scene.node_item(d).drawn_texts()]
    assert "z = 5" in ports
    run_and_wait(qtbot, window)
    b = window.state.document.node_by_label("b").id
    assert window.canvas.graph_scene.facts_of(b).grad == "11."  # x + z + x*z with z = 5


def test_new_code_brings_its_own_ports_and_undo_brings_back_the_wires(window, qtbot) -> None:  # noqa: ANN001
    d, inspector = _open_004(window, qtbot)
    editor = inspector.code_editor
    editor.setFocus()
    qtbot.waitUntil(editor.hasFocus)
    editor.selectAll()
    editor.insertPlainText(SCALED)
    apply = inspector.findChild(QPushButton, "applyCode")
    qtbot.mouseClick(apply, Qt.MouseButton.LeftButton)
    node = window.state.document.node(d)
    assert node.params["args"] == [{"name": "a"}, {"name": "b"}, {"name": "scale", "value": 2.0}]
    card = window.canvas.graph_scene.node_item(d)
    assert [p.name for p in card.ports if p.is_input] == ["a", "b", "scale"]
    assert _wired(window, d) == {}  # x and y went with their ports
    window.act_undo.trigger()
    node = window.state.document.node(d)
    assert [p.name for p in node.type.inputs] == ["x", "y", "z"]
    assert _wired(window, d) == {"x": "a", "y": "b"}
    assert [p.name for p in window.canvas.graph_scene.node_item(d).ports if p.is_input] == [
        "x",
        "y",
        "z",
    ]


def test_a_tensor_dropped_on_a_port_fills_that_argument(window, qtbot) -> None:  # noqa: ANN001
    d, _ = _open_004(window, qtbot)
    doc = window.state.document
    a = doc.node_by_label("a").id
    assert window.canvas.connect_ports(a, "out", d, "z")
    assert _wired(window, d) == {"x": "a", "y": "b", "z": "a"}
    run_and_wait(qtbot, window)
    assert not window.state.evaluation.errors
    # the backward returns None for z, so a's gradient comes through x alone:
    # gx = y + y * z = 2 + 2 * 1
    assert window.canvas.graph_scene.facts_of(a).grad == "4."
