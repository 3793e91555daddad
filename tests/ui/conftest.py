"""Fixtures for the widget tests: an isolated settings store, a window, and user gestures.

Every test gets its own ``QSettings`` folder and trust store (nothing touches the
real configuration), a ``MainWindow`` whose questions to the user are answered by
the test, and helpers that move the mouse the way a user does (press, move with
the button held, release) on the canvas viewport.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from gradstudio.interchange.examples import EXAMPLES, build
from gradstudio.interchange.fileformat import EXTENSION, dumps
from tests.ui.uitools import Answers, make_window
from ui.app import prepare_process
from ui.window.examples import EXAMPLES_DIR
from ui.window.main_window import MainWindow
from ui.window.settings import StudioSettings

prepare_process()  # before pytest-qt makes the first Qt call


@pytest.fixture(scope="session", autouse=True)
def _release_clipboard_at_exit() -> Iterator[None]:
    """Copy/paste tests leave data on the offscreen clipboard, which crashes
    PySide6 6.12 at interpreter exit; drop it once the session is over."""
    yield
    from ui.app import release_clipboard

    release_clipboard()


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the user's settings or trust store."""
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(config))


@pytest.fixture
def settings(tmp_path: Path) -> StudioSettings:
    store = StudioSettings.at(tmp_path / "settings" / "GradStudio.ini")
    store.live = False
    return store


@pytest.fixture
def answers() -> Answers:
    return Answers()


@pytest.fixture
def window(qtbot, settings: StudioSettings, answers: Answers) -> Iterator[MainWindow]:  # noqa: ANN001
    w = make_window(qtbot, settings, answers)
    yield w
    w.runner.shutdown()
    w.bridge.set_clean()
    w.recovery.stop()


@pytest.fixture(scope="session")
def example_paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The shipped example files; any not generated yet are built into a temp folder."""
    paths: dict[str, Path] = {}
    fallback = tmp_path_factory.mktemp("examples")
    for example in EXAMPLES:
        shipped = EXAMPLES_DIR / f"{example.name}{EXTENSION}"
        if shipped.is_file():
            paths[example.name] = shipped
        else:
            path = fallback / f"{example.name}{EXTENSION}"
            path.write_text(dumps(build(example)), encoding="utf-8")
            paths[example.name] = path
    return paths
