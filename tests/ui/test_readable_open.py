"""An imported training loop opens readable (issues 26 and 30), and a saved layout is the user's.

A learner's 5-step ``nn.Module`` + SGD loop, and a 300-step loop folded to its first
and last steps, are imported through File › Import Program at the window's first-start
size on a 1280×720 screen.  They open with the last backward, its loss and as much of
the last iteration as fits in view, at a zoom where the cards' smallest text is at
least ``READABLE_PX`` on screen, not fitted to a speck; the minimap shows where that
is; no frame or collapsed card cuts its title, there or zoomed out to the whole graph;
the backward-graph panel shows its graph fitted.  The import's tidy pass is one undo
step; a file opened again, even one whose cards overlap, keeps every position, and
opens at the view it was saved at.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontInfo
from PySide6.QtWidgets import QFileDialog

from gradstudio.document.layout import auto_layout
from gradstudio.interchange.fileformat import dumps, loads
from tests.ui.test_no_elided_text import SMALL_SCREEN, first_start_window
from tests.ui.test_panels_in_view import fitted
from tests.ui.uitools import Answers, wait_evaluated
from ui.canvas.group_item import GroupFrameItem
from ui.canvas.home_view import READABLE_PX, last_backward, readable_zoom
from ui.canvas.style import LOD_TEXT
from ui.window.main_window import MainWindow
from ui.window.settings import StudioSettings

pytestmark = pytest.mark.gui

PROGRAMS = Path(__file__).parents[1] / "gradstudio" / "programs"
LOOPS = ["module_sgd", "training_loop"]


@pytest.fixture
def first_start(qtbot, settings: StudioSettings, answers: Answers) -> Iterator[MainWindow]:  # noqa: ANN001
    """The window a first start opens on a 1280×720 screen, answering as ``answers`` says."""
    with first_start_window(qtbot, settings, answers, SMALL_SCREEN) as window:
        window.ask_open_path = lambda: answers.open_path  # type: ignore[method-assign]
        window.ask_save_path = lambda *a: answers.save_path  # type: ignore[method-assign]
        yield window


def import_program(window: MainWindow, qtbot, monkeypatch, name: str) -> None:  # noqa: ANN001
    """File › Import Program, the program chosen, Run clicked; waits for its evaluation."""
    path = str(PROGRAMS / f"{name}.py")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (path, ""))
    window.act_import_program.trigger()
    qtbot.waitUntil(lambda: window.program_dialog is not None and window.program_dialog.isVisible())
    window.program_dialog.run_button.click()
    qtbot.waitUntil(lambda: window.program_dialog is None, timeout=60000)
    wait_evaluated(qtbot, window, timeout=30000)


def shown_rect(window: MainWindow) -> QRectF:
    canvas = window.canvas
    return canvas.mapToScene(canvas.viewport().rect()).boundingRect()


def cut_titles(window: MainWindow) -> list[tuple[str, str]]:
    """(title, drawn) of every frame and collapsed card on screen whose title, painted
    at the canvas's zoom now, is not drawn whole.  Far out, a frame nested in another
    draws none (its far label would collide with its parent's); none is ever cut."""
    canvas = window.canvas
    groups = list(canvas.graph_scene.groups.items())
    for item in groups:
        item.drawn_title = "?"
    canvas.viewport().grab()
    shown = shown_rect(window)
    far = canvas.zoom < LOD_TEXT
    cut = []
    for item in groups:
        if not shown.intersects(item.sceneBoundingRect()):
            continue
        nested = isinstance(item, GroupFrameItem) and item.group.parent is not None
        if item.drawn_title != item.group.title and not (far and nested and not item.drawn_title):
            cut.append((item.group.title, item.drawn_title))
    return cut


def positions(window: MainWindow) -> dict[str, tuple[float, float]]:
    return {n.id: n.position for n in window.state.document.nodes()}


@pytest.mark.parametrize("name", LOOPS)
def test_an_imported_loop_opens_readable_on_its_last_iteration(
    first_start,
    qtbot,
    monkeypatch,
    name,  # noqa: ANN001
) -> None:
    window = first_start
    import_program(window, qtbot, monkeypatch, name)
    canvas = window.canvas
    style = canvas.graph_scene.style
    least = readable_zoom(style)
    assert least >= LOD_TEXT  # the cards draw their text, not their far labels
    assert canvas.zoom >= least
    assert QFontInfo(style.small_font).pixelSize() * canvas.zoom >= READABLE_PX
    assert QFontInfo(style.mono_font).pixelSize() * canvas.zoom >= READABLE_PX
    doc = window.state.document
    backward = last_backward(doc)
    assert backward is not None
    shown = shown_rect(window)
    feeding = [e.src for e in doc.edges_of(backward) if e.dst == backward]
    for node_id in (backward, *feeding):  # the loss and its backward, whole
        item = canvas.graph_scene.node_item(node_id)
        assert item is not None and shown.contains(item.sceneBoundingRect()), node_id
    # the whole graph would not read at the first-start size: this is not a fit
    everything = QRectF()
    for item in canvas.graph_scene.node_items():
        if item.isVisible():
            everything = everything.united(item.sceneBoundingRect())
    assert not shown.contains(everything)
    # View › Minimap (Ctrl+M) shows where this is in the whole loop, in a strip as low
    # as the loop's shape needs (not a box of empty canvas over the cards)
    window.instruments.act_minimap.trigger()
    minimap = window.instruments.minimap
    assert minimap.isVisible()
    assert QRectF(minimap.rect()).contains(minimap.view_rect_on_map())
    assert minimap.height() < minimap.width() / 2
    # the frames on screen show their titles whole, and so does the whole graph zoomed
    # out (Ctrl+0), where the top-level frames' far labels read
    assert any(shown.intersects(i.sceneBoundingRect()) for i in canvas.graph_scene.groups.items())
    assert not cut_titles(window)
    window.act_zoom_fit.trigger()
    assert canvas.zoom < LOD_TEXT
    assert not cut_titles(window)
    layer = canvas.graph_scene.groups
    tops = [f for f in layer.frames.values() if f.group.parent is None]
    assert tops and all(f.far_label is not None and f.far_label.isVisible() for f in tops)
    assert all(f.title_px >= 8.0 for f in tops)
    # the backward graph panel shows its graph fitted
    qtbot.waitUntil(lambda: fitted(window.backward_view))


def test_the_import_tidy_is_one_undo_step(first_start, qtbot, monkeypatch) -> None:  # noqa: ANN001
    window = first_start
    import_program(window, qtbot, monkeypatch, "module_sgd")
    tidied = positions(window)
    assert window.act_undo.isEnabled()
    window.act_undo.trigger()  # Ctrl+Z: the importer's own layout, all of it at once
    doc = window.state.document
    assert positions(window) != tidied
    assert positions(window) == auto_layout(doc)  # what the importer placed (default sizes)
    assert not window.act_undo.isEnabled()
    window.act_redo.trigger()
    assert positions(window) == tidied


def test_reopening_keeps_every_position_and_the_view(
    first_start,
    qtbot,
    monkeypatch,
    answers,
    tmp_path,  # noqa: ANN001
) -> None:
    window = first_start
    import_program(window, qtbot, monkeypatch, "module_sgd")
    canvas = window.canvas
    opened = canvas.view_state()
    window.act_zoom_in.trigger()  # the user looks closer, and elsewhere
    canvas.pan_by(-150.0, 40.0)
    seen = canvas.view_state()
    assert seen[0] > opened[0] and seen[1:] != opened[1:]
    answers.save_path = str(tmp_path / "loop.gstudio")
    window.act_save.trigger()
    assert Path(answers.save_path).is_file()
    saved = positions(window)
    window.act_new.trigger()
    assert len(window.state.document) == 0
    answers.open_path = answers.save_path
    with qtbot.waitSignal(window.runner.finished, timeout=30000):
        window.act_open.trigger()
    assert positions(window) == saved
    assert not window.act_undo.isEnabled()  # nothing was re-arranged
    zoom, x, y = canvas.view_state()  # what the user saw when they saved
    assert zoom == pytest.approx(seen[0])
    assert abs(x - seen[1]) <= 1.0 and abs(y - seen[2]) <= 1.0


def test_a_file_seen_for_the_first_time_opens_where_its_import_did(
    first_start,
    qtbot,
    monkeypatch,
    answers,
    tmp_path,  # noqa: ANN001
) -> None:
    """A file this studio never showed (written by ``gradstudio import --run``, or on
    another computer) opens at the same readable view as the import it came from."""
    window = first_start
    import_program(window, qtbot, monkeypatch, "module_sgd")
    opened = window.canvas.view_state()
    path = tmp_path / "from_elsewhere.gstudio"
    path.write_text(dumps(window.state.document), encoding="utf-8")
    window.act_new.trigger()
    answers.open_path = str(path)
    with qtbot.waitSignal(window.runner.finished, timeout=30000):
        window.act_open.trigger()
    zoom, x, y = window.canvas.view_state()
    assert zoom == pytest.approx(opened[0])
    assert abs(x - opened[1]) <= 1.0 and abs(y - opened[2]) <= 1.0


def test_a_file_whose_cards_overlap_opens_as_it_was_saved(
    first_start,
    qtbot,
    answers,
    tmp_path,
    example_paths,  # noqa: ANN001
) -> None:
    """An old file laid out for smaller cards is not re-arranged behind the user's back:
    the status bar says that Auto-Layout would, as one undo step."""
    window = first_start
    doc = loads(example_paths["005_mlp_training_step"].read_text("utf-8"))
    for i, node in enumerate(list(doc.nodes())):
        doc.move_node(node.id, 10.0 * i, 8.0 * i)  # every card on top of the next
    path = tmp_path / "overlapping.gstudio"
    path.write_text(dumps(doc), encoding="utf-8")
    before = {n.id: n.position for n in doc.nodes()}
    answers.open_path = str(path)
    with qtbot.waitSignal(window.runner.finished, timeout=30000):
        window.act_open.trigger()
    assert positions(window) == before
    assert not window.act_undo.isEnabled()
    assert "Auto-Layout" in window.statusBar().currentMessage()
    window.act_layout.trigger()
    assert positions(window) != before
    window.act_undo.trigger()
    assert positions(window) == before
