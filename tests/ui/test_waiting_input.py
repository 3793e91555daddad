"""A node just added from the palette asks for its inputs instead of failing the run.

The core marks a step with unwired required inputs ``waiting`` (and the steps that
read from it ``waits for``); the card, the inspector, the timeline and the status bar
all say so as a hint, never as the red ``NodeInputError`` of a failed step.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gradstudio.document.commands import ConnectCommand
from tests.ui.uitools import add_source
from ui.canvas.node_item import NodeItem
from ui.timeline.panel import WAITING


def _add_from_palette(window, qtbot, query: str, type_id: str) -> str:  # noqa: ANN001
    palette = window.palette_widget
    palette.search.setFocus()
    qtbot.keyClicks(palette.search, query)
    assert palette.visible_types()[0] == type_id
    before = {n.id for n in window.state.document.nodes()}
    qtbot.keyClick(palette.search, Qt.Key.Key_Return)
    (added,) = {n.id for n in window.state.document.nodes()} - before
    palette.search.clear()
    return added


def _run(window, qtbot) -> None:  # noqa: ANN001
    with qtbot.waitSignal(window.runner.finished, timeout=15000):
        window.act_run.trigger()
    qtbot.waitUntil(lambda: window.state.evaluation is not None and not window.runner.busy)
    QApplication.processEvents()


def _card_text(window, node_id: str) -> str:  # noqa: ANN001
    item = window.canvas.graph_scene.node_item(node_id)
    assert isinstance(item, NodeItem)
    texts = item.drawn_texts()
    assert all(full == drawn for _part, full, drawn in texts)  # nothing cut
    return " ".join(drawn for part, _full, drawn in texts if part == "facts")


def test_a_fresh_op_says_which_input_to_connect(window, qtbot) -> None:  # noqa: ANN001
    a = add_source(window, "a", [1.0, 2.0], True)
    mul = _add_from_palette(window, qtbot, "torch.mul", "torch.mul")
    _run(window, qtbot)
    ev = window.state.evaluation
    assert ev is not None and not ev.errors and ev.ok
    facts = window.canvas.graph_scene.facts_of(mul)
    assert facts.status == "waiting"
    assert facts.waiting_text == "connect inputs `input`, `other`"
    assert "connect inputs `input`, `other`" in _card_text(window, mul)
    item = window.canvas.graph_scene.node_item(mul)
    assert item is not None
    assert item.border_color(window.canvas.graph_scene.style) != window.canvas.graph_scene.style.c(
        "error"
    )
    assert "connect inputs" in window.error_label.text() and "⚠" not in window.error_label.text()
    assert window.error_label.property("hint")  # the hint colour, not the error red
    window.canvas.select_nodes([mul])
    QApplication.processEvents()
    inspector = window.panel("inspector")
    assert "waiting for input" in inspector.status.text()
    assert "Connect inputs `input`, `other`" in inspector.facts_note.text()
    assert inspector.problem_section.isHidden()
    # `a` still ran: a waiting node does not stop the others
    assert window.canvas.graph_scene.facts_of(a).status == "ok"

    doc = window.state.document
    window.bridge.push(lambda: ConnectCommand(doc, a, "out", mul, "input"))
    _run(window, qtbot)
    assert window.canvas.graph_scene.facts_of(mul).waiting_text == "connect input `other`"


def test_steps_that_read_a_waiting_node_wait_for_it(window, qtbot) -> None:  # noqa: ANN001
    mul = _add_from_palette(window, qtbot, "torch.mul", "torch.mul")
    exp = _add_from_palette(window, qtbot, "torch.exp", "torch.exp")
    doc = window.state.document
    window.bridge.push(lambda: ConnectCommand(doc, mul, "out", exp, "input"))
    _run(window, qtbot)
    facts = window.canvas.graph_scene.facts_of(exp)
    label = doc.node(mul).label
    assert facts.status == "waiting" and facts.waiting_text == f"waits for `{label}`"
    assert f"waits for `{label}`" in _card_text(window, exp)
    timeline = window.panel("timeline")
    markers = timeline.slider.markers
    steps = window.state.document.order
    assert {markers[steps.index(mul)].name(), markers[steps.index(exp)].name()} == {WAITING}
    window.state.playhead.go_to_step(steps.index(exp))
    QApplication.processEvents()
    assert f"waits for `{label}`" in timeline.caption.text()
