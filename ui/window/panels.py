"""The studio window's panels: the canvas and backward graph in the middle, the docks
around them, their sizes and layout saved between sessions, and the backward graph shown big."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ui.backward.view import BackwardView
from ui.explain.panel import ExplainPanel
from ui.palette.panel import Palette
from ui.window.docking import PANELS, default_dock_sizes, make_dock
from ui.window.elided_label import ElidedLabel


class WindowPanels:
    """``MainWindow``'s central tabs and docks (mixed into it)."""

    def _build_central(self) -> None:
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.trust_banner = QWidget(central)
        self.trust_banner.setObjectName("trustBanner")
        row = QHBoxLayout(self.trust_banner)
        row.setContentsMargins(12, 6, 12, 6)
        self.trust_label = QLabel(
            "This document contains custom Python code (autograd.Function). "
            "It does not run until you trust the file."
        )
        self.trust_label.setWordWrap(True)
        self.trust_button = QPushButton("Trust and run")
        self.trust_button.setObjectName("trustButton")
        self.trust_button.clicked.connect(self.trust_document)
        row.addWidget(self.trust_label, 1)
        row.addWidget(self.trust_button)
        self.trust_banner.hide()
        layout.addWidget(self.trust_banner)
        layout.addWidget(self.canvas, 1)
        footer = QWidget(central)
        footer.setObjectName("canvasFooter")
        row = QHBoxLayout(footer)
        row.setContentsMargins(10, 3, 10, 3)
        row.addWidget(self.canvas.legend)
        row.addStretch(1)
        self.canvas_hint = ElidedLabel(
            "Tab: add node · drag a port: connect · Space: pan · wheel: zoom"
        )
        self.canvas_hint.setObjectName("canvasKeys")
        row.addWidget(self.canvas_hint)
        layout.addWidget(footer)
        # The canvas alone until the backward graph is moved beside it (set_backward_big):
        # the tab bar only shows with two tabs.
        self.central_tabs = QTabWidget(self)
        self.central_tabs.setObjectName("centralTabs")
        self.central_tabs.setDocumentMode(True)
        self.central_tabs.setTabBarAutoHide(True)
        self.central_tabs.addTab(central, "Canvas")
        self.central_tabs.setTabsClosable(True)
        for side in (QTabBar.ButtonPosition.LeftSide, QTabBar.ButtonPosition.RightSide):
            self.central_tabs.tabBar().setTabButton(0, side, None)  # the canvas stays
        self.central_tabs.tabCloseRequested.connect(self._close_tab)
        self.setCentralWidget(self.central_tabs)

    def _close_tab(self, index: int) -> None:
        """Closing the backward graph's tab puts it back in its dock."""
        if self.central_tabs.widget(index) is self.backward_view:
            self.set_backward_big(False)

    def _build_docks(self) -> None:
        self.palette_widget = Palette(self)
        self.palette_dock = make_dock(
            self, "palette", "Nodes", self.palette_widget, Qt.DockWidgetArea.LeftDockWidgetArea
        )
        self.docks: dict[str, QDockWidget] = {}
        self.panels: dict[str, QWidget] = {}
        for key, title, panel_class, area in PANELS:
            widget = panel_class(self.state, self)
            self.panels[key] = widget
            # the backward graph zooms and pans itself: in a scroll area its heading
            # scrolled away with the graph and the fit saw the scroll area's size
            scroll = key != "backwardGraph"
            self.docks[key] = make_dock(self, key, title, widget, area, scroll=scroll)
        backward = self.panels["backwardGraph"]
        assert isinstance(backward, BackwardView)
        self.backward_view = backward
        # the right-hand docks run the window's full height, the timeline under the
        # canvas only: on a 1280×720 screen the inspector and the backward graph need it
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.splitDockWidget(
            self.docks["inspector"], self.docks["backwardGraph"], Qt.Orientation.Vertical
        )
        self.tabifyDockWidget(self.docks["backwardGraph"], self.docks["explain"])
        self.docks["backwardGraph"].raise_()
        explain = self.panels["explain"]
        assert isinstance(explain, ExplainPanel)
        self.explain_panel = explain
        self._default_sizes_pending = True

    def _default_dock_sizes(self) -> None:
        """Give the canvas most of the room (only when no saved layout was restored)."""
        self._default_sizes_pending = False
        default_dock_sizes(self, self.palette_dock, self.docks)

    def panel(self, key: str) -> QWidget:
        """The panel for ``key``, in its dock or (the backward graph) in its tab."""
        return self.panels[key]

    @property
    def backward_big(self) -> bool:
        """Whether the backward graph is in its tab beside the canvas (not in its dock)."""
        return self.central_tabs.indexOf(self.backward_view) >= 0

    def _enlarge_hint(self) -> str:
        keys = self.act_backward_big.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        return f"press {keys}" if keys else "View › Backward Graph in a Tab"

    def set_backward_big(self, big: bool) -> None:
        """Move the one backward-graph view into a tab beside the canvas, or back to its dock.

        One widget, moved: both places show the same playhead-driven view.  While it
        is in the tab its dock is hidden and cannot be reopened empty.  Remembered.
        """
        dock = self.docks["backwardGraph"]
        view = self.backward_view
        if big and not self.backward_big:
            view.setParent(None)
            self.central_tabs.addTab(view, dock.windowTitle())
            self.central_tabs.setCurrentWidget(view)
            dock.hide()
            dock.toggleViewAction().setEnabled(False)
        elif not big and self.backward_big:
            self.central_tabs.removeTab(self.central_tabs.indexOf(view))
            dock.setWidget(view)
            view.show()
            dock.toggleViewAction().setEnabled(True)
            dock.show()
            dock.raise_()
        self.settings.backward_big = big
        view.enlarge_hint = "" if big else self._enlarge_hint()
        view.refresh()
        if self.act_backward_big.isChecked() != big:
            self.act_backward_big.setChecked(big)  # its toggle comes back here: no change

    def _restore_layout(self) -> None:
        geometry = self.settings.geometry()
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = self.settings.window_state()
        if state is not None and self.restoreState(state):
            self._default_sizes_pending = False
        if self.settings.backward_big:
            self.set_backward_big(True)
            self.central_tabs.setCurrentIndex(0)  # a new session opens on the canvas

    def save_layout(self) -> None:
        self.settings.save_layout(self.saveGeometry(), self.saveState())
        self.settings.sync()
