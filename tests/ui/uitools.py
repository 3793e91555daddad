"""Gestures and helpers for the widget tests (imported by tests; fixtures live in conftest)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from gradstudio.document.model import Document
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.pytorch_import import import_snippet
from ui.state import StudioState
from ui.window.main_window import MainWindow
from ui.window.settings import StudioSettings


class Answers:
    """What the fake user answers when the window asks (and what it was told)."""

    def __init__(self) -> None:
        self.save_changes = QMessageBox.StandardButton.Discard
        self.open_path = ""
        self.save_path = ""
        self.restore = True
        self.reports: list[tuple[str, str]] = []
        self.asked_save = 0


def make_window(
    qtbot,  # noqa: ANN001
    settings: StudioSettings,
    answers: Answers,
) -> MainWindow:
    """A shown window, side panels included, whose questions ``answers`` answers."""
    window = MainWindow(StudioState(), settings)

    def ask_save_changes() -> QMessageBox.StandardButton:
        answers.asked_save += 1
        return answers.save_changes

    window.ask_save_changes = ask_save_changes  # type: ignore[method-assign]
    window.ask_open_path = lambda: answers.open_path  # type: ignore[method-assign]
    window.ask_save_path = lambda *a: answers.save_path  # type: ignore[method-assign]
    window.ask_restore = lambda when: answers.restore  # type: ignore[method-assign]
    window.report = lambda title, text: answers.reports.append((title, text))  # type: ignore[method-assign]
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    return window


def wait_evaluated(qtbot, window: MainWindow, timeout: int = 15000) -> None:  # noqa: ANN001
    """Wait until the background run is over and its result is on the state."""
    qtbot.waitUntil(
        lambda: not window.runner.busy and window.state.evaluation is not None, timeout=timeout
    )


def run_and_wait(qtbot, window: MainWindow) -> None:  # noqa: ANN001
    with qtbot.waitSignal(window.runner.finished, timeout=15000):
        window.run_graph()


# --------------------------------------------------------------------------- gestures


def send_mouse(
    widget: QWidget,
    kind: QMouseEvent.Type,
    pos: QPoint,
    button: Qt.MouseButton = Qt.MouseButton.LeftButton,
    buttons: Qt.MouseButton | None = None,
    modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
) -> None:
    """One mouse event with the buttons a real press/drag carries."""
    if buttons is None:
        buttons = Qt.MouseButton.NoButton if kind == QMouseEvent.Type.MouseButtonRelease else button
    local = QPointF(pos)
    event = QMouseEvent(
        kind,
        local,
        QPointF(widget.mapToGlobal(pos)),
        button if kind != QMouseEvent.Type.MouseMove else Qt.MouseButton.NoButton,
        buttons,
        modifiers,
    )
    QApplication.sendEvent(widget, event)


def drag(
    widget: QWidget,
    start: QPoint,
    end: QPoint,
    button: Qt.MouseButton = Qt.MouseButton.LeftButton,
    steps: int = 6,
    modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
) -> None:
    """Press at ``start``, move in steps with the button held, release at ``end``."""
    send_mouse(widget, QMouseEvent.Type.MouseMove, start, button, Qt.MouseButton.NoButton)
    send_mouse(widget, QMouseEvent.Type.MouseButtonPress, start, button, modifiers=modifiers)
    for i in range(1, steps + 1):
        p = start + (end - start) * (i / steps)
        send_mouse(widget, QMouseEvent.Type.MouseMove, p, button, button, modifiers)
    send_mouse(widget, QMouseEvent.Type.MouseButtonRelease, end, button, modifiers=modifiers)


def port_view_pos(window: MainWindow, node_id: str, port: str, is_input: bool) -> QPoint:
    """Where a port's dot is on the canvas viewport."""
    canvas = window.canvas
    item = canvas.graph_scene.node_item(node_id)
    assert item is not None
    return canvas.mapFromScene(item.port_scene_pos(port, is_input))


def node_view_pos(window: MainWindow, node_id: str, dx: float = 60.0, dy: float = 12.0) -> QPoint:
    """A point on a card's header (for clicking or dragging the card)."""
    canvas = window.canvas
    item = canvas.graph_scene.node_item(node_id)
    assert item is not None
    return canvas.mapFromScene(item.mapToScene(QPointF(dx, dy)))


def add_source(
    window: MainWindow, label: str, data: object, requires_grad: bool, pos=(0, 0)
) -> str:  # noqa: ANN001
    """Add a torch.tensor node through the undo bridge (as a palette drop would)."""
    from gradstudio.document.commands import AddNodeCommand

    doc: Document = window.state.document
    cmd = window.bridge.push(
        lambda: AddNodeCommand(
            doc, "torch.tensor", pos, {"data": data, "requires_grad": requires_grad}, label
        )
    )
    assert cmd is not None
    return cmd.node_id


def make_state(code: str) -> StudioState:
    """A document imported from PyTorch code, evaluated, in a fresh StudioState."""
    doc = import_snippet(code)
    state = StudioState(doc)
    state.set_evaluation(evaluate(doc))
    return state


def node_id(doc: Document, label: str) -> str:
    node = doc.node_by_label(label)
    assert node is not None, label
    return node.id
