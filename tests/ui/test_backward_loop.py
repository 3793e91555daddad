"""The backward view of a training loop: the last backward's graph alone, fitted, with
the number of earlier graphs put aside in the heading and a toggle that shows them all."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradstudio.document.model import Document
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.program_import.runner import import_program
from tests.ui.test_backward_view import shown_view
from ui.backward.view import BackwardView
from ui.state import StudioState

pytestmark = pytest.mark.gui

PROGRAM = Path(__file__).parents[1] / "gradstudio" / "programs" / "module_sgd.py"


@pytest.fixture(scope="module")
def loop_document() -> Document:
    """module_sgd.py (five SGD steps of an nn.Module), run and recorded as the CLI's
    ``import --run`` does."""
    return import_program(PROGRAM)


@pytest.fixture
def loop(qtbot, loop_document: Document) -> tuple[StudioState, BackwardView]:  # noqa: ANN001
    state = StudioState(loop_document)
    state.set_evaluation(evaluate(loop_document))
    return shown_view(qtbot, state)


def backwards(state: StudioState) -> list[tuple[int, ...]]:
    """The grad_fn keys each backward of the evaluation ran, in order."""
    ev = state.playhead.evaluation
    assert ev is not None
    return [s.trace.keys for s in ev.steps if s.trace is not None and s.trace.keys]


def drawn_keys(view: BackwardView) -> set[int]:
    return {b.box.key for b in view.visible_boxes("fn")}


def in_view(view: BackwardView, keys: set[int]) -> bool:
    """Every box of ``keys`` lies inside the viewport."""
    port = view.view.viewport().rect()
    for item in view.visible_boxes():
        if item.box.key in keys:
            rect = view.view.mapFromScene(item.sceneBoundingRect()).boundingRect()
            if not port.contains(rect):
                return False
    return True


def test_the_last_backwards_graph_alone_is_drawn_and_fitted(qtbot, loop) -> None:  # noqa: ANN001
    state, view = loop
    traces = backwards(state)
    assert len(traces) >= 3  # the loop's iterations each ran a backward
    last = set(traces[-1])
    earlier = set().union(*map(set, traces[:-1])) - last
    assert earlier  # each iteration builds its own graph
    qtbot.waitUntil(lambda: drawn_keys(view) == last)
    assert view.hidden_graphs == len(traces) - 1
    assert f"{len(traces) - 1} earlier backward graphs hidden" in view.status.text()
    assert in_view(view, last)
    # the fitted view is larger than the whole union's fit would be
    fitted = view.view.transform().m11()
    view.show_all_action.trigger()
    qtbot.waitUntil(lambda: earlier <= drawn_keys(view))
    assert view.view.transform().m11() < fitted


def test_show_all_brings_every_backward_back_and_drops_the_count(qtbot, loop) -> None:  # noqa: ANN001
    state, view = loop
    traces = backwards(state)
    every = set().union(*map(set, traces))
    view.show_all_action.trigger()
    assert view.show_all_action.isChecked()
    qtbot.waitUntil(lambda: drawn_keys(view) == every)
    assert view.hidden_graphs == 0
    assert "hidden" not in view.status.text()
    view.show_all_action.trigger()
    qtbot.waitUntil(lambda: drawn_keys(view) == set(traces[-1]))
    assert "earlier backward graph" in view.status.text()


def test_the_focus_follows_the_playhead(qtbot, loop) -> None:  # noqa: ANN001
    state, view = loop
    ev = state.playhead.evaluation
    steps = [i for i, s in enumerate(ev.steps) if s.trace is not None and s.trace.keys]
    state.playhead.go_to_step(steps[1])
    qtbot.waitUntil(lambda: drawn_keys(view) == set(ev.steps[steps[1]].trace.keys))
    assert view.hidden_graphs == 1
    assert "1 earlier backward graph hidden" in view.status.text()
    state.playhead.go_to_step(steps[0])
    qtbot.waitUntil(lambda: view.hidden_graphs == 0)
    assert "hidden" not in view.status.text()


def test_a_hand_zoom_is_kept_when_the_focus_moves(qtbot, loop) -> None:  # noqa: ANN001
    _state, view = loop
    view.zoom_in_button.click()
    scale = view.view.transform().m11()
    assert not view.view.auto_fit
    view.show_all_action.trigger()
    qtbot.waitUntil(lambda: view.hidden_graphs == 0)
    assert view.view.transform().m11() == scale
    view.fit_button.click()
    view.show_all_action.trigger()
    qtbot.waitUntil(lambda: view.hidden_graphs > 0)
    assert view.view.auto_fit
