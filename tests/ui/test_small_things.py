"""Issue 30's small things, each through what the user does: keys on the focused widget
and the window's actions.

CUDA without a GPU is greyed out wherever a device is chosen and says why in the status
bar; the Examples menu numbers each entry once; cards and palette rows follow a
theme switch (colours change, spacing does not); every open instance has its own
recovery file; the first Save As starts in the documents folder; Tab search puts the
types named like the query before those that only live in a ``Tensor.`` namespace.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, QStandardPaths, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox

import engine
from gradstudio.catalogue import catalogue
from tests.ui.uitools import Answers, add_source, make_window, wait_evaluated
from ui.inspector.params import ChoiceEditor
from ui.themes import DARK, LIGHT, apply_theme
from ui.window.main_window import MainWindow
from ui.window.settings import StudioSettings

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]
NO_CUPY = "CuPy cannot be imported (ModuleNotFoundError: No module named 'cupy')"


@pytest.fixture
def themed() -> Iterator[None]:
    """The application's style, palette and sheet as ``ui.app`` sets them, put back after."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    font, palette, sheet, style = app.font(), app.palette(), app.styleSheet(), app.style().name()
    apply_theme(app, "dark")
    yield
    app.setStyleSheet(sheet)
    app.setPalette(palette)
    app.setFont(font)
    app.setStyle(style)


def _close(window: MainWindow) -> None:
    window.runner.shutdown()
    window.bridge.set_clean()
    window.recovery.stop()


@pytest.fixture
def themed_window(  # noqa: ANN001
    themed, qtbot, settings: StudioSettings, answers: Answers
) -> Iterator[MainWindow]:
    window = make_window(qtbot, settings, answers)
    yield window
    _close(window)


def _row_colours(combo: QComboBox, row: int) -> Counter[str]:
    view = combo.view()
    image = view.viewport().grab().toImage()
    rect = view.visualRect(combo.model().index(row, 0)).intersected(image.rect())
    return Counter(
        image.pixelColor(x, y).name()
        for x in range(rect.left(), rect.right())
        for y in range(rect.top(), rect.bottom())
    )


def _open_popup(qtbot, combo: QComboBox) -> None:  # noqa: ANN001
    combo.setFocus()
    QTest.keyClick(combo, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(combo.view().isVisible)


def _assert_greyed_out(combo: QComboBox, row: int) -> None:
    colours = _row_colours(combo, row)
    assert colours[DARK.text_dim] > 0, "the row's text is not drawn in the dim colour"
    assert colours[DARK.text] == 0, "the row's text is drawn like an enabled one"
    assert not combo.model().flags(combo.model().index(row, 0)) & Qt.ItemFlag.ItemIsEnabled


# --------------------------------------------------------------------------- 1. CUDA


def test_cuda_without_a_gpu_is_greyed_out_and_says_why(  # noqa: ANN001
    themed, qtbot, settings, answers, monkeypatch
) -> None:
    monkeypatch.setattr(engine.cuda, "is_available", lambda: False)
    monkeypatch.setattr(engine.cuda, "unavailable_reason", lambda: NO_CUPY)
    window = make_window(qtbot, settings, answers)
    try:
        selector = window.device_selector
        _open_popup(qtbot, selector)
        _assert_greyed_out(selector, 1)
        # in words on the row itself, not only in a tooltip, and not cut in the open list
        assert selector.itemText(1) == "CUDA — CuPy cannot be imported"
        assert NO_CUPY in selector.item_tooltip("cuda")
        view = selector.view()
        assert view.fontMetrics().horizontalAdvance(selector.itemText(1)) < view.viewport().width()
        # the keys cannot reach it: Down stays on CPU, Enter keeps the CPU
        QTest.keyClick(selector.view(), Qt.Key.Key_Down)
        QTest.keyClick(selector.view(), Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: not selector.view().isVisible())
        assert selector.device == "cpu" and window.state.document.settings["device"] == "cpu"

        # a creation node's device parameter, in the inspector
        window.canvas.add_node("torch.zeros", window.canvas.view_center_scene())
        inspector = window.panel("inspector")
        qtbot.waitUntil(lambda: "device" in inspector.param_editors)
        editor = inspector.param_editors["device"]
        assert isinstance(editor, ChoiceEditor)
        row = [value for _, value in editor.choices].index("cuda")
        _open_popup(qtbot, editor.combo)
        _assert_greyed_out(editor.combo, row)
        editor.combo.hidePopup()
    finally:
        _close(window)


# --------------------------------------------------------------------------- 2. examples


def test_every_example_has_its_own_number(window, qtbot) -> None:  # noqa: ANN001
    actions = window.example_actions()
    numbers = [a.text().split()[0] for a in actions]
    assert all(n.isdigit() for n in numbers), numbers
    assert len(set(numbers)) == len(numbers), numbers
    shipped = sorted(p.name.split("_")[0] for p in (ROOT / "resources" / "examples").iterdir())
    assert len(set(shipped)) == len(shipped), shipped
    clone = next(a for a in actions if "accumulate" in a.text())
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        clone.trigger()
    assert window.example_name == "006_clone_accumulates"


# --------------------------------------------------------------------------- 3, 4. themes


def _canvas_colours(window: MainWindow) -> Counter[str]:
    image: QImage = window.canvas.viewport().grab().toImage()
    return Counter(
        image.pixelColor(x, y).name()
        for y in range(0, image.height(), 2)
        for x in range(0, image.width(), 2)
    )


def test_cards_follow_the_theme_on_and_off_screen(themed_window, qtbot, example_paths) -> None:  # noqa: ANN001
    window = themed_window
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        assert window.open_example(example_paths["005_mlp_training_step"], ask=False)
    wait_evaluated(qtbot, window)
    assert _canvas_colours(window)[DARK.node_body] > 0
    first = window.canvas.graph_scene.node_items()[0]
    window.canvas.scale(8.0, 8.0)  # most cards off screen while the theme changes
    window.canvas.centerOn(first.mapToScene(QPointF(first.width / 2, 40.0)))
    window.act_theme_light.trigger()
    window.act_zoom_fit.trigger()
    qtbot.waitUntil(lambda: _canvas_colours(window)[LIGHT.node_body] > 0)
    colours = _canvas_colours(window)
    assert colours[DARK.node_body] == 0 and colours[DARK.canvas] == 0
    window.act_theme_dark.trigger()
    qtbot.waitUntil(lambda: _canvas_colours(window)[DARK.node_body] > 0)
    assert _canvas_colours(window)[LIGHT.node_body] == 0


def test_switching_themes_keeps_the_palette_row_spacing(themed_window, qtbot) -> None:  # noqa: ANN001
    tree = themed_window.palette_widget.tree
    head = tree.topLevelItem(0)

    def rows() -> list[int]:
        rects = [tree.visualItemRect(head)] + [tree.visualItemRect(head.child(i)) for i in range(3)]
        return [r.height() for r in rects] + [rects[2].top() - rects[1].top()]

    before = rows()
    assert min(before) > 0
    themed_window.act_toggle_theme.trigger()
    assert themed_window.theme.name == "light"
    assert rows() == before
    themed_window.act_toggle_theme.trigger()
    assert rows() == before


# --------------------------------------------------------------------------- 5. recovery


def _edit_and_autosave(qtbot, window: MainWindow, label: str) -> None:  # noqa: ANN001
    window.recovery.timer.setInterval(10)
    with qtbot.waitSignal(window.recovery.saved, timeout=5000):
        add_source(window, label, [1.0], True)


def _labels(path: Path) -> set[str]:
    from gradstudio.interchange.fileformat import loads

    return {n.label for n in loads(path.read_bytes(), path).nodes()}


def test_each_open_instance_has_its_own_recovery_file(qtbot, settings, answers) -> None:  # noqa: ANN001
    first = make_window(qtbot, settings, answers)
    second = make_window(qtbot, settings, answers)
    _edit_and_autosave(qtbot, first, "mine")
    _edit_and_autosave(qtbot, second, "theirs")
    assert first.recovery.path != second.recovery.path
    assert _labels(first.recovery.path) == {"mine"}
    assert _labels(second.recovery.path) == {"theirs"}

    # a third start while both run offers neither: both owners are alive
    third = make_window(qtbot, settings, answers)
    answers.restore = True
    assert not third.offer_recovery()
    assert first.recovery.available() and second.recovery.available()

    # closing one removes its own file only
    first.bridge.set_clean()
    assert first.close()
    assert not first.recovery.path.exists() and second.recovery.path.is_file()

    # the second "crashes": the next start restores its graph
    second.recovery.stop()
    second.runner.shutdown()
    second.bridge.set_clean()
    second.hide()
    assert third.offer_recovery()
    assert {n.label for n in third.state.document.nodes()} == {"theirs"}
    assert not second.recovery.path.exists()  # adopted: now the third's own file
    assert _labels(third.recovery.path) == {"theirs"}
    _close(third)


CRASHING_INSTANCE = """
import os, sys
from PySide6.QtCore import QCoreApplication
from gradstudio.document.commands import AddNodeCommand
from ui.state import StudioState
from ui.window.recovery import Recovery

app = QCoreApplication([])
state = StudioState()
add = AddNodeCommand(state.document, "torch.tensor", (0, 0), {"data": [2.0]}, "lost")
state.undo_stack.push(add)
recovery = Recovery(state, sys.argv[1])
recovery.start()
assert recovery.write()
print(recovery.path, flush=True)
os._exit(1)  # a crash: no stop, no discard, the lock file left behind
"""


def test_a_crashed_process_recovery_file_is_found_at_the_next_start(  # noqa: ANN001
    qtbot, settings, answers
) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-c", CRASHING_INSTANCE, str(settings.directory)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    left = Path(done.stdout.strip().splitlines()[-1])
    assert left.is_file() and left.with_suffix(".lock").is_file()
    window = make_window(qtbot, settings, answers)
    try:
        answers.restore = True
        assert window.offer_recovery()
        assert {n.label for n in window.state.document.nodes()} == {"lost"}
        assert not left.exists() and not left.with_suffix(".lock").exists()
    finally:
        _close(window)


# --------------------------------------------------------------------------- 6. Save As


def test_the_first_save_as_starts_in_documents_then_where_one_saved(  # noqa: ANN001
    window, answers, tmp_path, example_paths
) -> None:
    documents = tmp_path / "Documents"
    documents.mkdir()
    config = Path(os.environ["XDG_CONFIG_HOME"])
    (config / "user-dirs.dirs").write_text(f'XDG_DOCUMENTS_DIR="{documents}"\n')
    location = QStandardPaths.StandardLocation.DocumentsLocation
    assert Path(QStandardPaths.writableLocation(location)) == documents
    # a file opened from another checkout's examples folder (File > Open)
    other = tmp_path / "other-checkout" / "resources" / "examples"
    other.mkdir(parents=True)
    opened = other / "001_leaf_grad.gstudio"
    opened.write_bytes(example_paths["001_leaf_grad"].read_bytes())
    answers.open_path = str(opened)
    window.act_open.trigger()
    assert window.file_path == str(opened.resolve())

    suggested: list[Path] = []

    def ask_save_path(caption: str, file_filter: str, start: str) -> str:
        suggested.append(Path(start))
        return answers.save_path

    window.ask_save_path = ask_save_path  # type: ignore[method-assign]
    window.example_actions()[0].trigger()  # an example: an untitled copy
    answers.save_path = ""  # the user cancels
    window.act_save_as.trigger()
    assert suggested[-1].parent == documents
    mine = tmp_path / "work" / "mine.gstudio"
    mine.parent.mkdir()
    answers.save_path = str(mine)
    window.act_save_as.trigger()
    assert mine.is_file()
    window.example_actions()[1].trigger()
    answers.save_path = ""
    window.act_save_as.trigger()
    assert suggested[-1].parent == mine.parent.resolve()


# --------------------------------------------------------------------------- 7. Tab search


def test_tab_search_lists_names_before_namespace_matches(window, qtbot) -> None:  # noqa: ANN001
    canvas = window.canvas
    canvas.setFocus()
    QTest.keyClick(canvas, Qt.Key.Key_Tab)
    popup = canvas.search
    qtbot.waitUntil(popup.isVisible)
    QTest.keyClicks(popup.field, "tensor")
    results = popup.results()
    types = {t.id: t for t in catalogue().types()}

    def named(type_id: str) -> bool:
        t = types[type_id]
        return "tensor" in t.title.lower() or "tensor" in type_id.lower().rsplit(".", 1)[-1]

    def described(type_id: str) -> bool:
        t = types[type_id]
        return "tensor" in t.category.lower() or "tensor" in t.doc.lower()

    assert results[0] == "torch.tensor"
    names = [r for r in results if named(r)]
    assert results[: len(names)] == names  # every name match first
    for in_place in ("Tensor.add_", "Tensor.sub_"):
        assert not named(in_place) and not described(in_place)
        at = results.index(in_place)
        assert all(results.index(r) < at for r in results if described(r) or named(r))
    QTest.keyClick(popup.field, Qt.Key.Key_Escape)
