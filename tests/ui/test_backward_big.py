"""The backward graph seen big and whole: its tab beside the canvas (View > Backward Graph in
a Tab, Ctrl+Shift+B, remembered), Fit showing every box and edge of every example at
the default size and big, and no text cut in the view or its header."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QImage, QKeySequence, QPainter, QTextDocument
from PySide6.QtWidgets import QLabel, QStyleOptionGraphicsItem, QToolButton

from tests.ui.uitools import Answers, make_window, wait_evaluated
from ui.backward.item_style import TEXT_LOD
from ui.backward.view import BackwardView
from ui.window.examples import example_files
from ui.window.main_window import MainWindow
from ui.window.settings import StudioSettings

pytestmark = pytest.mark.gui

DEFAULT_SIZE = (1440, 900)  # MainWindow's own size on a first start
EXAMPLES = example_files()


def open_example(qtbot, window: MainWindow, name: str) -> BackwardView:  # noqa: ANN001
    window.resize(*DEFAULT_SIZE)
    example = next(e for e in EXAMPLES if e.name == name)
    assert window.open_example(example, ask=False)
    wait_evaluated(qtbot, window)
    view = window.backward_view
    qtbot.waitUntil(lambda: bool(view.visible_boxes()))
    settle(qtbot, view)
    return view


def settle(qtbot, view: BackwardView) -> None:  # noqa: ANN001
    """Until a resize's orientation check has run (it waits for the dock to stop moving)."""
    qtbot.waitUntil(lambda: not view._reorient_timer.isActive())


def in_tab(window: MainWindow) -> bool:
    return window.central_tabs.indexOf(window.backward_view) >= 0


# ============================================================================ the tab


def test_the_action_moves_the_one_view_into_a_tab_and_back(qtbot, window) -> None:  # noqa: ANN001
    view = open_example(qtbot, window, "001_leaf_grad")
    dock = window.docks["backwardGraph"]
    action = window.act_backward_big
    assert action.shortcut() == QKeySequence("Ctrl+Shift+B")
    assert action in window.menuBar().actions()[2].menu().actions()  # View
    assert not in_tab(window) and dock.isVisible() and window.central_tabs.tabBar().isHidden()
    action.trigger()
    assert in_tab(window) and window.central_tabs.currentWidget() is view
    assert window.panel("backwardGraph") is view  # one widget, moved: never two truths
    assert not dock.isVisible() and not dock.toggleViewAction().isEnabled()
    assert window.central_tabs.tabBar().isVisible() and action.isChecked()
    qtbot.waitUntil(lambda: view.view.viewport().width() > 800)  # big now
    # the same playhead drives it: step back to before y, and y's grad_fn is gone
    shown = len(view.visible_boxes("fn"))
    window.state.playhead.set_position(2)
    assert len(view.visible_boxes("fn")) < shown
    window.state.playhead.set_position(-1)
    assert len(view.visible_boxes("fn")) == shown
    action.trigger()
    assert not in_tab(window) and dock.isVisible() and dock.toggleViewAction().isEnabled()
    assert dock.widget() is view  # no scroll area: its heading stays, the view zooms itself
    assert window.central_tabs.count() == 1 and not action.isChecked()


def test_closing_the_tab_puts_the_view_back_in_its_dock(qtbot, window) -> None:  # noqa: ANN001
    open_example(qtbot, window, "001_leaf_grad")
    window.act_backward_big.trigger()
    bar = window.central_tabs.tabBar()
    assert bar.tabButton(0, bar.ButtonPosition.RightSide) is None  # the canvas stays
    close = bar.tabButton(1, bar.ButtonPosition.RightSide)
    assert close is not None
    qtbot.mouseClick(close, Qt.MouseButton.LeftButton)
    assert not in_tab(window) and window.docks["backwardGraph"].isVisible()
    assert not window.act_backward_big.isChecked() and not window.settings.backward_big


def test_the_choice_is_remembered_across_sessions(
    qtbot,  # noqa: ANN001
    settings: StudioSettings,
    answers: Answers,
) -> None:
    first = make_window(qtbot, settings, answers)
    first.act_backward_big.trigger()
    first.bridge.set_clean()
    first.close()  # saves the layout
    second = make_window(qtbot, StudioSettings.at(settings.qsettings.fileName()), answers)
    try:
        assert in_tab(second) and second.act_backward_big.isChecked()
        assert not second.docks["backwardGraph"].isVisible()
        assert second.central_tabs.currentIndex() == 0  # a session opens on the canvas
        second.act_backward_big.trigger()
        assert not second.settings.backward_big
    finally:
        second.runner.shutdown()
        second.bridge.set_clean()
        second.recovery.stop()


def test_the_shortcut_is_taken_by_nothing_else(window) -> None:  # noqa: ANN001
    from PySide6.QtGui import QAction

    owners = [
        a.text()
        for a in window.findChildren(QAction)
        if QKeySequence("Ctrl+Shift+B") in a.shortcuts()
    ]
    assert owners == ["&Backward Graph in a Tab"]


# ============================================================================ fit


def assert_all_inside(view: BackwardView, where: str) -> None:
    """Every shown box, edge and gradient label lies inside the viewport."""
    gv = view.view
    port = QRectF(gv.viewport().rect())

    def inside(rect: QRectF) -> bool:
        mapped = QRectF(gv.mapFromScene(rect).boundingRect())
        return port.adjusted(-1, -1, 1, 1).contains(mapped)

    for item in view.visible_boxes():
        assert inside(item.sceneBoundingRect()), (where, item.box.title)
    for link in view.links:
        if link.shown:
            assert inside(link.bounds()), (where, link.link.flow)
    for centre, text, _ in view.pill_layer.pills:
        assert inside(view.pill_layer.pill_rect(centre, text)), (where, text)


@pytest.mark.parametrize("name", [e.name for e in EXAMPLES])
def test_fit_shows_the_whole_graph_docked_and_big_in_both_orientations(
    qtbot,  # noqa: ANN001
    window,  # noqa: ANN001
    name: str,
) -> None:
    view = open_example(qtbot, window, name)
    for big in (False, True):
        if big:
            window.act_backward_big.trigger()
            qtbot.waitUntil(lambda: view.view.viewport().width() > 800)
            settle(qtbot, view)
        for _ in range(2):
            view.fit_button.click()
            assert_all_inside(view, f"{name} big={big} vertical={view.vertical}")
            view.orientation_button.click()  # the other orientation, fitted anew
            assert_all_inside(view, f"{name} big={big} vertical={view.vertical}")
        view.view.zoom(3.0)  # zoomed in, then Fit again: whole again
        view.fit_button.click()
        assert_all_inside(view, f"{name} big={big} after zooming")


# ============================================================================ no cut text


def label_is_whole(label: QLabel) -> bool:
    """The label's text laid out at its width: no word wider than the label, no line below."""
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(label.font())
    if label.textFormat() == Qt.TextFormat.RichText:
        doc.setHtml(label.text())
    else:
        doc.setPlainText(label.text())
    room = label.contentsRect()
    doc.setTextWidth(room.width())
    return doc.idealWidth() <= room.width() + 0.5 and doc.size().height() <= room.height() + 1


def drawn_texts(item, scale: float, monkeypatch) -> list[tuple[str, QRectF, QFont]]:  # noqa: ANN001
    """What the box writes when painted at the view's zoom: every ``drawText`` call."""
    calls: list[tuple[str, QRectF, QFont]] = []
    real = QPainter.drawText

    def record(painter: QPainter, *args: object) -> None:
        rect, _flags, text = args[:3]
        calls.append((str(text), QRectF(rect), QFont(painter.font())))
        real(painter, *args)

    image = QImage(64, 64, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    painter.scale(scale, scale)
    option = QStyleOptionGraphicsItem()
    with monkeypatch.context() as patch:
        patch.setattr(QPainter, "drawText", record)
        item.paint(painter, option, None)
    painter.end()
    return calls


def box_text_is_whole(item, scale: float, monkeypatch) -> bool:  # noqa: ANN001
    """Each line the box writes is its full text and fits the box at the view's zoom
    (drawn on screen by a font of that scale, whose hinting widens small text)."""
    box = item.box
    calls = drawn_texts(item, scale, monkeypatch)
    if scale < TEXT_LOD:
        return calls == []  # too small to write: nothing written, nothing cut
    expected = [box.title] + ([box.subtitle] if box.subtitle else [])
    if [text for text, _, _ in calls] != expected:
        return False
    for text, rect, font in calls:
        if QFontMetricsF(font).horizontalAdvance(text) > rect.width():
            return False
        scaled = QFont(font)
        scaled.setPointSizeF(font.pointSizeF() * scale)
        if QFontMetricsF(scaled).horizontalAdvance(text) > rect.width() * scale + 1:
            return False
    return True


def wait_whole(qtbot, label: QLabel, where: str) -> None:  # noqa: ANN001
    """The label shows its whole text once the layout has given it its new height."""
    try:
        qtbot.waitUntil(lambda: label_is_whole(label), timeout=3000)
    except AssertionError:
        raise AssertionError(f"{where}: {label.objectName()} cut: {label.text()!r}") from None


def assert_no_cut_text(qtbot, window: MainWindow, view: BackwardView, where: str, patch) -> None:  # noqa: ANN001
    scale = view.view.transform().m11()
    names_drawn = scale >= TEXT_LOD
    for item in view.visible_boxes():
        assert box_text_is_whole(item, scale, patch), (where, item.box.title)
    if not names_drawn:  # too small to name: the header says so, and how to see them
        assert "too small for names" in view.status.text(), where
    for label in (view.status, view.legend):
        wait_whole(qtbot, label, where)
    for button in view.findChildren(QToolButton):
        assert button.width() >= button.sizeHint().width(), (where, button.text())
    bar = window.central_tabs.tabBar()
    for i in range(bar.count()) if bar.isVisible() else ():
        rect: QRect = bar.tabRect(i)
        assert rect.width() >= bar.tabSizeHint(i).width(), (where, bar.tabText(i))


@pytest.mark.parametrize("name", [e.name for e in EXAMPLES])
def test_no_text_is_cut_at_the_default_window_size(qtbot, window, name: str, monkeypatch) -> None:  # noqa: ANN001
    """Docked, every example's header and drawn names are whole; in the tab, every box
    is named in full (the MLP step too)."""
    view = open_example(qtbot, window, name)
    assert_no_cut_text(qtbot, window, view, f"{name} docked", monkeypatch)
    window.act_backward_big.trigger()
    qtbot.waitUntil(lambda: view.view.viewport().width() > 800)
    settle(qtbot, view)
    assert view.view.transform().m11() >= TEXT_LOD  # big: every name is drawn
    assert_no_cut_text(qtbot, window, view, f"{name} in a tab", monkeypatch)
    window.state.playhead.set_position(0)  # before any graph: the note is whole too
    message = view._message
    assert message.isVisible() and "No backward graph at this step" in message.text()
    wait_whole(qtbot, message, f"{name}: the note")


# ============================================================================ labels


@pytest.mark.parametrize("vertical", [True, False], ids=["top-down", "left-right"])
@pytest.mark.parametrize("name", [e.name for e in EXAMPLES])
def test_gradient_labels_cover_no_box_and_no_other_label(
    qtbot,  # noqa: ANN001
    window,  # noqa: ANN001
    name: str,
    vertical: bool,
) -> None:
    """Just after each example's last backward, in the tab: every edge's gradient label
    is readable, clear of the boxes and of the other labels, in either orientation."""
    view = open_example(qtbot, window, name)
    window.act_backward_big.trigger()
    settle(qtbot, view)
    view.set_vertical(vertical)
    assert view.detail  # the labels are laid out (the overview draws none)
    ran = [t for t in window.state.evaluation.traces if t.executions]
    if ran:  # 000 calls no backward: no gradient, no label
        window.state.playhead.set_position(ran[-1].step)
    pills = [view.pill_layer.pill_rect(c, t) for c, t, _ in view.pill_layer.pills]
    assert len(pills) == sum(1 for link in view.links if link.shown and link.flow is not None)
    boxes = [item.rect().translated(item.cx, item.cy) for item in view.visible_boxes()]
    for i, a in enumerate(pills):
        assert not any(a.intersects(b) for b in pills[i + 1 :]), (name, a)
        assert not any(a.intersects(b) for b in boxes), (name, a)


def test_ctrl_shift_b_on_the_canvas_moves_it_and_back(qtbot, window) -> None:  # noqa: ANN001
    open_example(qtbot, window, "001_leaf_grad")
    window.activateWindow()
    window.canvas.setFocus()
    qtbot.waitUntil(window.canvas.hasFocus)
    mods = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(window.canvas, Qt.Key.Key_B, mods)
    assert in_tab(window) and window.settings.backward_big
    window.backward_view.view.setFocus()  # the same keys, from the view in its tab
    qtbot.waitUntil(window.backward_view.view.hasFocus)
    qtbot.keyClick(window.backward_view.view, Qt.Key.Key_B, mods)
    assert not in_tab(window) and not window.settings.backward_big


def test_the_run_the_graph_note_is_whole_in_the_default_dock(qtbot, window) -> None:  # noqa: ANN001
    window.resize(*DEFAULT_SIZE)
    message = window.backward_view._message
    assert window.state.evaluation is None and message.isVisible()
    assert message.text().startswith("Run the graph")
    wait_whole(qtbot, message, "before any run")
