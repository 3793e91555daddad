"""No text is cut at the window's default size, on any bundled example.

Every example is opened in the real main window at the size it has on first start,
evaluated, and every node selected in turn; then the canvas cards (which report the
text they drew next to the full text, ``NodeItem.drawn_texts``), the labels of the
inspector and the timeline, and the dock headers must show their whole text.  A label
passes when its text fits its contents rectangle: one line by its advance, a
word-wrapped one by the height its lines need at its width.  The backward-graph view
is left out (another part of the studio), and so is the far-zoom overview, which draws
labels at a screen size of their own.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDockWidget,
    QLabel,
    QStyle,
    QStyleOptionDockWidget,
    QWidget,
)

from gradstudio.catalogue import catalogue
from gradstudio.document.layout import node_card_size
from gradstudio.interchange.examples import EXAMPLES
from tests.ui.uitools import Answers, wait_evaluated
from ui.backward.view import BackwardView
from ui.canvas.node_item import NodeItem
from ui.state import StudioState
from ui.themes import apply_theme, ui_font
from ui.window.main_window import MainWindow
from ui.window.settings import StudioSettings

NAMES = [e.name for e in EXAMPLES]


@pytest.fixture
def default_window(qtbot, settings: StudioSettings, answers: Answers) -> Iterator[MainWindow]:  # noqa: ANN001
    """The window as a first start shows it: its own default size, no saved layout, and
    the application's font, style and theme as ``ui.app`` sets them."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    font, palette, sheet, style = app.font(), app.palette(), app.styleSheet(), app.style().name()
    app.setFont(ui_font())
    apply_theme(app, settings.theme)
    window = MainWindow(StudioState(), settings)
    window.ask_save_changes = lambda: answers.save_changes  # type: ignore[method-assign]
    window.report = lambda title, text: answers.reports.append((title, text))  # type: ignore[method-assign]
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    yield window
    window.runner.shutdown()
    window.bridge.set_clean()
    window.recovery.stop()
    app.setStyleSheet(sheet)
    app.setPalette(palette)
    app.setFont(font)
    app.setStyle(style)


def settle() -> None:
    """Let posted layout requests run: a panel re-lays itself out over a few event
    rounds (a label's new text, then its section, then the scroll area's holder)."""
    for _ in range(8):
        QApplication.processEvents()


def _plain(label: QLabel) -> str:
    text = label.text()
    if label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and "<" in text and ">" in text
    ):
        doc = QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()
    return text


def _shown(widget: QWidget) -> bool:
    return widget.isVisibleTo(widget.window()) and widget.isVisible()


def _inside_backward_view(widget: QWidget) -> bool:
    while widget is not None:
        if isinstance(widget, BackwardView):
            return True
        widget = widget.parentWidget()
    return False


def label_problems(root: QWidget, where: str) -> list[str]:
    """Every shown label under ``root`` whose text does not fit it."""
    problems = []
    for label in root.findChildren(QLabel):
        if not _shown(label) or _inside_backward_view(label) or not label.text():
            continue
        if label.pixmap() is not None and not label.pixmap().isNull():
            continue
        rect = label.contentsRect()
        margin = label.margin() * 2 + (label.indent() if label.indent() > 0 else 0)
        width = rect.width() - margin
        text = _plain(label)
        metrics = label.fontMetrics()
        name = label.objectName() or type(label.parentWidget()).__name__
        if label.wordWrap():
            need = label.heightForWidth(rect.width())
            if need > rect.height() + 1:
                problems.append(
                    f"{where}: wrapped label {name} {text[:60]!r} needs {need} px, "
                    f"has {rect.height()}"
                )
            continue
        lines = text.split("\n")
        widest = max(metrics.horizontalAdvance(line) for line in lines)
        if widest > width + 1:
            problems.append(f"{where}: label {name} {text[:60]!r} needs {widest} px, has {width}")
        tall = metrics.lineSpacing() * len(lines)
        if tall > rect.height() + 2:
            problems.append(f"{where}: label {name} {text[:60]!r} needs {tall} px tall")
    return problems


def dock_problems(window: MainWindow) -> list[str]:
    """Dock headers whose title does not fit the title bar the style lays out."""
    problems = []
    for dock in window.findChildren(QDockWidget):
        if not dock.isVisible() or dock.titleBarWidget() is not None:
            continue
        option = QStyleOptionDockWidget()
        dock.initStyleOption(option)
        rect = dock.style().subElementRect(
            QStyle.SubElement.SE_DockWidgetTitleBarText, option, dock
        )
        need = dock.fontMetrics().horizontalAdvance(dock.windowTitle())
        if need > rect.width():
            problems.append(f"dock {dock.windowTitle()!r} needs {need} px, has {rect.width()}")
    return problems


def card_problems(window: MainWindow, where: str) -> list[str]:
    problems = []
    for item in window.canvas.graph_scene.node_items():
        assert isinstance(item, NodeItem)
        for part, full, drawn in item.drawn_texts():
            if full != drawn:
                problems.append(
                    f"{where}: card {item.node.label!r} {part} {full!r} drawn {drawn!r}"
                )
    return problems


def button_problems(root: QWidget, where: str) -> list[str]:
    problems = []
    for button in root.findChildren(QAbstractButton):
        if not _shown(button) or _inside_backward_view(button) or not button.text():
            continue
        need = button.sizeHint().width()
        if button.sizeHint().height() > button.height() + 1:
            problems.append(f"{where}: button {button.text()!r} is too short for its lines")
        if need > button.width() + 1:
            problems.append(
                f"{where}: button {button.text()!r} needs {need} px, has {button.width()}"
            )
    return problems


def panel_problems(window: MainWindow, where: str) -> list[str]:
    """The inspector and timeline, the canvas's hint and footer, and the status bar."""
    problems = label_problems(window.centralWidget(), f"{where} canvas")
    problems += label_problems(window.statusBar(), f"{where} status bar")
    for key in ("inspector", "timeline"):
        panel = window.panel(key)
        problems += label_problems(panel, f"{where} {key}")
        problems += button_problems(panel, f"{where} {key}")
    return problems


def test_default_size_is_the_first_start_size(default_window: MainWindow) -> None:
    assert (default_window.width(), default_window.height()) == (1440, 900)


@pytest.mark.parametrize("name", NAMES)
def test_no_text_is_cut_at_the_default_size(default_window, qtbot, example_paths, name) -> None:  # noqa: ANN001
    window = default_window
    problems = panel_problems(window, "empty") + dock_problems(window)
    path = example_paths[name]
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        assert window.open_example(path)
    wait_evaluated(qtbot, window)
    settle()
    assert window.state.evaluation is not None and window.state.evaluation.ok
    problems += card_problems(window, name) + dock_problems(window)
    playhead = window.state.playhead
    for step, replay in playhead.positions():  # every timeline position: cards and labels
        playhead.set_position(step, replay)
        settle()
        where = f"{name} at {step}/{replay}"
        problems += card_problems(window, where)
        problems += label_problems(window.panel("timeline"), where + " timeline")
    playhead.set_position(-1, None)
    for node in window.state.document.nodes():
        window.canvas.select_nodes([node.id])
        settle()
        problems += panel_problems(window, f"{name} [{node.label}]")
    assert not problems, "\n".join(dict.fromkeys(problems))


def test_every_type_card_shows_its_label_title_and_ports(default_window) -> None:  # noqa: ANN001
    """Card widths come from character counts (``card_width``, shared with the core's
    layout); every type of the catalogue, under its own name and under a long label,
    must fit its header and port captions in the width it gets."""
    window = default_window
    doc = window.state.document
    for i, node_type in enumerate(catalogue().types()):
        for label in (None, "a_rather_long_label_42"):
            node = doc.new_node(node_type.id, (0.0, 200.0 * i), label=label)
            doc.add_node(node)
    problems = []
    for item in window.canvas.graph_scene.node_items():
        core = node_card_size(item.node)
        assert item.width == core[0] and item.height <= core[1], item.node.type_id
        problems += [
            f"{item.node.type_id} {part}: {full!r} drawn {drawn!r}"
            for part, full, drawn in item.drawn_texts()
            if full != drawn and part != "facts"
        ]
    assert not problems, "\n".join(problems)


def test_a_longer_label_widens_the_card_and_its_wires_follow(window) -> None:  # noqa: ANN001
    from gradstudio.document.commands import ConnectCommand, SetLabelCommand

    doc = window.state.document
    scene = window.canvas.graph_scene
    a = window.canvas.add_node("torch.ones", QPointF(0, 0))
    e = window.canvas.add_node("torch.exp", QPointF(500, 0))
    window.bridge.push(lambda: ConnectCommand(doc, a, "out", e, "input"))
    card = scene.node_item(a)
    narrow = card.width
    window.bridge.push(lambda: SetLabelCommand(doc, a, "a_label_long_enough_to_widen_it"))
    assert card.width > narrow
    assert all(full == drawn for _part, full, drawn in card.drawn_texts())
    (edge,) = scene.edge_items()
    assert edge.start == card.port_scene_pos("out", False)
    window.act_undo.trigger()
    assert card.width == narrow and edge.start == card.port_scene_pos("out", False)
