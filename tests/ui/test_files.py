"""The file life cycle: save and reopen, prompts, recent files, autosave recovery, exports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QMessageBox

from gradstudio.interchange.fileformat import load_document
from tests.ui.uitools import add_source, make_window, run_and_wait, wait_evaluated
from ui.window.recovery import Recovery

pytestmark = pytest.mark.gui


def small_graph(window) -> tuple[str, str]:  # noqa: ANN001
    w = add_source(window, "w", [1.0, 2.0], True, (0, 0))
    s = window.canvas.add_node("torch.sum", QPointF(400, 60))
    window.canvas.connect_ports(w, "out", s, "input")
    return w, s


def test_save_and_reopen(window, answers, tmp_path, qtbot) -> None:  # noqa: ANN001
    _w, s = small_graph(window)
    assert window.isWindowModified()
    answers.save_path = str(tmp_path / "graph")  # the extension is added
    assert window.act_save.isEnabled()
    window.act_save.trigger()
    saved = tmp_path / "graph.gstudio"
    assert saved.is_file()
    assert not window.isWindowModified()
    assert window.windowTitle().startswith("graph.gstudio")
    assert window.settings.recent_files()[0] == str(saved.resolve())
    window.new_document()
    assert len(window.state.document) == 0
    answers.open_path = str(saved)
    assert window.open_dialog()
    wait_evaluated(qtbot, window)
    doc = window.state.document
    assert {n.label for n in doc.nodes()} == {"w", "sum"}
    assert len(doc.edges()) == 1
    assert window.canvas.graph_scene.facts_of(s).value == "3."
    assert window.canvas.graph_scene.facts_of(s).grad_fn == "SumBackward0"
    assert not window.isWindowModified()


def test_unsaved_changes_prompt_on_open_and_new(window, answers, tmp_path) -> None:  # noqa: ANN001
    small_graph(window)
    answers.save_changes = QMessageBox.StandardButton.Cancel
    assert not window.new_document()
    assert answers.asked_save == 1
    assert len(window.state.document) == 2  # kept
    answers.save_changes = QMessageBox.StandardButton.Save
    answers.save_path = str(tmp_path / "kept.gstudio")
    assert window.new_document()
    assert (tmp_path / "kept.gstudio").is_file()
    assert len(window.state.document) == 0
    # a clean document does not ask
    assert window.new_document()
    assert answers.asked_save == 2


def test_unsaved_changes_prompt_on_close(qtbot, settings, answers) -> None:  # noqa: ANN001
    window = make_window(qtbot, settings, answers)
    small_graph(window)
    answers.save_changes = QMessageBox.StandardButton.Cancel
    assert not window.close()
    assert window.isVisible()
    answers.save_changes = QMessageBox.StandardButton.Discard
    assert window.close()
    assert answers.asked_save == 2


def test_layout_theme_and_recent_files_persist(qtbot, settings, answers, tmp_path) -> None:  # noqa: ANN001
    window = make_window(qtbot, settings, answers)
    window.set_theme("light")
    window.docks["timeline"].hide()
    path = tmp_path / "a.gstudio"
    window.save_to(path)
    assert window.close()
    again = make_window(qtbot, settings, answers)
    assert again.theme.name == "light"
    assert again.act_theme_light.isChecked()
    assert not again.docks["timeline"].isVisible()
    assert again.settings.recent_files() == [str(path.resolve())]
    again.recent_menu.aboutToShow.emit()
    assert again.recent_menu.actions()[0].text() == "a.gstudio"
    again.set_theme("dark")
    again.close()


def test_open_recent_and_missing_file(window, answers, tmp_path, qtbot) -> None:  # noqa: ANN001
    small_graph(window)
    path = tmp_path / "r.gstudio"
    window.save_to(path)
    window.new_document()
    window.recent_menu.aboutToShow.emit()
    window.recent_menu.actions()[0].trigger()
    assert len(window.state.document) == 2
    path.unlink()
    window._open_recent(str(path.resolve()))
    assert answers.reports and "no longer exists" in answers.reports[-1][1]
    assert str(path.resolve()) not in window.settings.recent_files()


def test_open_broken_file_reports_and_keeps_document(window, answers, tmp_path) -> None:  # noqa: ANN001
    small_graph(window)
    window.bridge.set_clean()
    bad = tmp_path / "bad.gstudio"
    bad.write_text("{not json", encoding="utf-8")
    assert not window.open_file(bad)
    assert answers.reports and "Cannot open" in answers.reports[-1][0]
    assert len(window.state.document) == 2


def test_autosave_writes_recovery_and_next_start_restores(
    qtbot,  # noqa: ANN001
    settings,  # noqa: ANN001
    answers,  # noqa: ANN001
    tmp_path,  # noqa: ANN001
) -> None:
    window = make_window(qtbot, settings, answers)
    small_graph(window)
    assert window.recovery.autosave()
    recovery_file = window.recovery.path
    assert recovery_file.is_file() and recovery_file.parent.parent == settings.directory
    note = json.loads(window.recovery.note.read_text())
    assert note["original"] is None
    # the app "crashes": no closeEvent, the recovery file stays
    window.recovery.stop()
    window.runner.shutdown()
    window.bridge.set_clean()
    window.hide()
    answers.restore = True
    restarted = make_window(qtbot, settings, answers)
    assert restarted.offer_recovery()
    doc = restarted.state.document
    assert {n.label for n in doc.nodes()} == {"w", "sum"}
    assert restarted.isWindowModified()
    wait_evaluated(qtbot, restarted)
    restarted.bridge.set_clean()
    assert restarted.close()
    assert not recovery_file.exists()  # a clean exit removes it


def test_declined_recovery_is_discarded(qtbot, settings, answers) -> None:  # noqa: ANN001
    window = make_window(qtbot, settings, answers)
    small_graph(window)
    window.recovery.write()
    assert not window.offer_recovery()  # its own file, still being written: not offered
    window.recovery.stop()  # the "crash"
    window.bridge.set_clean()
    answers.restore = False
    restarted = make_window(qtbot, settings, answers)
    assert not restarted.offer_recovery()
    assert not window.recovery.available()
    restarted.recovery.stop()


def test_autosave_skips_saved_documents(window, tmp_path) -> None:  # noqa: ANN001
    small_graph(window)
    window.save_to(tmp_path / "s.gstudio")
    assert not window.recovery.autosave()
    assert not window.recovery.available()


def test_recovery_timer_autosaves(qtbot, settings, answers, tmp_path) -> None:  # noqa: ANN001
    window = make_window(qtbot, settings, answers)
    recovery = Recovery(window.state, tmp_path / "rec", interval_ms=20)
    recovery.start()
    small_graph(window)
    with qtbot.waitSignal(recovery.saved, timeout=5000):
        pass
    assert recovery.path.is_file() and recovery.path.parent.parent == tmp_path / "rec"
    recovery.stop()


def test_export_script_png_and_svg(window, answers, tmp_path, qtbot) -> None:  # noqa: ANN001
    small_graph(window)
    run_and_wait(qtbot, window)
    answers.save_path = str(tmp_path / "g.py")
    assert window.export_script()
    code = (tmp_path / "g.py").read_text()
    assert "import torch" in code and "requires_grad=True" in code
    answers.save_path = str(tmp_path / "g.png")
    window.act_export_png.trigger()
    from PySide6.QtGui import QImage

    image = QImage(str(tmp_path / "g.png"))
    assert image.width() > 400 and image.height() > 100
    answers.save_path = str(tmp_path / "g.svg")
    window.act_export_svg.trigger()
    svg = (tmp_path / "g.svg").read_text()
    assert svg.startswith("<?xml") and "<svg" in svg and "sum" in svg


def test_import_pytorch_snippet(window, qtbot) -> None:  # noqa: ANN001
    code = "import torch\nq = torch.tensor([3.], requires_grad=True)\nr = q * q\nr.backward()\n"
    assert window.import_snippet(code)
    wait_evaluated(qtbot, window)
    doc = window.state.document
    q = doc.node_by_label("q")
    assert q is not None
    assert window.canvas.graph_scene.facts_of(q.id).grad == "[6.]"


def test_import_problem_is_reported(window, answers) -> None:  # noqa: ANN001
    assert not window.import_snippet("import torch\nx = (\n")
    assert answers.reports and "line" in answers.reports[-1][1]


def test_save_failure_is_reported(window, answers, tmp_path) -> None:  # noqa: ANN001
    small_graph(window)
    folder = tmp_path / "dir.gstudio"
    folder.mkdir()
    assert not window.save_to(folder)
    assert answers.reports and "Cannot save" in answers.reports[-1][0]
    assert window.isWindowModified()


def test_saved_file_loads_headless(window, tmp_path) -> None:  # noqa: ANN001
    small_graph(window)
    window.save_to(tmp_path / "h.gstudio")
    doc = load_document(tmp_path / "h.gstudio")
    assert [n.label for n in doc.nodes()] == ["w", "sum"]
    assert Path(window.file_path) == (tmp_path / "h.gstudio").resolve()


def test_untrusted_custom_code_waits_for_trust(window, qtbot, example_paths, tmp_path) -> None:  # noqa: ANN001
    # a copy that is not byte-for-byte the shipped example (those are trusted by hash)
    received = tmp_path / "received.gstudio"
    received.write_bytes(example_paths["004_custom_function"].read_bytes() + b"\n")
    assert window.open_file(received)
    assert not window.state.document.trusted
    assert window.trust_banner.isVisible()
    assert not window.runner.busy  # its code does not run until trusted
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        window.trust_button.click()
    assert not window.trust_banner.isVisible()
    d = window.state.document.node_by_label("d")
    assert window.canvas.graph_scene.facts_of(d.id).grad_fn == "FuncBackward"
    # trusted files open trusted next time
    window.bridge.set_clean()
    assert window.open_file(received)
    assert window.state.document.trusted


def test_recovery_writes_copies_in_order_off_the_ui_thread(
    qtbot,  # noqa: ANN001
    settings,  # noqa: ANN001
    answers,  # noqa: ANN001
    tmp_path,  # noqa: ANN001
    monkeypatch,  # noqa: ANN001
) -> None:
    """The UI thread only copies the document; one writer thread writes the copies in
    order (the later state wins), and a discard waits for a write under way."""
    import threading

    from gradstudio.document.commands import SetLabelCommand
    from ui.window import recovery as recovery_module

    window = make_window(qtbot, settings, answers)
    recovery = Recovery(window.state, tmp_path / "rec")
    w, _ = small_graph(window)
    gate, writers, written = threading.Event(), [], []
    real_write = recovery_module.atomic_write

    def held_write(path, data: bytes) -> None:  # noqa: ANN001
        assert gate.wait(10)
        writers.append(threading.current_thread())
        if path == recovery.path:
            written.append({n["label"] for n in json.loads(data)["nodes"]})
        real_write(path, data)

    monkeypatch.setattr(recovery_module, "atomic_write", held_write)
    assert recovery.write(wait=False)  # returns with the writer still held
    window.bridge.push(lambda: SetLabelCommand(window.state.document, w, "w2"))
    assert recovery.write(wait=False)
    assert not recovery.available()
    gate.set()
    recovery.wait()
    assert written == [{"w", "sum"}, {"w2", "sum"}]  # each copy as it was when taken
    assert threading.main_thread() not in writers
    assert {n.label for n in recovery.load().document.nodes()} == {"w2", "sum"}

    gate.clear()
    assert recovery.write(wait=False)
    threading.Timer(0.2, gate.set).start()
    recovery.discard()  # waits for the write, then removes the files
    assert not recovery.available() and not recovery.note.exists()
    recovery.stop()


def test_a_failed_recovery_write_keeps_the_last_file_and_tries_again(
    qtbot,  # noqa: ANN001
    settings,  # noqa: ANN001
    answers,  # noqa: ANN001
    tmp_path,  # noqa: ANN001
    monkeypatch,  # noqa: ANN001
) -> None:
    from gradstudio.document.commands import SetLabelCommand
    from ui.window import recovery as recovery_module

    window = make_window(qtbot, settings, answers)
    recovery = Recovery(window.state, tmp_path / "rec")
    w, _ = small_graph(window)
    assert recovery.autosave()
    window.bridge.push(lambda: SetLabelCommand(window.state.document, w, "w2"))

    def full_disk(path, data: bytes) -> None:  # noqa: ANN001
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(recovery_module, "atomic_write", full_disk)
    assert not recovery.autosave()
    assert {n.label for n in recovery.load().document.nodes()} == {"w", "sum"}
    monkeypatch.undo()
    assert recovery.autosave()  # still unsaved: the next tick writes it
    assert {n.label for n in recovery.load().document.nodes()} == {"w2", "sum"}
    recovery.stop()


def test_snippet_import_follows_the_memory_budget_setting(window, answers) -> None:  # noqa: ANN001
    """Issue 30: the limit is Run > Memory Budget, and the report names it and the size."""
    code = "import torch\nw = torch.zeros(2000, 1000)\ns = w.sum()\n"  # 7.6 MiB of float32
    window.set_memory_budget(4 << 20)  # 4 MiB, as a stored setting could say
    assert not window.import_snippet(code)
    title, text = answers.reports[-1]
    assert title == "Cannot import the snippet"
    assert text == (
        "line 2: 'w' would allocate 7.6 MiB; the memory budget is 4 MiB "
        "(Run > Memory Budget, or --memory-budget)"
    )
    window.act_budgets[1 << 28].trigger()  # 256 MiB, from the Run menu
    assert window.import_snippet(code)
    w = window.state.document.node_by_label("w")
    assert w is not None and w.params["size"] == [2000, 1000]
