"""GradStudio in a notebook: ``%load_ext gradstudio``, ``%%gradstudio`` and ``gradstudio.show``
through IPython's own shell, in process, with the studio's window under pytest-qt."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

import gradstudio
import ui.notebook as notebook

pytestmark = pytest.mark.gui
IPython = pytest.importorskip("IPython")

CELL = """\
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w * w).sum()
loss.backward()
"""


@pytest.fixture
def shell(window) -> Iterator[object]:  # noqa: ANN001
    """IPython's shell with the extension loaded; the kernel's window is the test's."""
    from IPython.core.interactiveshell import InteractiveShell

    notebook._Kernel.window = window
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "gradstudio")
    yield ip
    notebook._Kernel.window = None


def test_the_magic_runs_the_cell_through_run_to_import(shell, window, qtbot) -> None:  # noqa: ANN001
    assert shell.run_cell_magic("gradstudio", "", CELL) is None  # the cell returns at once
    qtbot.waitUntil(lambda: window.program_dialog is not None)
    dialog = window.program_dialog
    assert "will run on this computer" in dialog.intro.text()  # the same consent
    assert shell.run_cell("6 * 7").result == 42  # the kernel answers while it waits
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    assert shell.run_cell("sum(range(4))").result == 6  # and while the program runs
    qtbot.waitUntil(lambda: window.program_dialog is None, timeout=60000)
    labels = {n.label for n in window.state.document.nodes()}
    assert {"w", "loss"} <= labels
    assert window.isVisible()
    shell.run_cell_magic("gradstudio", "--keep-iterations 1", CELL)
    qtbot.waitUntil(lambda: window.program_dialog is not None)
    assert notebook._Kernel.window is window  # one window per kernel, reused
    assert window.program_dialog.keep == 1
    window.program_dialog.reject()


def test_show_opens_a_document_in_the_kernels_window(
    shell,  # noqa: ANN001
    window,  # noqa: ANN001
    example_paths: dict[str, Path],
) -> None:
    gradstudio.show(example_paths["001_leaf_grad"])
    assert window.isVisible()
    assert {"w", "x"} <= {n.label for n in window.state.document.nodes()}


def test_without_a_display_the_graph_is_shown_inline(
    shell,  # noqa: ANN001
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(notebook, "display_problem", lambda: "no display to open the studio on")
    image = shell.run_cell_magic("gradstudio", "", CELL)
    said = capsys.readouterr().out
    assert said.count("\n") == 1 and "no display" in said
    from IPython.display import Image

    assert isinstance(image, Image) and image.data[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_bad_option_is_one_line(shell, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    assert shell.run_cell_magic("gradstudio", "--nope", CELL) is None
    said = capsys.readouterr().out
    assert said.count("\n") == 1 and "--keep-iterations" in said
