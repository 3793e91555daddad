"""The instruments in the window: their actions, menus, panels and inspector sections.

Run > Verify with PyTorch (Ctrl+Shift+V) and Run > Check Gradient (Ctrl+Shift+G, also
on an op's or a custom Function's context menu); View > Minimap (Ctrl+M) and View >
Show What Changed.  The Verify and What changed panels dock beside the backward
graph; the inspector gains "Verify with PyTorch" and "Memory at this step" sections;
the timeline has the memory strip (``ui.instruments.memory``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

from gradstudio.catalogue import NodeKind
from ui.actions import add_action, connect_action, connect_toggle
from ui.canvas.minimap import Minimap
from ui.inspector.panel import Inspector
from ui.inspector.sections import Section
from ui.instruments.changes import ChangesController, ChangesPanel
from ui.instruments.gradcheck import GradcheckDialog
from ui.instruments.memory import MemorySection
from ui.instruments.verify import VerifyController, VerifyPanel, VerifySection
from ui.window.docking import make_dock

if TYPE_CHECKING:
    from ui.window.main_window import MainWindow

CHECKABLE = (NodeKind.OP, NodeKind.CUSTOM_FUNCTION)


class Instruments(QObject):
    """Builds and owns the window's instruments (``window.instruments``)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        state = window.state
        scene = window.canvas.graph_scene
        self.verifier = VerifyController(state, scene, self)
        self.verifier.message.connect(lambda text: window.show_message(text, 10000))
        self.changes = ChangesController(state, scene, self)
        self.minimap = Minimap(window.canvas)
        self.dialogs: list[GradcheckDialog] = []
        self._build_actions()
        self._build_menus()
        self._build_docks()
        inspector = window.panel("inspector")
        assert isinstance(inspector, Inspector)
        inspector.extra_sections.append(self._inspector_sections)
        inspector.rebuild()
        window.canvas.node_menu_extras.append(self._node_menu)
        state.selectionChanged.connect(self._update_actions)
        self.verifier.changed.connect(self._update_actions)
        self._update_actions()

    # -- building ------------------------------------------------------------
    def _action(self, text: str, slot: object, shortcut: str = "", tip: str = "") -> QAction:
        action = QAction(text, self.window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setToolTip(tip or text)
        action.setStatusTip(tip)
        connect_action(action, slot)  # type: ignore[arg-type]
        self.window.addAction(action)
        return action

    def _build_actions(self) -> None:
        self.act_verify = self._action(
            "&Verify with PyTorch",
            self.verifier.verify,
            "Ctrl+Shift+V",
            "Run the graph under real PyTorch in a separate process and compare every fact",
        )
        self.act_cancel_verify = self._action("Cancel Verif&y", self.verifier.cancel)
        self.act_gradcheck = self._action(
            "Check &Gradient",
            self.check_selected,
            "Ctrl+Shift+G",
            "Compare the selected node's backward with finite differences (float64)",
        )
        self.act_minimap = QAction("&Minimap", self.window, checkable=True)
        self.act_minimap.setShortcut(QKeySequence("Ctrl+M"))
        self.act_minimap.setStatusTip("Show the whole graph in a corner of the canvas")
        connect_toggle(self.act_minimap, self.minimap.set_enabled)
        self.act_changes = QAction("Show What &Changed", self.window, checkable=True)
        self.act_changes.setChecked(True)
        self.act_changes.setStatusTip("Outline the nodes whose facts the last edit changed")
        connect_toggle(self.act_changes, self.changes.set_enabled)
        self.window.addAction(self.act_minimap)
        self.window.addAction(self.act_changes)

    def _menu(self, title: str) -> QMenu:
        for action in self.window.menuBar().actions():
            menu = action.menu()
            if action.text() == title and isinstance(menu, QMenu):
                return menu
        raise LookupError(title)

    def _build_menus(self) -> None:
        run = self._menu("&Run")
        run.addSeparator()
        run.addActions([self.act_verify, self.act_cancel_verify, self.act_gradcheck])
        view = self._menu("&View")
        view.addSeparator()
        view.addActions([self.act_minimap, self.act_changes])

    def _build_docks(self) -> None:
        w = self.window
        self.verify_panel = VerifyPanel(self.verifier)
        self.changes_panel = ChangesPanel(self.changes)
        area = Qt.DockWidgetArea.RightDockWidgetArea
        # short titles: four tabs share the backward graph's dock, and each shows whole
        self.verify_dock = make_dock(w, "verify", "Verify", self.verify_panel, area)
        self.changes_dock = make_dock(w, "changes", "Changes", self.changes_panel, area)
        backward = w.docks["backwardGraph"]
        w.tabifyDockWidget(backward, self.verify_dock)
        w.tabifyDockWidget(backward, self.changes_dock)
        backward.raise_()
        for dock in (self.verify_dock, self.changes_dock):
            self._panels_menu().addAction(dock.toggleViewAction())
            # Empty panels would crowd the backward graph's tab bar; each comes
            # forward the first time it has something to say.
            dock.hide()
        self.verifier.changed.connect(self._show_report)
        self.changes.changed.connect(self._show_changes)
        self._changes_shown_once = False

    def _panels_menu(self) -> QMenu:
        view = self._menu("&View")
        for action in view.actions():
            menu = action.menu()
            if action.text() == "&Panels" and isinstance(menu, QMenu):
                return menu
        return view

    # -- behaviour -----------------------------------------------------------
    def _show_report(self) -> None:
        if self.verifier.report is not None or self.verifier.notice:
            self.verify_dock.show()
            self.verify_dock.raise_()

    def _show_changes(self) -> None:
        """Bring the What changed panel in, behind the backward graph, on its first changes."""
        if self.changes.shown and not self._changes_shown_once:
            self._changes_shown_once = True
            self.changes_dock.show()

    def _update_actions(self) -> None:
        self.act_cancel_verify.setEnabled(self.verifier.busy)
        self.act_gradcheck.setEnabled(self._checkable(self._selected()) is None)

    def _selected(self) -> str | None:
        sel = self.window.state.selection
        return sel[0] if len(sel) == 1 else None

    def _checkable(self, node_id: str | None) -> str | None:
        """Why ``node_id`` cannot be checked (None: it can)."""
        doc = self.window.state.document
        if node_id is None or node_id not in doc:
            return "Select one op or custom Function node to check its gradient"
        if doc.node(node_id).type.kind not in CHECKABLE:
            return "Check Gradient takes an op or a custom Function node"
        return None

    def check_selected(self) -> GradcheckDialog | None:
        node_id = self._selected()
        why = self._checkable(node_id)
        if why is not None or node_id is None:
            self.window.show_message(why or "", 6000)
            return None
        return self.check(node_id)

    def check(self, node_id: str) -> GradcheckDialog:
        """Open a Check gradient dialog for one node (the check runs in a child process)."""
        doc = self.window.state.document
        dialog = GradcheckDialog(doc, node_id, doc.node(node_id).label, self.window)
        self.dialogs = [d for d in self.dialogs if shiboken6.isValid(d)] + [dialog]
        dialog.show()
        return dialog

    def _node_menu(self, menu: QMenu, node_id: str) -> None:
        if self._checkable(node_id) is None:
            add_action(menu, "Check gradient…", lambda: self.check(node_id))

    def _inspector_sections(self, node_id: str | None) -> list[QWidget]:
        sections: list[QWidget] = []
        if node_id is not None:
            verify = Section("Verify with PyTorch")
            label = VerifySection(self.verifier, node_id, verify)
            verify.add(label)
            sections.append(verify)
        memory = Section("Memory at this step")
        memory.add(MemorySection(self.window.state, memory))
        sections.append(memory)
        return sections

    def shutdown(self) -> None:
        """Stop every instrument's child process (the window is closing)."""
        self.verifier.job.cancel()
        for dialog in self.dialogs:
            if shiboken6.isValid(dialog):
                dialog.job.cancel()
