"""The instruments in the studio: verify, check gradient, memory, what changed, minimap —
driven through the actions, context menus and keys a user has."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QFontMetricsF, QMouseEvent

from gradstudio.document.commands import SetParamCommand
from gradstudio.evaluation.budget import format_size
from gradstudio.instruments.gradcheck import GradcheckResult
from gradstudio.interchange.fileformat import load_document
from gradstudio.interchange.pytorch_import import import_snippet
from tests.ui.uitools import drag, node_view_pos, run_and_wait, send_mouse, wait_evaluated
from ui.instruments.gradcheck import CELL_PAD, GradcheckDialog, cell_text
from ui.instruments.memory import LISTED, bands, breakdown_html, step_text

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"
RIGHT_GY = "gy = grad_out * (x + z + x * z)"
WRONG_GY = "gy = grad_out * (x + z)"
SLOW = 120_000


def _open(window, qtbot, name: str, trusted: bool = True):  # noqa: ANN001, ANN202
    doc = load_document(EXAMPLES / name)
    doc.set_trusted(trusted)
    window.set_document(doc)
    if trusted:
        wait_evaluated(qtbot, window)
    return doc


def _node(doc, label: str) -> str:  # noqa: ANN001
    return next(n.id for n in doc.nodes() if n.label == label)


# ------------------------------------------------------------------------ verify


def test_verify_without_pytorch_says_how_to_install_it(
    window, qtbot, tmp_path, monkeypatch
) -> None:  # noqa: ANN001
    fake = tmp_path / "hide" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('hidden for this test')\n")
    monkeypatch.setenv("PYTHONPATH", str(fake.parent))
    _open(window, qtbot, "001_leaf_grad.gstudio")
    inst = window.instruments
    with qtbot.waitSignal(inst.verifier.job.done, timeout=SLOW):
        inst.act_verify.trigger()
    summary = inst.verify_panel.summary.text()
    assert "pip install torch==2.13.0" in summary and "Traceback" not in summary
    assert inst.verifier.report is None and not inst.verifier.marks.items
    assert "pip install torch==2.13.0" in window.statusBar().currentMessage()


def test_verify_marks_every_node_and_lists_differences(window, qtbot, monkeypatch) -> None:  # noqa: ANN001
    pytest.importorskip("torch")
    doc = _open(window, qtbot, "001_leaf_grad.gstudio")
    inst = window.instruments
    with qtbot.waitSignal(inst.verifier.job.done, timeout=SLOW):
        inst.act_verify.trigger()
    report = inst.verifier.report
    assert report is not None and report.agrees
    assert set(inst.verifier.marks.items) == {m.node_id for m in report.marks}
    assert all(m.text == "✓ PyTorch" for m in (inst.verifier.marks.mark(n.id) for n in doc.nodes()))
    assert "every step agrees" in inst.verify_panel.summary.text()
    assert inst.verify_panel.table.rowCount() == 0
    # the inspector says it for the selected node
    window.state.select([_node(doc, "y")])
    section = window.panel("inspector").findChild(type(inst.verify_panel.summary), "verifySection")
    assert section is not None and "agrees with PyTorch" in section.text()
    # an edit makes the report stale: the marks go
    window.bridge.push(lambda: SetParamCommand(doc, _node(doc, "w"), "requires_grad", False))
    assert inst.verifier.report is None and not inst.verifier.marks.items


def test_verify_reports_a_difference_in_the_table_and_the_inspector(window, qtbot) -> None:  # noqa: ANN001
    from gradstudio.instruments.verify import Difference, NodeMark, VerifyReport

    doc = _open(window, qtbot, "001_leaf_grad.gstudio")
    y = _node(doc, "y")
    marks = tuple(
        NodeMark(s.node_id, s.label, i, (Difference("y", "value", "[1.0]", "[2.0]"),))
        if s.node_id == y
        else NodeMark(s.node_id, s.label, i, ())
        for i, s in enumerate(window.state.evaluation.plan.steps)
    )
    inst = window.instruments
    inst.verifier._done({"result": VerifyReport(marks, "2.13.0")})  # what the child sends
    assert inst.verifier.marks.mark(y).text == "✗ 1 differs"
    table = inst.verify_panel.table
    assert table.rowCount() == 1
    cells = [table.item(0, c).text() for c in range(4)]
    assert cells == ["y", "value", "[1.0]", "[2.0]"]
    table.cellClicked.emit(0, 0)
    assert window.state.selection == (y,)
    section = window.panel("inspector").findChild(type(inst.verify_panel.summary), "verifySection")
    assert "differs from PyTorch" in section.text() and "[2.0]" in section.text()


def test_verify_can_be_cancelled(window, qtbot) -> None:  # noqa: ANN001
    _open(window, qtbot, "001_leaf_grad.gstudio")
    inst = window.instruments
    inst.act_verify.trigger()
    assert inst.verifier.busy and inst.act_cancel_verify.isEnabled()
    with qtbot.waitSignal(inst.verifier.job.done, timeout=SLOW) as done:
        inst.act_cancel_verify.trigger()
    assert done.args == [{"cancelled": "stopped"}]
    assert not inst.verifier.busy and inst.verifier.report is None


# --------------------------------------------------------------------- gradcheck


def _wrong_gy(window, qtbot):  # noqa: ANN001, ANN202
    doc = load_document(EXAMPLES / "004_custom_function.gstudio")
    d = _node(doc, "d")
    doc.set_param(d, "source", doc.node(d).params["source"].replace(RIGHT_GY, WRONG_GY))
    doc.set_trusted(True)
    window.set_document(doc)
    wait_evaluated(qtbot, window)
    return doc, d


def _gradcheck_from_menu(window, qtbot, node_id: str) -> GradcheckDialog:  # noqa: ANN001
    canvas = window.canvas
    menu = canvas.context_menu(node_view_pos(window, node_id))
    (action,) = [a for a in menu.actions() if a.text() == "Check gradient…"]
    action.trigger()
    dialogs = window.instruments.dialogs
    dialog = dialogs[-1]
    qtbot.waitUntil(lambda: dialog.result is not None or bool(dialog.error), timeout=SLOW)
    return dialog


def test_check_gradient_flags_seed_004s_wrong_gy(window, qtbot) -> None:  # noqa: ANN001
    _, d = _wrong_gy(window, qtbot)
    dialog = _gradcheck_from_menu(window, qtbot, d)
    result = dialog.result
    assert isinstance(result, GradcheckResult) and not result.passed
    assert "FAILED" in dialog.verdict.text() and "1 entry differs" in dialog.verdict.text()
    assert "Largest error 4" in dialog.details.text()
    analytic, numerical = dialog.maps
    assert analytic.bad == [(0, 1)] == numerical.bad
    # hovering the outlined entry tells where it is and both values
    cells = analytic.cells()
    centre = QPointF(cells.left() + cells.width() * 0.75, cells.top() + cells.height() / 2)
    assert analytic.entry_at(centre) == (0, 1)
    with qtbot.waitSignal(analytic.hovered) as hovered:
        send_mouse(analytic, QMouseEvent.Type.MouseMove, centre.toPoint(), Qt.MouseButton.NoButton)
    assert hovered.args == [0, 1]
    tip = analytic.tooltip(0, 1)
    assert "entry (0, 1)" in tip and "analytic 5" in tip and "numerical 9" in tip
    assert "DIFFERS" in tip and "agrees" in analytic.tooltip(0, 0)
    # the colour scale is shared: equal values are equal colours in both maps
    assert analytic.image.pixel(0, 0) == numerical.image.pixel(0, 0)
    assert analytic.image.pixel(1, 0) != numerical.image.pixel(1, 0)
    dialog.close()


def _numbers_fit(heat) -> bool:  # noqa: ANN001
    metrics = QFontMetricsF(heat.font())
    cells = heat.cells()
    cols = heat.values.shape[1]
    width = cells.width() / cols
    return all(metrics.horizontalAdvance(text) <= width for _, _, text in heat.drawn_numbers)


def test_check_gradient_writes_each_number_in_its_cell(window, qtbot) -> None:  # noqa: ANN001
    """Issue 30: the two entries of seed 004's 1 x 2 Jacobian are written in their cells,
    without hovering; the tooltip still tells the longer story."""
    _, d = _wrong_gy(window, qtbot)
    dialog = _gradcheck_from_menu(window, qtbot, d)
    dialog.show()
    analytic, numerical = dialog.maps
    qtbot.waitUntil(lambda: bool(analytic.drawn_numbers and numerical.drawn_numbers))
    assert analytic.drawn_numbers == [(0, 0, "10"), (0, 1, "5")]
    assert numerical.drawn_numbers == [(0, 0, "10"), (0, 1, "9")]
    assert _numbers_fit(analytic) and _numbers_fit(numerical)
    assert "analytic 5" in analytic.tooltip(0, 1) and "numerical 9" in analytic.tooltip(0, 1)
    dialog.close()


def test_cells_too_small_for_their_numbers_keep_the_colour_and_tooltip(window, qtbot) -> None:  # noqa: ANN001
    code = "import torch\nx = torch.linspace(-1, 1, 60, requires_grad=True)\ny = x.exp()\n"
    window.set_document(import_snippet(code))
    wait_evaluated(qtbot, window)
    doc = window.state.document
    dialog = _gradcheck_from_menu(window, qtbot, _node(doc, "y"))
    dialog.show()
    analytic = dialog.maps[0]
    qtbot.waitExposed(dialog)
    analytic.repaint()
    assert analytic.values.shape == (60, 60)
    assert analytic.cells().width() / 60 < 20  # too narrow for "0.368"
    assert analytic.drawn_numbers == []
    assert "analytic 0.367879" in analytic.tooltip(0, 0)
    dialog.resize(2400, 2400)  # bigger cells: the numbers that fit come back, each whole
    qtbot.waitUntil(lambda: bool(analytic.drawn_numbers))
    assert (0, 1, "0") in analytic.drawn_numbers
    assert _numbers_fit(analytic)
    metrics = QFontMetricsF(analytic.font())
    width = analytic.cells().width() / 60
    fitting = {
        (r, c)
        for r in range(60)
        for c in range(60)
        if metrics.horizontalAdvance(cell_text(analytic.values[r, c])) + 2 * CELL_PAD <= width
    }
    assert {(r, c) for r, c, _ in analytic.drawn_numbers} == fitting
    dialog.close()


def test_check_gradient_from_the_run_menu_passes_a_right_backward(window, qtbot) -> None:  # noqa: ANN001
    doc = _open(window, qtbot, "004_custom_function.gstudio")
    inst = window.instruments
    window.state.select([_node(doc, "a")])
    assert not inst.act_gradcheck.isEnabled()  # a leaf has nothing to check
    window.state.select([_node(doc, "d")])
    assert inst.act_gradcheck.isEnabled()
    inst.act_gradcheck.trigger()
    dialog = inst.dialogs[-1]
    qtbot.waitUntil(lambda: dialog.result is not None or bool(dialog.error), timeout=SLOW)
    assert dialog.result is not None and dialog.result.passed
    assert "passed" in dialog.verdict.text()
    dialog.close()


def test_check_gradient_of_untrusted_code_does_not_run_it(window, qtbot) -> None:  # noqa: ANN001
    doc = _open(window, qtbot, "004_custom_function.gstudio", trusted=False)
    d = _node(doc, "d")
    menu = window.canvas.context_menu(node_view_pos(window, d))
    (action,) = [a for a in menu.actions() if a.text() == "Check gradient…"]
    action.trigger()
    dialog = window.instruments.dialogs[-1]
    qtbot.waitUntil(lambda: dialog.result is not None or bool(dialog.error), timeout=SLOW)
    assert dialog.result is None and "trust" in dialog.error
    assert "Cannot check" in dialog.verdict.text()
    dialog.close()


def test_a_leaf_has_no_check_gradient_in_its_menu(window, qtbot) -> None:  # noqa: ANN001
    doc = _open(window, qtbot, "001_leaf_grad.gstudio")
    menu = window.canvas.context_menu(node_view_pos(window, _node(doc, "w")))
    assert "Check gradient…" not in [a.text() for a in menu.actions()]
    menu = window.canvas.context_menu(node_view_pos(window, _node(doc, "y")))
    assert "Check gradient…" in [a.text() for a in menu.actions()]


# ------------------------------------------------------------------------ memory

SNIPPET = """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.retain_grad()
z = (y * y).sum()
z.backward()
"""


def test_memory_strip_and_inspector_show_the_playheads_numbers(window, qtbot) -> None:  # noqa: ANN001
    window.set_document(import_snippet(SNIPPET))
    wait_evaluated(qtbot, window)
    timeline = window.panel("timeline")
    strip = timeline.memory_strip
    playhead = window.state.playhead
    steps = playhead.memory_steps()
    assert strip.isVisible() and len(steps) == playhead.step_count
    last = len(steps) - 1
    assert "backward freed" in step_text(steps, last)
    html = breakdown_html(window.state)
    assert "this backward freed" in html and "kept by retain_grad()" in html
    inspector = window.panel("inspector")
    label = inspector.findChild(type(inspector.title), "memoryBreakdown")
    assert label is not None and label.text() == html
    # a click on a bar moves the one playhead; the inspector follows
    before = last - 1
    x = int(strip.bar_rect(before).center().x())
    send_mouse(strip, QMouseEvent.Type.MouseButtonPress, QPoint(x, strip.height() // 2))
    assert playhead.effective_step == before
    label = inspector.findChild(type(inspector.title), "memoryBreakdown")
    assert label.text() == breakdown_html(window.state) != html
    assert f"saved tensors: {bands(steps[before])[1]} bytes" in label.text()
    # keys on the timeline move it too, and the strip outlines the same step
    window.act_step_next.trigger()
    assert playhead.effective_step == last


def test_a_long_breakdown_names_the_first_grad_fns_and_sums_up_the_rest(window, qtbot) -> None:  # noqa: ANN001
    lines = ["import torch", "x = torch.ones(2, requires_grad=True)", "w = torch.ones(2)"]
    lines += [f"y{i} = x * w" for i in range(20)]
    window.set_document(import_snippet("\n".join(lines) + "\n"))
    wait_evaluated(qtbot, window)
    m = window.state.playhead.memory_now()
    assert m is not None and len(m.saved) == 20 > LISTED
    html = breakdown_html(window.state)
    assert html.count("MulBackward0:") == LISTED
    rest = sum(s.bytes for s in m.saved[LISTED:])
    assert f"… and {20 - LISTED} more grad_fns: {format_size(rest)}" in html


# ------------------------------------------------------------------ what changed


def test_what_changed_after_an_edit_and_a_run(window, qtbot) -> None:  # noqa: ANN001
    doc = _open(window, qtbot, "001_leaf_grad.gstudio")
    inst = window.instruments
    assert not inst.changes.shown  # the first run has nothing to compare with
    w = _node(doc, "w")
    window.bridge.push(lambda: SetParamCommand(doc, w, "requires_grad", False))
    run_and_wait(qtbot, window)
    changed = inst.changes.shown
    assert set(changed) == {w, _node(doc, "b")}
    assert inst.changes.marks.mark(w).text == "changed" and inst.changes.marks.mark(w).outline
    rows = [inst.changes_panel.list.item(i).text() for i in range(inst.changes_panel.list.count())]
    assert "w: requires_grad True → False" in rows and "b: grad_fn AddBackward0 → None" in rows
    # a click on a row selects its node
    item = inst.changes_panel.list.item(rows.index("b: grad_fn AddBackward0 → None"))
    inst.changes_panel.list.itemClicked.emit(item)
    assert window.state.selection == (_node(doc, "b"),)
    # the toggle hides it; the next edit clears it
    inst.act_changes.trigger()
    assert not inst.changes.marks.items and inst.changes_panel.list.count() == 0
    inst.act_changes.trigger()
    assert inst.changes.marks.items
    window.bridge.push(lambda: SetParamCommand(doc, w, "requires_grad", True))
    assert not inst.changes.marks.items and not inst.changes.shown


# ------------------------------------------------------------------------ minimap


def _big_graph(n: int) -> str:
    lines = ["import torch", "x0 = torch.ones(2, requires_grad=True)"]
    lines += [f"x{i} = x{i - 1} * 2" for i in range(1, n)]
    return "\n".join(lines) + "\n"


def test_minimap_shows_big_graphs_and_its_rectangle_pans_the_view(window, qtbot) -> None:  # noqa: ANN001
    window.set_document(import_snippet(_big_graph(60)), run=False)
    canvas = window.canvas
    minimap = window.instruments.minimap
    canvas.zoom_reset()
    assert not minimap.isVisible()
    window.instruments.act_minimap.trigger()
    assert minimap.isVisible() and minimap.needed()
    minimap.repaint()
    redraws = minimap.redraws
    # panning only moves the rectangle: the cards are not drawn again
    canvas.pan_by(-200, 0)
    minimap.repaint()
    assert minimap.redraws == redraws
    # dragging the rectangle pans the canvas by the same amount in scene units
    rect = minimap.view_rect_on_map()
    before = minimap.visible_rect()
    start = rect.center().toPoint()
    drag(minimap, start, start + QPoint(20, 0))
    after = minimap.visible_rect()
    moved = (after.center().x() - before.center().x()) * minimap._transform()[0]
    assert moved == pytest.approx(20, abs=2)
    # a click elsewhere centres the view there
    target = QPoint(minimap.width() - 12, minimap.height() // 2)
    send_mouse(minimap, QMouseEvent.Type.MouseButtonPress, target)
    send_mouse(minimap, QMouseEvent.Type.MouseButtonRelease, target)
    centre = minimap.to_map(minimap.visible_rect()).center()
    assert (
        abs(centre.x() - target.x()) < 3
        or minimap.visible_rect().right() >= minimap.world().right()
    )
    # moving a node redraws the cached cards once
    doc = window.state.document
    first = doc.nodes()[0].id
    from gradstudio.document.commands import MoveNodesCommand

    window.bridge.push(lambda: MoveNodesCommand(doc, {first: (-900.0, -900.0)}))
    minimap.repaint()
    assert minimap.redraws == redraws + 1
    # a new theme redraws the cards in its colours
    drawn = minimap.redraws
    window.act_toggle_theme.trigger()
    qtbot.waitUntil(lambda: minimap.redraws > drawn)
    window.instruments.act_minimap.trigger()
    assert not minimap.isVisible()


def test_minimap_stays_hidden_when_the_graph_fits(window, qtbot) -> None:  # noqa: ANN001
    _open(window, qtbot, "001_leaf_grad.gstudio")
    window.canvas.fit_all()
    window.instruments.act_minimap.trigger()
    assert not window.instruments.minimap.isVisible()
    assert window.instruments.act_minimap.shortcut().toString() == "Ctrl+M"


def test_retain_graph_keeps_saved_tensors_in_the_breakdown(window, qtbot) -> None:  # noqa: ANN001
    window.set_document(
        import_snippet(SNIPPET.replace("z.backward()", "z.backward(retain_graph=True)"))
    )
    wait_evaluated(qtbot, window)
    html = breakdown_html(window.state)
    assert "retain_graph=True keeps them" in html and "freed" not in html
    strip = window.panel("timeline").memory_strip
    steps = window.state.playhead.memory_steps()
    assert "backward freed" not in step_text(steps, len(steps) - 1)
    assert strip.isVisible()


# -------------------------------------------------------------------------- keys


def test_instrument_keys_on_the_focused_canvas(window, qtbot) -> None:  # noqa: ANN001
    doc = _open(window, qtbot, "004_custom_function.gstudio")
    window.state.select([_node(doc, "d")])
    canvas = window.canvas
    canvas.setFocus()
    qtbot.waitUntil(canvas.hasFocus)
    ctrl = Qt.KeyboardModifier.ControlModifier
    shift = Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(canvas, Qt.Key.Key_M, ctrl)
    assert window.instruments.act_minimap.isChecked()
    before = len(window.instruments.dialogs)
    qtbot.keyClick(canvas, Qt.Key.Key_G, ctrl | shift)
    assert len(window.instruments.dialogs) == before + 1
    dialog = window.instruments.dialogs[-1]
    qtbot.waitUntil(lambda: dialog.result is not None or bool(dialog.error), timeout=SLOW)
    assert dialog.result is not None and dialog.result.passed
    dialog.close()
    window.activateWindow()
    canvas.setFocus()
    qtbot.waitUntil(canvas.hasFocus)
    with qtbot.waitSignal(window.instruments.verifier.job.busyChanged, timeout=SLOW):
        qtbot.keyClick(canvas, Qt.Key.Key_V, ctrl | shift)
    assert window.instruments.verifier.busy
    window.instruments.act_cancel_verify.trigger()
    assert not window.instruments.verifier.busy
