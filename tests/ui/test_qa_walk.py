"""Defects found walking through the studio as a user, each through the user's entry
points: Zoom to Fit with nested frames, the Run to Import dialog's layout."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QFontMetricsF, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QToolButton, QWidget

from tests.ui.uitools import add_source
from ui.canvas.overview import OVERVIEW_LOD
from ui.window.program_dialog import ProgramDialog

pytestmark = pytest.mark.gui


def group_with_ctrl_g(window, qtbot, ids: list[str]) -> str:  # noqa: ANN001
    canvas = window.canvas
    before = set(window.state.document.groups)
    canvas.select_nodes(ids)
    canvas.setFocus()
    qtbot.waitUntil(canvas.hasFocus)
    QTest.keyClick(canvas, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    (gid,) = set(window.state.document.groups) - before
    return gid


def visible_scene_rect(window):  # noqa: ANN001, ANN201
    canvas = window.canvas
    return canvas.mapToScene(canvas.viewport().rect()).boundingRect()


def test_zoom_to_fit_shows_nested_frames_whole(window, qtbot) -> None:  # noqa: ANN001
    """A column of cards in two nested groups: the outer frame's title bar rises 84 px
    above the top card, beyond the fit's margin, and was cut off."""
    window.resize(1024, 700)
    ids = [add_source(window, f"n{i}", [1.0], True, (0, i * 150)) for i in range(6)]
    outer = group_with_ctrl_g(window, qtbot, ids[:4])
    inner = group_with_ctrl_g(window, qtbot, ids[:2])
    window.act_zoom_fit.trigger()
    groups = window.canvas.graph_scene.groups
    shown = visible_scene_rect(window)
    for gid in (outer, inner):
        frame = groups.frame(gid)
        assert frame is not None
        assert shown.contains(frame.scene_rect()), gid


def test_zoom_to_fit_frames_a_collapsed_card_not_its_hidden_members(window, qtbot) -> None:  # noqa: ANN001
    """Collapsed, a long group is one small card: fitting counts the card, not the
    hidden cards spread where the group used to be."""
    window.resize(1024, 700)
    ids = [add_source(window, f"n{i}", [1.0], True, (0, i * 400)) for i in range(6)]
    gid = group_with_ctrl_g(window, qtbot, ids)
    canvas = window.canvas
    canvas.setFocus()
    QTest.keyClick(canvas, Qt.Key.Key_C, Qt.KeyboardModifier.AltModifier)
    assert window.state.document.group(gid).collapsed
    window.act_zoom_fit.trigger()
    card = canvas.graph_scene.groups.card(gid)
    assert card is not None
    shown = visible_scene_rect(window)
    assert shown.contains(card.scene_rect())
    assert card.scene_rect().height() * canvas.zoom > 60  # the card reads, not a speck


PROGRAMS = Path(__file__).parents[1] / "gradstudio" / "programs"


def blank_band(dialog: ProgramDialog, above: QWidget) -> int:
    """Pixels between the end of ``above``'s wrapped text and the next shown widget."""
    end = above.geometry().top() + above.heightForWidth(above.width())
    below = [
        w.geometry().top()
        for w in (
            dialog.isolate,
            dialog.isolate_reason,
            dialog.progress,
            dialog.status,
            dialog.problem,
            dialog.buttons,
        )
        if w.isVisible() and w.geometry().top() > above.geometry().top()
    ]
    return min(below) - end


def test_run_to_import_dialog_has_no_blank_band_and_shows_its_error_whole(
    window, qtbot, monkeypatch
) -> None:  # noqa: ANN001
    """The dialog was sized from its labels' unwrapped hints, with an empty status
    line in the layout: a band of nothing under the question before the buttons."""
    program = str(PROGRAMS / "fails.py")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (program, ""))
    window.act_import_program.trigger()
    qtbot.waitUntil(lambda: window.program_dialog is not None and window.program_dialog.isVisible())
    dialog = window.program_dialog
    spacing = dialog.layout().spacing()
    assert blank_band(dialog, dialog.intro) <= spacing + 2
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(dialog.problem.isVisible, timeout=30000)
    qtbot.waitUntil(
        lambda: dialog.problem.height() >= dialog.problem.heightForWidth(dialog.problem.width())
    )
    assert dialog.intro.height() >= dialog.intro.heightForWidth(dialog.intro.width())
    assert blank_band(dialog, dialog.problem) <= spacing + 2
    dialog.reject()


def test_a_small_window_keeps_the_inspector_readable(window, qtbot) -> None:  # noqa: ANN001
    """At 1024×700 the hint under the canvas (its whole text as its minimum width) held
    the canvas wide and squeezed the inspector to a sliver of cut words."""
    window.act_zoom_fit.trigger()
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.width() == 1024)
    inspector = window.docks["inspector"]
    qtbot.waitUntil(lambda: inspector.width() >= 240)
    hint = window.canvas_hint
    assert hint.toolTip() == hint.text()
    shown = hint.shown_text()
    assert shown in (hint.text(), "") or hint.text().startswith(shown.removesuffix("…"))


def test_every_example_opens_whole_and_readable_at_the_first_start_size(window, qtbot) -> None:  # noqa: ANN001
    """Issue 8 part 5: File > Examples opens each graph framed whole, at a zoom where
    cards still draw their labels and marks (not the far overview's blocks)."""
    window.resize(1440, 900)
    qtbot.waitUntil(lambda: window.width() == 1440)
    canvas = window.canvas
    for action in window.example_actions():
        with qtbot.waitSignal(window.runner.finished, timeout=20000):
            action.trigger()
        shown = visible_scene_rect(window)
        assert canvas.zoom >= OVERVIEW_LOD, action.text()
        assert not canvas.graph_scene.overview_on, action.text()
        for item in canvas.graph_scene.node_items():
            assert shown.contains(item.sceneBoundingRect()), (action.text(), item.node.label)


def zoom_out_with_the_wheel(window, qtbot, below: float) -> None:  # noqa: ANN001
    canvas = window.canvas
    centre = canvas.viewport().rect().center()
    while canvas.zoom >= below:
        qtbot.wait(1)
        event = QWheelEvent(
            QPointF(centre),
            QPointF(canvas.viewport().mapToGlobal(centre)),
            QPoint(),
            QPoint(0, -120),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(canvas.viewport(), event)


def test_group_titles_stay_readable_zoomed_out(window, qtbot) -> None:  # noqa: ANN001
    """Below 45 % cards keep their labels readable (semantic zoom); a frame's title and
    a collapsed group's card were drawn at their 100 % size, a few pixels high."""
    ids = [add_source(window, f"n{i}", [1.0], True, (i * 300, 0)) for i in range(4)]
    framed = group_with_ctrl_g(window, qtbot, ids[:2])
    collapsed = group_with_ctrl_g(window, qtbot, ids[2:])
    canvas = window.canvas
    canvas.setFocus()
    QTest.keyClick(canvas, Qt.Key.Key_C, Qt.KeyboardModifier.AltModifier)
    assert window.state.document.group(collapsed).collapsed
    canvas.fit_all()
    zoom_out_with_the_wheel(window, qtbot, 0.4)
    assert OVERVIEW_LOD <= canvas.zoom < 0.4
    groups = canvas.graph_scene.groups
    frame, card = groups.frame(framed), groups.card(collapsed)
    assert frame is not None and card is not None
    canvas.viewport().grab()  # paints the scene at this zoom
    at_full_size = QFontMetricsF(canvas.graph_scene.style.title_font).height() * canvas.zoom
    assert at_full_size < 7.0  # what the titles were: too small to read
    assert frame.title_px >= 8.0 and card.title_px >= 8.0


def icon_lightness(button: QToolButton) -> float:
    """The mean lightness (0–255) of the icon's opaque pixels, as the button shows it."""
    image = button.icon().pixmap(16, 16).toImage()
    values = [
        image.pixelColor(x, y).lightness()
        for x in range(image.width())
        for y in range(image.height())
        if image.pixelColor(x, y).alpha() > 128
    ]
    assert values, "an empty icon"
    return sum(values) / len(values)


def test_timeline_step_buttons_show_on_both_themes(window, qtbot) -> None:  # noqa: ANN001
    """Fusion's media icons are black: on the dark theme the enabled step buttons were
    near-invisible, darker than the disabled ones."""
    timeline = window.panel("timeline")
    for _ in range(2):
        window.act_toggle_theme.trigger()
        dark = window.theme.is_dark
        for button in (timeline.first_button, timeline.prev_button, timeline.play_button):
            lightness = icon_lightness(button)
            assert lightness > 150 if dark else lightness < 110, (window.theme.name, lightness)
