"""Help › Keyboard Shortcuts and Help › Getting Started.

The shortcut list is read from the window's actions themselves (text, shortcuts, the menu
that holds each), so it can never disagree with what the keys do; the canvas keys that are
not actions come from the canvas view's own table.  Getting Started is a page shipped with
the studio, shown offline.
"""

from __future__ import annotations

import re

import shiboken6
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gradstudio.locations import RESOURCES
from ui.canvas.view_input import CANVAS_KEYS

GETTING_STARTED = RESOURCES / "help" / "getting-started.html"


def _menu_path(action: QAction) -> str:
    """``Edit › Undo``: the menus that hold the action, outermost first."""
    for widget in action.associatedObjects():
        if isinstance(widget, QMenu):
            names = []
            menu: QWidget | None = widget
            while isinstance(menu, QMenu):
                names.append(menu.title().replace("&", ""))
                menu = next(
                    (w for w in menu.menuAction().associatedObjects() if isinstance(w, QMenu)),
                    None,
                )
            return " › ".join(n for n in reversed(names) if n)  # the bar's overflow menu has none
    return "Window"


#: Keys of Qt's standard shortcuts that only special keyboards have (``Copy``, ``F16``):
#: listed, they would bury the keys people press.
_RARE_KEY = re.compile(r"^(?:F(?:1[3-9]|2\d|3[0-5])|[A-Z][a-z]+)$")
_COMMON_KEYS = frozenset({"Del", "Backspace", "Left", "Right", "Up", "Down", "Space", "Tab"})


def _keys(action: QAction) -> str:
    names = (s.toString(QKeySequence.SequenceFormat.NativeText) for s in action.shortcuts())
    return ", ".join(n for n in names if n in _COMMON_KEYS or not _RARE_KEY.match(n))


def shortcut_rows(window: QWidget) -> list[tuple[str, str, str]]:
    """(where, what, keys) for every action of ``window`` with a shortcut, then the canvas
    keys; sorted by where, then what."""
    rows = []
    for action in window.findChildren(QAction):  # the window's and its panels'
        if not shiboken6.isValid(action):  # a menu's action Qt has already deleted
            continue
        keys = _keys(action)
        if keys and action.text():
            rows.append((_menu_path(action), action.text().replace("&", ""), keys))
    rows = sorted(set(rows))
    rows += [("Canvas", what, keys) for keys, what in CANVAS_KEYS]
    return rows


class ShortcutsDialog(QDialog):
    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard Shortcuts")
        rows = shortcut_rows(window)
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setHorizontalHeaderLabels(["Where", "Action", "Keys"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        width = sum(self.table.columnWidth(c) for c in range(3)) + 60
        self.resize(max(520, width), 560)


class GettingStartedDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gettingStartedDialog")
        self.setWindowTitle("Getting Started")
        self.page = QTextBrowser(self)
        self.page.setOpenExternalLinks(True)
        self.page.setHtml(GETTING_STARTED.read_text("utf-8"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.page)
        layout.addWidget(buttons)
        self.resize(620, 560)
