"""Starting the studio: ``ui.app.main``, the start example, themes, panels and object names."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtWidgets import QApplication, QWidget

from tests.ui.uitools import make_window, wait_evaluated
from ui import app as studio_app
from ui.none_refcount import make_none_immortal
from ui.themes import DARK, LIGHT, apply_theme, style_sheet
from ui.window.docking import PANELS
from ui.window.examples import start_example
from ui.window.main_window import MainWindow
from ui.window.settings import StudioSettings

pytestmark = pytest.mark.gui


def test_main_opens_the_window_on_the_start_example_and_returns(qtbot, monkeypatch) -> None:  # noqa: ANN001
    seen: dict[str, object] = {}

    class App:
        """The real application, with an ``exec`` that returns once the window is up.

        (Quitting the real event loop would stop later tests' event loops too.)
        """

        def exec(self) -> int:
            windows = [
                w
                for w in QApplication.topLevelWidgets()
                if isinstance(w, MainWindow) and id(w) not in before
            ]
            (window,) = windows  # the one main() made (earlier tests' may linger)
            qtbot.waitUntil(lambda: not window.runner.busy, timeout=20000)
            seen["visible"] = window.isVisible()
            seen["nodes"] = len(window.state.document)
            seen["evaluated"] = window.state.evaluation is not None
            seen["hook"] = sys.excepthook
            window.bridge.set_clean()
            window.close()
            return 0

    monkeypatch.setattr(studio_app, "create_application", lambda argv: App())
    monkeypatch.setattr(studio_app.MainWindow, "offer_recovery", lambda self: False)
    # an unexpected error would open a modal dialog; record it instead
    reported: list[str] = []
    monkeypatch.setattr(
        studio_app.ErrorReporter, "_show", lambda self, text, details: reported.append(details)
    )
    previous = sys.excepthook
    before = {id(w) for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)}
    assert studio_app.main(["gradstudio"]) == 0
    assert sys.excepthook is previous  # restored on exit
    assert seen["visible"]
    assert isinstance(seen["hook"], studio_app.ErrorReporter)
    assert reported == []
    if start_example() is not None:
        assert seen["nodes"] and seen["evaluated"]


def test_create_window_opens_a_file_from_the_command_line(qtbot, tmp_path, example_paths) -> None:  # noqa: ANN001
    settings = StudioSettings.at(tmp_path / "s.ini")
    window = studio_app.create_window(
        ["gradstudio", str(example_paths["003_linear_addmm"])],
        settings,
        offer_recovery=False,
    )
    qtbot.addWidget(window)
    wait_evaluated(qtbot, window)
    assert window.file_path is not None and window.file_path.endswith("003_linear_addmm.gstudio")
    out = window.state.document.node_by_label("out")
    assert window.canvas.graph_scene.facts_of(out.id).grad_fn == "AddmmBackward0"
    window.runner.shutdown()


def test_widgets_carry_object_names(window) -> None:  # noqa: ANN001
    for name in ("canvas", "palette"):
        assert window.findChild(QWidget, name) is not None, name
    for key in ("inspector", "backwardGraph", "timeline"):
        assert window.docks[key].objectName() == f"{key}Dock"


def test_real_panels_are_wired_in(qtbot, settings, answers, example_paths) -> None:  # noqa: ANN001
    window = make_window(qtbot, settings, answers)
    for key, _, panel_class, _ in PANELS:
        panel = window.panel(key)
        assert isinstance(panel, panel_class)
        assert panel.objectName() == key
        assert window.findChild(QWidget, key) is panel
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        window.open_example(example_paths["001_leaf_grad"])
    a = window.state.document.node_by_label("a")
    window.canvas.select_nodes([a.id])
    assert window.state.selection == (a.id,)
    window.runner.shutdown()
    window.bridge.set_clean()
    window.close()


def test_themes_switch_and_fill_the_style_sheet(window, qtbot) -> None:  # noqa: ANN001
    for t in (DARK, LIGHT):
        sheet = style_sheet(t)
        assert "{" + "accent}" not in sheet and t.accent in sheet
    window.act_toggle_theme.trigger()
    assert window.theme.name == "light"
    assert window.canvas.graph_scene.style.theme is LIGHT
    assert QApplication.instance().styleSheet() == style_sheet(LIGHT)
    window.act_toggle_theme.trigger()
    assert window.settings.theme == "dark"
    apply_theme(QApplication.instance(), "dark")


def test_none_refcount_workaround_is_active() -> None:
    before = sys.getrefcount(None)
    make_none_immortal()
    if sys.version_info < (3, 12):
        assert sys.getrefcount(None) >= before
        assert sys.getrefcount(None) > 1 << 39
