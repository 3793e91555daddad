"""Hook nodes in the studio: the inspector shows the hook's code, the timeline's replay
line says when each hook fired and what it returned."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.pytorch_import import import_snippet
from ui.inspector.panel import Inspector
from ui.state import StudioState
from ui.timeline.panel import Timeline

pytestmark = pytest.mark.gui

TUTORIAL = Path(__file__).parents[1] / "gradstudio" / "programs" / "hooks_tutorial.py"
SNIPPET = TUTORIAL.read_text("utf-8").replace(
    "seen = []\nx.register_hook(lambda grad: seen.append(grad))\n", ""
)


def hook_state() -> StudioState:
    state = StudioState(import_snippet(SNIPPET, trusted=True))
    state.set_evaluation(evaluate(state.document))
    return state


def test_the_inspector_shows_a_hook_nodes_code(qtbot) -> None:  # noqa: ANN001
    state = hook_state()
    inspector = Inspector(state)
    qtbot.addWidget(inspector)
    state.select([state.document.node_by_label("double").id])
    assert inspector.code_editor is not None
    assert inspector.code_editor.toPlainText() == "def double(grad):\n    return grad * 2\n"


def test_the_replay_line_says_which_hook_fired_and_what_it_returned(qtbot) -> None:  # noqa: ANN001
    state = hook_state()
    timeline = Timeline(state)
    qtbot.addWidget(timeline)
    timeline.show()
    state.playhead.go_to_step(state.playhead.step_count - 1)
    qtbot.waitUntil(lambda: timeline.replay_next.isEnabled())
    for _ in range(4):  # to the start, then SumBackward0, ExpBackward0, MulBackward0
        timeline.replay_next.click()
    qtbot.waitUntil(lambda: "MulBackward0" in timeline.replay_label.text())
    text = timeline.replay_label.text()
    assert "hook double fired on MulBackward0, returned tensor([1.6487, 0.6065, 0.0498]" in text
    assert "clip" not in text
