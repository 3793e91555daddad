"""Run to import, through File > Import Program: consent, a live window, Cancel, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from ui.window.program_dialog import ProgramDialog

pytestmark = pytest.mark.gui

PROGRAMS = Path(__file__).parents[1] / "gradstudio" / "programs"


@pytest.fixture
def program_chosen(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The file dialog answers with the program the test puts in the list."""
    chosen: list[str] = []
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *a, **k: (chosen[0] if chosen else "", "")
    )
    return chosen


def _dialog(window, qtbot) -> ProgramDialog:  # noqa: ANN001
    qtbot.waitUntil(lambda: window.program_dialog is not None and window.program_dialog.isVisible())
    return window.program_dialog


def test_run_to_import_asks_first_then_opens_the_recorded_graph(
    window,
    qtbot,
    program_chosen,  # noqa: ANN001
) -> None:
    program_chosen.append(str(PROGRAMS / "custom_function.py"))
    window.act_import_program.trigger()
    dialog = _dialog(window, qtbot)
    assert "will run on this computer" in dialog.intro.text()
    assert len(window.state.document) == 0  # nothing ran yet: it waits for Run
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    assert dialog.running and dialog.progress.isVisible()
    qtbot.waitUntil(lambda: window.program_dialog is None, timeout=30000)
    doc = window.state.document
    labels = {n.label for n in doc.nodes()}
    assert {"x", "y", "total", "dx", "second"} <= labels
    assert doc.trusted  # the user consented to running it
    assert window.file_path is None and window.isWindowModified()
    qtbot.waitUntil(lambda: not window.runner.busy and window.state.evaluation is not None)
    facts = {label: f for label, _, f in window.state.evaluation.rows() if f is not None}
    assert facts["y"].grad_fn.name == "CubeBackward"


def test_cancel_stops_a_running_program_and_keeps_the_graph(
    window,
    qtbot,
    program_chosen,  # noqa: ANN001
) -> None:
    before = window.state.document
    program_chosen.append(str(PROGRAMS / "loops_forever.py"))
    window.act_import_program.trigger()
    dialog = _dialog(window, qtbot)
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    process = dialog.recording.run.process
    qtbot.mouseClick(
        dialog.buttons.button(dialog.buttons.StandardButton.Cancel), Qt.MouseButton.LeftButton
    )
    qtbot.waitUntil(lambda: window.program_dialog is None)
    assert process.poll() is not None  # the child is gone
    assert window.state.document is before


def test_a_failing_program_shows_one_line_with_its_line_number(
    window,
    qtbot,
    program_chosen,  # noqa: ANN001
) -> None:
    program_chosen.append(str(PROGRAMS / "fails.py"))
    window.act_import_program.trigger()
    dialog = _dialog(window, qtbot)
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.problem.isVisible(), timeout=30000)
    assert dialog.problem.text().startswith("line 4: RuntimeError")
    assert "\n" not in dialog.problem.text()
    assert dialog.isVisible() and dialog.run_button.isEnabled()  # fix and run again
    dialog.reject()


def test_no_program_chosen_runs_nothing(window, qtbot, program_chosen) -> None:  # noqa: ANN001
    window.act_import_program.trigger()
    assert window.program_dialog is None


def test_the_keep_iterations_setting_reaches_the_recording(
    window,
    qtbot,
    program_chosen,  # noqa: ANN001
) -> None:
    window.settings.keep_iterations = 1
    program_chosen.append(str(PROGRAMS / "module_sgd.py"))
    window.act_import_program.trigger()
    dialog = _dialog(window, qtbot)
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.program_dialog is None, timeout=30000)
    loops = [g for g in window.state.document.groups.values() if g.kind == "loop"]
    assert [g.meta.get("iterations") for g in loops] == [None, "3", None]


def test_the_dialog_says_what_the_program_can_reach_and_that_its_code_is_trusted(
    window,
    qtbot,
    program_chosen,  # noqa: ANN001
) -> None:
    program_chosen.append(str(PROGRAMS / "custom_function.py"))
    window.act_import_program.trigger()
    dialog = _dialog(window, qtbot)
    text = dialog.intro.text()
    assert "change your files and use the network" in text
    assert "they are the code you ran" in text
    assert dialog.isolate.isVisibleTo(dialog)
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.program_dialog is None, timeout=30000)
    assert "trusted: it is the code you ran" in window.statusBar().currentMessage()


def test_isolation_unavailable_is_greyed_out_with_its_reason_in_words(
    qtbot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ui.window.program_dialog as program_dialog

    monkeypatch.setattr(program_dialog, "isolation_unavailable", lambda: "no Landlock here")
    dialog = ProgramDialog(PROGRAMS / "custom_function.py")
    qtbot.addWidget(dialog)
    assert not dialog.isolate.isEnabled()
    assert dialog.isolate_reason.isVisibleTo(dialog)
    assert dialog.isolate_reason.text() == "Isolation is unavailable: no Landlock here."


def test_an_isolated_run_imports(
    qtbot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gradstudio.sandbox.isolation import unavailable

    if unavailable() is not None:
        pytest.skip(f"isolation unavailable: {unavailable()}")
    dialog = ProgramDialog(PROGRAMS / "custom_function.py")
    qtbot.addWidget(dialog)
    dialog.isolate.click()
    assert dialog.isolate.isChecked()
    with qtbot.waitSignal(dialog.accepted, timeout=30000):
        dialog.run_button.click()
    assert dialog.document is not None and len(dialog.document) > 0
