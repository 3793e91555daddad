"""Every view follows a rename at once, without waiting for a re-run (issue 8, part 3)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

from gradstudio.document.commands import SetLabelCommand
from tests.ui.uitools import wait_evaluated

pytestmark = pytest.mark.gui


def test_renaming_a_node_renames_it_in_every_panel(window, qtbot, example_paths) -> None:  # noqa: ANN001
    assert window.open_example(example_paths["006_clone_accumulates"], ask=False)
    wait_evaluated(qtbot, window)
    state = window.state
    state.playhead.go_to_step(state.playhead.step_count - 1)  # the last backward step
    node = state.document.node_by_label("b_clone.backward()")
    runs = []
    window.runner.busyChanged.connect(lambda busy: runs.append(busy))
    window.bridge.push(lambda: SetLabelCommand(state.document, node.id, "copy_backward"))
    texts = [label.text() for label in window.findChildren(QLabel)]
    assert any("copy_backward" in t for t in texts), texts
    assert not any("b_clone.backward()" in t for t in texts), texts
    assert state.playhead.caption().node == "copy_backward"
    assert runs == []  # nothing was re-run to get there


def test_an_examples_story_is_shown_when_nothing_is_selected(
    window,
    qtbot,
    example_paths,  # noqa: ANN001
) -> None:
    """``meta.description`` (what the example teaches) is on the inspector's empty page."""
    assert window.open_example(example_paths["001_leaf_grad"], ask=False)
    wait_evaluated(qtbot, window)
    window.state.select(())
    story = window.state.document.meta["description"]
    assert story
    qtbot.waitUntil(
        lambda: any(story[:40] in label.text() for label in window.findChildren(QLabel))
    )
