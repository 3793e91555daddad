"""The studio window: canvas in the middle, palette left, inspector and backward graph right,
timeline below; menus, toolbar and status bar around them.

The window wires the pieces together and owns the file life cycle (new, open,
save, examples, recent files, unsaved-changes prompts, autosave recovery).  Every
question it asks the user goes through one ``ask_*`` method, so tests can answer
for the user without modal dialogs.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QTabBar,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gradstudio.document.events import (
    DocumentEvent,
    NodeAdded,
    NodeRemoved,
    SettingChanged,
    TrustChanged,
)
from gradstudio.interchange.trust import TrustStore
from ui.actions import add_action, connect_action, make_action
from ui.backward.view import BackwardView
from ui.canvas.view import GraphView
from ui.explain.panel import ExplainPanel
from ui.icons import icon
from ui.inspector.panel import Inspector
from ui.instruments.commands import Instruments
from ui.lessons.dialog import LessonDialog
from ui.lessons.menu import fill_lessons_menu
from ui.palette.panel import Palette
from ui.run.runner import EvaluationRunner
from ui.state import StudioState
from ui.themes import Theme, apply_theme, theme
from ui.window import first_size
from ui.window.device_selector import DeviceSelector
from ui.window.docking import PANELS, default_dock_sizes, make_dock
from ui.window.elided_label import ElidedLabel
from ui.window.files import APP_NAME, FileCommands
from ui.window.help_dialogs import GettingStartedDialog, ShortcutsDialog
from ui.window.recovery import Recovery
from ui.window.run import RunCommands
from ui.window.settings import StudioSettings
from ui.window.undo_bridge import UndoBridge

PROGRESS_DELAY_MS = 250


class MainWindow(FileCommands, RunCommands, QMainWindow):
    """The studio window for one ``StudioState``."""

    def __init__(
        self,
        state: StudioState | None = None,
        settings: StudioSettings | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.state = state or StudioState()
        self.settings = settings or StudioSettings()
        self.trust_store = TrustStore()  # the one store, shared with `main.py trust`
        self.file_path: str | None = None
        self.program_dialog = None
        self.example_name: str | None = None
        self.lesson_dialog: LessonDialog | None = None
        self.theme: Theme = theme(self.settings.theme)
        self.bridge = UndoBridge(self.state, self)
        self.runner = EvaluationRunner(self.state, self)
        self.recovery = Recovery(
            self.state, self.settings.directory, lambda: self.file_path, parent=self
        )
        self.canvas = GraphView(self.state, self.bridge, self.theme, self)
        self._unsubscribe = self.state.document.subscribe(self._on_document_event)
        self._build_central()
        self._build_docks()
        self._build_actions()
        self._build_menus()
        self.instruments = Instruments(self)
        self._build_toolbar()
        self._build_status()
        self._connect()
        self.setDockNestingEnabled(True)
        room = first_size.screen_room(self)
        self.setGeometry(first_size.first_start_geometry(room, self.minimumSizeHint()))
        self._restore_layout()
        self.runner.set_live(self.settings.live)
        self._apply_theme_to_widgets()
        self._sync_document_ui()
        self.recovery.start()

    # ================================================================== building
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

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self._default_sizes_pending:
            self._default_dock_sizes()
            QTimer.singleShot(0, self.canvas, self.canvas.home_view)

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

    def _build_actions(self) -> None:
        SK = QKeySequence.StandardKey
        c = self.canvas
        self.act_new = make_action(
            self, "&New", self.new_document, SK.New, "new", "A new, empty graph"
        )
        self.act_open = make_action(
            self, "&Open…", self.open_dialog, SK.Open, "open", "Open a graph file"
        )
        self.act_save = make_action(self, "&Save", self.save, SK.Save, "save", "Save the graph")
        self.act_save_as = make_action(self, "Save &As…", self.save_as, SK.SaveAs)
        self.act_import = make_action(
            self,
            "&Import PyTorch Snippet…",
            self.import_snippet,
            "Ctrl+I",
            "python",
            "Build a graph from PyTorch code",
        )
        self.act_import_program = make_action(
            self,
            "Import &Program (Run to Import)…",
            self.import_program,
            None,
            None,
            "Run a PyTorch program and record what it computes as a graph",
        )
        self.act_export_py = make_action(
            self,
            "&Export PyTorch Script…",
            self.export_script,
            "Ctrl+E",
            None,
            "Write the graph as PyTorch code",
        )
        self.act_export_png = make_action(
            self, "Export Image as &PNG…", lambda: self.export_image("png")
        )
        self.act_export_svg = make_action(
            self, "Export Image as S&VG…", lambda: self.export_image("svg")
        )
        self.act_quit = make_action(self, "&Quit", self.close, SK.Quit)
        self.act_undo = self.bridge.undo_action
        self.act_undo.setData("undo")
        self.act_redo = self.bridge.redo_action
        self.act_redo.setData("redo")
        self.addAction(self.act_undo)
        self.addAction(self.act_redo)
        self.act_cut = make_action(self, "Cu&t", c.cut_selection, SK.Cut)
        self.act_copy = make_action(self, "&Copy", c.copy_selection, SK.Copy)
        self.act_paste = make_action(self, "&Paste", lambda: c.paste(), SK.Paste)
        self.act_duplicate = make_action(self, "D&uplicate", c.duplicate, "Ctrl+D")
        self.act_delete = make_action(self, "&Delete", c.delete_selection, SK.Delete)
        self.act_delete.setShortcuts(
            [QKeySequence(QKeySequence.StandardKey.Delete), QKeySequence("Backspace")]
        )
        self.act_select_all = make_action(self, "Select &All", c.select_all, SK.SelectAll)
        self.act_group = make_action(
            self, "&Group", c.group_selection, "Ctrl+G", None, "Frame the selected nodes in a group"
        )
        self.act_ungroup = make_action(
            self,
            "U&ngroup",
            c.ungroup_selection,
            "Ctrl+Alt+G",
            None,
            "Drop the selected group's frame",
        )
        self.act_collapse = make_action(
            self,
            "Collapse/E&xpand Group",
            c.toggle_collapse_selection,
            "Alt+C",
            None,
            "Show the selected group as one card, or open it again",
        )
        # Editing keys act on the canvas only while it has focus, so Delete in a panel's
        # list, or Ctrl+A in the backward-graph view, never removes or selects nodes.
        for a in (
            self.act_cut,
            self.act_copy,
            self.act_paste,
            self.act_duplicate,
            self.act_delete,
            self.act_select_all,
            self.act_group,
            self.act_ungroup,
            self.act_collapse,
        ):
            self.removeAction(a)
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            c.addAction(a)
        self.act_zoom_in = make_action(self, "Zoom &In", c.zoom_in, SK.ZoomIn, "zoom_in")
        self.act_zoom_out = make_action(self, "Zoom &Out", c.zoom_out, SK.ZoomOut, "zoom_out")
        self.act_zoom_fit = make_action(
            self, "Zoom to &Fit", c.fit_all, "Ctrl+0", "fit", "Show the whole graph (Ctrl+0)"
        )
        self.act_zoom_fit.setShortcuts([QKeySequence("Ctrl+0")])
        self.act_frame = make_action(
            self,
            "&Frame Selection",
            c.frame_selection,
            "F",
            None,
            "Show the selected nodes, or the whole graph (F, Home)",
        )
        self.act_frame.setShortcuts([QKeySequence("F"), QKeySequence("Home")])
        self.removeAction(self.act_frame)  # a canvas key: typing F in a panel stays typing
        self.act_frame.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        c.addAction(self.act_frame)
        self.act_zoom_reset = make_action(self, "&Actual Size", c.zoom_reset, "Ctrl+1")
        self.act_backward_big = make_action(
            self,
            "&Backward Graph in a Tab",
            self.set_backward_big,
            "Ctrl+Shift+B",
            None,
            "Show the backward graph big, in a tab beside the canvas, or back in its panel",
            checkable=True,
        )
        self.backward_view.enlarge_hint = self._enlarge_hint()
        self.act_layout = make_action(
            self,
            "Auto-&Layout",
            c.auto_layout,
            "Ctrl+L",
            "layout",
            "Arrange left to right by data flow",
        )
        self.act_run = make_action(
            self, "&Run", self.run_graph, "Ctrl+Return", "run", "Run the graph (Ctrl+Enter)"
        )
        self.act_run.setShortcuts([QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")])
        self.act_cancel = make_action(
            self, "&Cancel Run", self.runner.cancel, "Ctrl+.", "stop", "Stop the running evaluation"
        )
        self.act_cancel.setEnabled(False)
        self.act_backward = make_action(
            self,
            "&Backward from Selection",
            self.backward_from_selection,
            "Ctrl+B",
            "backward",
            "Call .backward() on the selected scalar tensor, then run",
        )
        self.act_zero = make_action(
            self,
            "&Zero Grads",
            self.zero_grads,
            "Ctrl+Shift+Z",
            "zero",
            "Reset .grad of every leaf that requires grad",
        )
        self.act_zero.setShortcut(QKeySequence("Ctrl+Alt+Z"))
        self.act_explain = make_action(
            self,
            "E&xplain Gradient",
            self.explain_selection,
            "E",
            None,
            "How the selected tensor's .grad came to be, at the timeline position (E)",
        )
        self.act_live = make_action(
            self,
            "&Live Mode",
            self._set_live,
            "Ctrl+Shift+L",
            "live",
            "Re-run after every edit",
            checkable=True,
        )
        self.act_live.setChecked(self.settings.live)
        self.act_budgets = self._build_budget_actions()
        group = QActionGroup(self)
        self.act_theme_dark = QAction("&Dark", self, checkable=True)
        self.act_theme_light = QAction("&Light", self, checkable=True)
        for a, name in ((self.act_theme_dark, "dark"), (self.act_theme_light, "light")):
            group.addAction(a)
            connect_action(a, lambda n=name: self.set_theme(n))
        (self.act_theme_dark if self.theme.name == "dark" else self.act_theme_light).setChecked(
            True
        )
        self.act_toggle_theme = make_action(
            self,
            "Toggle &Theme",
            self.toggle_theme,
            "Ctrl+Shift+T",
            "theme",
            "Switch light/dark theme",
        )
        self.act_about = make_action(self, "&About GradStudio", self.about)
        self.act_shortcuts = make_action(
            self, "&Keyboard Shortcuts", self.show_shortcuts, "Ctrl+/", tip="Every shortcut"
        )
        self.act_getting_started = make_action(
            self,
            "&Getting Started",
            self.show_getting_started,
            QKeySequence.StandardKey.HelpContents,
        )
        # The timeline's keys, wherever the focus is in the window (a text field keeps
        # its own arrow keys and commas: Qt lets a focused editor override shortcuts).
        timeline = self.panel("timeline")
        self.act_step_back = make_action(self, "Previous &Step", timeline.previous_step, "Left")
        self.act_step_next = make_action(self, "Next S&tep", timeline.next_step, "Right")
        self.act_fn_back = make_action(self, "Previous &grad_fn", timeline.previous_execution, ",")
        self.act_fn_next = make_action(self, "Next g&rad_fn", timeline.next_execution, ".")

    def _build_menus(self) -> None:
        bar = self.menuBar()
        m = bar.addMenu("&File")
        m.addActions([self.act_new, self.act_open])
        self.recent_menu = m.addMenu("Open &Recent")
        self.examples_menu = m.addMenu("E&xamples")
        self.lessons_menu = m.addMenu("&Lessons")
        fill_lessons_menu(self.lessons_menu, self)
        m.addSeparator()
        m.addActions([self.act_save, self.act_save_as])
        m.addSeparator()
        m.addActions([self.act_import, self.act_import_program, self.act_export_py])
        export = m.addMenu("Export &Image")
        export.addActions([self.act_export_png, self.act_export_svg])
        m.addSeparator()
        m.addAction(self.act_quit)
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        self._fill_recent_menu()
        self._fill_examples_menu()

        m = bar.addMenu("&Edit")
        m.addActions([self.act_undo, self.act_redo])
        m.addSeparator()
        m.addActions(
            [self.act_cut, self.act_copy, self.act_paste, self.act_duplicate, self.act_delete]
        )
        m.addSeparator()
        m.addActions([self.act_group, self.act_ungroup, self.act_collapse])
        m.addSeparator()
        m.addAction(self.act_select_all)

        m = bar.addMenu("&View")
        m.addActions(
            [
                self.act_zoom_in,
                self.act_zoom_out,
                self.act_zoom_fit,
                self.act_frame,
                self.act_zoom_reset,
            ]
        )
        m.addSeparator()
        m.addAction(self.act_layout)
        m.addSeparator()
        m.addAction(self.act_backward_big)
        themes = m.addMenu("&Theme")
        themes.addActions([self.act_theme_dark, self.act_theme_light])
        panels_menu = m.addMenu("&Panels")
        panels_menu.addAction(self.palette_dock.toggleViewAction())
        for dock in self.docks.values():
            panels_menu.addAction(dock.toggleViewAction())

        m = bar.addMenu("&Run")
        m.addActions([self.act_run, self.act_cancel])
        m.addSeparator()
        m.addActions([self.act_backward, self.act_zero, self.act_explain])
        m.addSeparator()
        m.addAction(self.act_live)
        m.addSeparator()
        m.addActions([self.act_step_back, self.act_step_next, self.act_fn_back, self.act_fn_next])
        self.budget_menu = m.addMenu("&Memory Budget")
        self.budget_menu.addActions(list(self.act_budgets.values()))

        m = bar.addMenu("&Help")
        m.addActions([self.act_getting_started, self.act_shortcuts])
        m.addSeparator()
        m.addAction(self.act_about)

    def _build_toolbar(self) -> None:
        tb = QToolBar("Main", self)
        tb.setObjectName("mainToolBar")
        tb.setMovable(False)
        tb.setIconSize(QSize(18, 18))
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, tb)
        for a in (self.act_new, self.act_open, self.act_save):
            tb.addAction(a)
            tb.widgetForAction(a).setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        tb.addSeparator()
        for a in (self.act_undo, self.act_redo):
            tb.addAction(a)
            tb.widgetForAction(a).setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        tb.addSeparator()
        tb.addAction(self.act_run)
        run_button = tb.widgetForAction(self.act_run)
        run_button.setObjectName("runButton")
        tb.addAction(self.act_cancel)
        tb.widgetForAction(self.act_cancel).setToolButtonStyle(
            Qt.ToolButtonStyle.ToolButtonIconOnly
        )
        tb.addAction(self.act_backward)
        tb.addAction(self.act_zero)
        tb.addAction(self.act_live)
        tb.addSeparator()
        self.device_label = QLabel(" Device ")
        tb.addWidget(self.device_label)
        self.device_selector = DeviceSelector(self)
        tb.addWidget(self.device_selector)
        tb.addSeparator()
        for a in (self.act_layout, self.act_zoom_fit):
            tb.addAction(a)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        tb.addWidget(spacer)
        tb.addAction(self.act_toggle_theme)
        tb.widgetForAction(self.act_toggle_theme).setToolButtonStyle(
            Qt.ToolButtonStyle.ToolButtonIconOnly
        )
        self.toolbar = tb

    def _build_status(self) -> None:
        sb = self.statusBar()
        self.stale_label = QLabel("")
        self.stale_label.setObjectName("staleLabel")
        self.error_label = QLabel("")
        self.error_label.setObjectName("errorLabel")
        self.result_label = QLabel("")
        self.result_label.setObjectName("resultLabel")
        self.position_label = QLabel("")
        self.position_label.setObjectName("positionLabel")
        self.progress = QProgressBar()
        self.progress.setObjectName("runProgress")
        self.progress.setFixedWidth(160)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.cancel_button = QToolButton()
        self.cancel_button.setDefaultAction(self.act_cancel)
        self.cancel_button.hide()
        self.zoom_label = QLabel("100%")
        self.zoom_label.setObjectName("zoomLabel")
        sb.addWidget(self.error_label)
        sb.addWidget(self.stale_label)
        sb.addPermanentWidget(self.progress)
        sb.addPermanentWidget(self.cancel_button)
        sb.addPermanentWidget(self.position_label)
        sb.addPermanentWidget(self.result_label)
        sb.addPermanentWidget(self.zoom_label)
        self._progress_timer = QTimer(self)
        self._progress_timer.setSingleShot(True)
        self._progress_timer.setInterval(PROGRESS_DELAY_MS)
        self._progress_timer.timeout.connect(self._show_progress)

    def _show_position(self) -> None:
        """The playhead's position in words (the timeline's caption, on one line)."""
        caption = self.state.playhead.caption()
        self.position_label.setText(caption.text if self.state.evaluation is not None else "")

    def _connect(self) -> None:
        s = self.state
        s.positionChanged.connect(self._show_position)
        s.evaluationChanged.connect(self._show_position)
        self.bridge.changed.connect(self._update_title)
        self.bridge.refused.connect(lambda text: self.show_message(f"Not done: {text}", 6000))
        self.canvas.message.connect(lambda text: self.show_message(text, 6000))
        self.canvas.zoomChanged.connect(lambda z: self.zoom_label.setText(f"{round(z * 100)}%"))
        self.palette_widget.addRequested.connect(
            lambda type_id: self.canvas.add_node(type_id, self.canvas.view_center_scene())
        )
        self.runner.busyChanged.connect(self._busy_changed)
        self.runner.progress.connect(self._progress)
        self.runner.finished.connect(self._finished)
        self.runner.failed.connect(self._failed)
        self.runner.staleChanged.connect(self._stale_changed)
        self.device_selector.deviceChosen.connect(self._device_chosen)
        s.documentReplaced.connect(self._document_replaced)
        s.selectionChanged.connect(self._update_actions)
        s.evaluationChanged.connect(self._update_actions)
        self.canvas.node_menu_extras.append(self._explain_menu)
        inspector = self.panels["inspector"]
        assert isinstance(inspector, Inspector)
        inspector.explainRequested.connect(self.explain_node)

    # ================================================================== look
    def set_theme(self, name: str) -> None:
        self.theme = theme(name)
        self.settings.theme = self.theme.name
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, self.theme.name)
        self._apply_theme_to_widgets()
        (self.act_theme_dark if self.theme.name == "dark" else self.act_theme_light).setChecked(
            True
        )

    def toggle_theme(self) -> None:
        self.set_theme("light" if self.theme.name == "dark" else "dark")

    def _apply_theme_to_widgets(self) -> None:
        self.canvas.set_theme(self.theme)
        color = self.theme.text
        for a in self.findChildren(QAction):
            name = a.data()
            if isinstance(name, str) and name:
                a.setIcon(icon(name, "#ffffff" if name == "run" else color))
        self.setWindowIcon(icon("gradstudio", self.theme.accent))

    # ================================================================== layout persistence
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

    # ================================================================== document events
    def _on_document_event(self, event: DocumentEvent) -> None:
        if isinstance(event, SettingChanged) and event.name == "device":
            self.device_selector.set_device(event.new)
        elif isinstance(event, TrustChanged | NodeAdded | NodeRemoved):
            # pasted code makes the document untrusted before its nodes land
            self._update_trust_banner()

    def _document_replaced(self) -> None:
        self._unsubscribe()
        self._unsubscribe = self.state.document.subscribe(self._on_document_event)
        self._sync_document_ui()

    def _sync_document_ui(self) -> None:
        self.device_selector.set_device(self.state.document.settings["device"])
        self._update_trust_banner()
        self._update_title()
        self._update_actions()

    def _update_trust_banner(self) -> None:
        doc = self.state.document
        self.trust_banner.setVisible(doc.has_code() and not doc.trusted)

    def _update_title(self) -> None:
        if self.file_path:
            name = Path(self.file_path).name
        elif self.example_name:
            name = f"{self.example_name} (example)"
        else:
            name = "Untitled"
        self.setWindowTitle(f"{name}[*] — {APP_NAME}")
        self.setWindowModified(not self.bridge.is_clean)

    def _update_actions(self) -> None:
        ids = self.state.selection
        single = len(ids) == 1 and ids[0] in self.state.document
        has_tensor = single and bool(self.state.document.node(ids[0]).type.outputs)
        self.act_backward.setEnabled(has_tensor)
        self.act_explain.setEnabled(has_tensor)
        has_nodes = bool(ids)
        for a in (self.act_cut, self.act_copy, self.act_duplicate, self.act_delete):
            a.setEnabled(has_nodes or bool(self.canvas.graph_scene.selected_edges()))

    # ================================================================== explain
    def explain_selection(self) -> None:
        """Explain the selected tensor's gradient in the Explain panel."""
        ids = self.state.selection
        if len(ids) != 1 or ids[0] not in self.state.document:
            self.show_message("Select one tensor to explain its gradient", 6000)
            return
        self.explain_node(ids[0])

    def explain_node(self, node_id: str) -> None:
        if node_id not in self.state.document:  # a menu kept after its node went
            self.show_message("That node is gone", 6000)
            return
        if not self.state.document.node(node_id).type.outputs:
            self.show_message("Only a tensor has a gradient to explain", 6000)
            return
        self.explain_panel.explain(node_id)
        dock = self.docks["explain"]
        dock.show()
        dock.raise_()

    def _explain_menu(self, menu: QMenu, node_id: str) -> None:
        if self.state.document.node(node_id).type.outputs:
            add_action(menu, "Explain Gradient", lambda: self.explain_node(node_id))

    # ================================================================== misc
    def show_message(self, text: str, msecs: int = 0) -> None:
        self.statusBar().showMessage(text, msecs)

    def show_shortcuts(self) -> None:
        ShortcutsDialog(self).open()

    def show_getting_started(self) -> None:
        GettingStartedDialog(self).open()

    def about(self) -> None:
        QMessageBox.about(
            self,
            f"About {APP_NAME}",
            f"<h3>{APP_NAME}</h3><p>A studio for PyTorch's autograd: build a graph of tensors "
            "and operations, run it forward and backward, and see what PyTorch would report "
            "for every tensor.</p>",
        )

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        if not self.maybe_save():
            event.ignore()
            return
        self.save_layout()
        self.recovery.discard()  # while this instance still owns the files
        self.recovery.stop()
        self.runner.shutdown()
        self.instruments.shutdown()
        self.canvas.graph_scene.detach()
        event.accept()
