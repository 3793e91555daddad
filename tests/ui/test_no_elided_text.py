"""No text is cut at the window's first-start size, on any bundled example.

Every example is opened in the real main window at the size it takes on a first start
(on a large screen and on a 1280×720 one) and at 1280×720, evaluated, and walked through
every timeline position and every node selected in turn; then the canvas cards (which
report the text they drew next to the full text, ``NodeItem.drawn_texts``, at the
canvas's zoom: full detail, or far out their label and mark), the labels and buttons of
the inspector, the timeline and the backward-graph panel (its heading, legend and
placeholder; the graph's own boxes are its view's business), the dock headers and the
dock tab bars must show their whole text.  A label passes when its text fits its
contents rectangle: one line by its advance, a word-wrapped one by the height its lines
need at its width.  A tab passes when the bar gives it the width its text asks for.
Cards with an error are checked too, on a document built to fail.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDockWidget,
    QLabel,
    QStyle,
    QStyleOptionDockWidget,
    QTabBar,
    QWidget,
)

from gradstudio.catalogue import catalogue
from gradstudio.document.layout import node_card_size
from gradstudio.interchange.examples import EXAMPLES
from tests.ui.uitools import Answers, wait_evaluated
from ui.canvas.node_item import NodeItem
from ui.state import StudioState
from ui.themes import apply_theme, ui_font
from ui.window import first_size
from ui.window.elided_label import ElidedLabel
from ui.window.main_window import MainWindow
from ui.window.settings import StudioSettings

NAMES = [e.name for e in EXAMPLES]
#: Screens' available geometry: a large one, and a 1280×720 laptop with a top bar.
LARGE_SCREEN = QRect(0, 0, 1920, 1080)
SMALL_SCREEN = QRect(0, 27, 1280, 693)
#: Where the walk is made: the first-start size on each screen, and 1280×720 itself.
SIZES = {
    "first start, large screen": (LARGE_SCREEN, None),
    "first start, 1280x720 screen": (SMALL_SCREEN, None),
    "1280x720 window": (SMALL_SCREEN, (1280, 720)),
}


@contextlib.contextmanager
def first_start_window(
    qtbot,  # noqa: ANN001
    settings: StudioSettings,
    answers: Answers,
    room: QRect,
) -> Iterator[MainWindow]:
    """The window as a first start on a screen whose available geometry is ``room``
    shows it: its own size there, no saved layout, and the application's font, style
    and theme as ``ui.app`` sets them."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    font, palette, sheet, style = app.font(), app.palette(), app.styleSheet(), app.style().name()
    app.setFont(ui_font())
    apply_theme(app, settings.theme)
    screen_room = first_size.screen_room
    first_size.screen_room = lambda widget: room  # type: ignore[assignment]
    try:
        window = MainWindow(StudioState(), settings)
    finally:
        first_size.screen_room = screen_room  # type: ignore[assignment]
    window.ask_save_changes = lambda: answers.save_changes  # type: ignore[method-assign]
    window.report = lambda title, text: answers.reports.append((title, text))  # type: ignore[method-assign]
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    try:
        yield window
    finally:
        window.runner.shutdown()
        window.bridge.set_clean()
        window.recovery.stop()
        app.setStyleSheet(sheet)
        app.setPalette(palette)
        app.setFont(font)
        app.setStyle(style)


@pytest.fixture
def default_window(qtbot, settings: StudioSettings, answers: Answers) -> Iterator[MainWindow]:  # noqa: ANN001
    with first_start_window(qtbot, settings, answers, LARGE_SCREEN) as window:
        yield window


@pytest.fixture(params=list(SIZES))
def sized_window(
    request, qtbot, settings: StudioSettings, answers: Answers
) -> Iterator[MainWindow]:  # noqa: ANN001
    """The first-start window on each screen of ``SIZES``, resized where it says, with
    every dock the studio has shown in the backward graph's tab bar (View › Panels)."""
    room, size = SIZES[request.param]
    with first_start_window(qtbot, settings, answers, room) as window:
        if size is not None:
            window.resize(*size)
            qtbot.waitUntil(lambda: (window.width(), window.height()) == size)
        instruments = window.instruments
        for dock in (instruments.verify_dock, instruments.changes_dock):
            dock.toggleViewAction().trigger()
            qtbot.waitUntil(dock.isVisible)
        window.docks["backwardGraph"].raise_()
        yield window


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


def label_problems(root: QWidget, where: str) -> list[str]:
    """Every shown label under ``root`` whose text does not fit it."""
    problems = []
    for label in root.findChildren(QLabel):
        if not _shown(label) or not label.text():
            continue
        if label.pixmap() is not None and not label.pixmap().isNull():
            continue
        rect = label.contentsRect()
        margin = label.margin() * 2 + (label.indent() if label.indent() > 0 else 0)
        width = rect.width() - margin
        text = _plain(label)
        if isinstance(label, ElidedLabel):  # gives up whole hints, never a cut word
            text = label.shown_text()
            if text.endswith("…"):
                problems.append(f"{where}: hint {text!r} is cut")
            continue
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


def tab_problems(window: MainWindow, where: str) -> list[str]:
    """Tabs (dock tab bars, the canvas's tab bar) that the bar elides or scrolls away."""
    problems = []
    for bar in window.findChildren(QTabBar):
        if not _shown(bar):
            continue
        for i in range(bar.count()):
            rect, need = bar.tabRect(i), bar.tabSizeHint(i).width()
            if rect.width() < need or not bar.rect().contains(rect):
                problems.append(
                    f"{where}: tab {bar.tabText(i)!r} needs {need} px, has {rect.width()}"
                )
    return problems


def card_problems(window: MainWindow, where: str) -> list[str]:
    """Cards whose text is cut at the canvas's zoom (and at 100 %)."""
    problems = []
    zoom = window.canvas.zoom
    for item in window.canvas.graph_scene.node_items():
        assert isinstance(item, NodeItem)
        drawn_texts = item.drawn_texts() + (item.drawn_texts(zoom) if zoom != 1.0 else [])
        for part, full, drawn in drawn_texts:
            if full != drawn:
                problems.append(
                    f"{where}: card {item.node.label!r} {part} {full!r} drawn {drawn!r}"
                )
    return problems


def button_problems(root: QWidget, where: str) -> list[str]:
    problems = []
    for button in root.findChildren(QAbstractButton):
        if not _shown(button) or not button.text():
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
    """The inspector, timeline and backward-graph panel, the canvas's hint and footer,
    the status bar, and the tab bars."""
    problems = label_problems(window.centralWidget(), f"{where} canvas")
    problems += label_problems(window.statusBar(), f"{where} status bar")
    for key in ("inspector", "timeline", "backwardGraph"):
        panel = window.panel(key)
        problems += label_problems(panel, f"{where} {key}")
        problems += button_problems(panel, f"{where} {key}")
    return problems + tab_problems(window, where)


@pytest.mark.parametrize(
    ("room", "size"),
    [
        (LARGE_SCREEN, (1440, 900)),
        (SMALL_SCREEN, (1272, 653)),
        (QRect(0, 0, 1280, 720), (1272, 680)),
    ],
)
def test_the_first_start_window_fits_its_screen(qtbot, settings, answers, room, size) -> None:  # noqa: ANN001
    """1440×900 where it fits; on a 1280×720 screen all the room its frame leaves (it
    opened at 1440×900 there, its status bar and docks off the screen's edge), with the
    canvas, the inspector and the backward graph all shown."""
    with first_start_window(qtbot, settings, answers, room) as window:
        assert (window.width(), window.height()) == size
        frame = window.geometry().adjusted(
            -first_size.BORDER, -first_size.TITLE_BAR, first_size.BORDER, first_size.BORDER
        )
        assert room.contains(frame), (frame, room)
        viewport = window.canvas.viewport()
        qtbot.waitUntil(lambda: viewport.width() >= 600 and viewport.height() >= 300)
        for key in ("inspector", "backwardGraph"):
            dock = window.docks[key]
            assert dock.isVisible() and not dock.visibleRegion().isEmpty(), key
            assert dock.width() >= 360 and dock.height() >= 180, (key, dock.size())


@pytest.mark.parametrize("name", NAMES)
def test_no_text_is_cut(sized_window, qtbot, example_paths, name) -> None:  # noqa: ANN001
    window = sized_window
    size = f"{window.width()}x{window.height()}"
    problems = panel_problems(window, f"{size} empty") + dock_problems(window)
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
        where = f"{size} {name} at {step}/{replay}"
        problems += card_problems(window, where)
        problems += label_problems(window.panel("timeline"), where + " timeline")
        problems += label_problems(window.panel("backwardGraph"), where + " backward graph")
        problems += label_problems(window.statusBar(), where + " status bar")
    playhead.set_position(-1, None)
    for node in window.state.document.nodes():
        window.canvas.select_nodes([node.id])
        settle()
        problems += panel_problems(window, f"{size} {name} [{node.label}]")
    assert not problems, "\n".join(dict.fromkeys(problems))


FAILING = {
    "mm of shapes that do not fit": (
        "import torch\n"
        "a = torch.ones(2, 3, requires_grad=True)\n"
        "b = torch.ones(4, 5)\n"
        "c = torch.mm(a, b)\n"
    ),
    # an action's card has one line of facts: the sentence needs two
    "backward of a non-scalar": (
        "import torch\na = torch.ones(2, 3, requires_grad=True)\nb = a * 2\nb.backward()\n"
    ),
}


@pytest.mark.parametrize("failing", list(FAILING))
def test_error_text_on_cards_is_not_cut(sized_window, qtbot, failing) -> None:  # noqa: ANN001
    """Cards of failing steps: PyTorch's messages are long, and a card has two lines."""
    window = sized_window
    code = FAILING[failing]
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        assert window.import_snippet(code)  # File › Import PyTorch Code, the text pasted
    wait_evaluated(qtbot, window)
    settle()
    errors = [i for i in window.canvas.graph_scene.node_items() if i.facts.status == "error"]
    assert errors, "the document was built to fail"
    problems = card_problems(window, "error")
    for item in errors:
        window.canvas.select_nodes([item.node_id])
        settle()
        problems += panel_problems(window, f"error [{item.node.label}]")
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
