"""Defects found walking through the studio as a user, each through the user's entry
points: Zoom to Fit with nested frames, the Run to Import dialog's layout."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.ui.uitools import add_source

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
