"""The studio's trust paths: paste, recovery and the one trust store.

Foreign code arrives untrusted: the banner shows and Live Mode does not run it
until the user clicks Trust and run.  A marker file proves whether code ran.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF
from PySide6.QtGui import QGuiApplication

from gradstudio.document.clipboard import copy_nodes
from gradstudio.interchange.pytorch_import import import_snippet
from gradstudio.interchange.trust import default_trust_path
from tests.gradstudio.snippets import marker_snippet
from tests.ui.uitools import make_window, wait_evaluated


def test_pasted_function_code_waits_for_trust_in_live_mode(window, qtbot, tmp_path) -> None:  # noqa: ANN001
    marker = tmp_path / "code-ran"
    source = import_snippet(marker_snippet(marker), trusted=True)
    window.new_document()
    assert window.state.document.trusted  # the user's own empty document
    window.act_live.setChecked(True)
    assert window.runner.live
    QGuiApplication.clipboard().setText(copy_nodes(source, list(source.order)))
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        window.act_paste.trigger()
    assert len(window.state.document) == 2
    assert not window.state.document.trusted
    assert window.trust_banner.isVisible()
    assert not marker.exists()
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        window.trust_button.click()
    assert marker.exists() and not window.trust_banner.isVisible()


def test_undoing_the_paste_hides_the_banner(window, qtbot, tmp_path) -> None:  # noqa: ANN001
    source = import_snippet(marker_snippet(tmp_path / "code-ran"), trusted=True)
    window.new_document()
    QGuiApplication.clipboard().setText(copy_nodes(source, list(source.order)))
    window.act_paste.trigger()
    assert window.trust_banner.isVisible()
    window.act_undo.trigger()
    assert not window.trust_banner.isVisible() and window.state.document.trusted


def test_the_studio_uses_the_command_lines_trust_store(window) -> None:  # noqa: ANN001
    assert window.trust_store.path == default_trust_path()


def _crash(window) -> None:  # noqa: ANN001
    window.recovery.stop()
    window.runner.shutdown()
    window.bridge.set_clean()
    window.hide()


def test_recovery_trust_is_keyed_by_content(qtbot, settings, answers) -> None:  # noqa: ANN001
    window = make_window(qtbot, settings, answers)
    window.canvas.add_node("torch.autograd.Function", QPointF(0, 0))
    assert window.state.document.trusted  # code the user added to their own document
    assert window.recovery.autosave()
    _crash(window)
    restarted = make_window(qtbot, settings, answers)
    assert restarted.offer_recovery()
    assert restarted.state.document.trusted and not restarted.trust_banner.isVisible()
    wait_evaluated(qtbot, restarted)
    _crash(restarted)

    # the recovery file changed after its note vouched for it: it restores untrusted
    recovery_file = Path(restarted.recovery.path)
    text = recovery_file.read_text(encoding="utf-8")
    assert "x * 2" in text
    recovery_file.write_text(text.replace("x * 2", "x * 3"), encoding="utf-8")
    again = make_window(qtbot, settings, answers)
    assert again.offer_recovery()
    assert not again.state.document.trusted and again.trust_banner.isVisible()
    _crash(again)
