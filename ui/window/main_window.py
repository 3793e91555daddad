"""The studio window: canvas in the middle, palette left, inspector and backward graph right,
timeline below; menus, toolbar and status bar around them.

The window wires the pieces together and owns the file life cycle (new, open,
save, examples, recent files, unsaved-changes prompts, autosave recovery).  Every
question it asks the user goes through one ``ask_*`` method, so tests can answer
for the user without modal dialogs.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction, QCloseEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QMainWindow,
    QMenu,
    QMessageBox,
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
from ui.actions import add_action
from ui.canvas.view import GraphView
from ui.icons import icon
from ui.inspector.panel import Inspector
from ui.instruments.commands import Instruments
from ui.lessons.dialog import LessonDialog
from ui.run.runner import EvaluationRunner
from ui.state import StudioState
from ui.themes import Theme, apply_theme, theme
from ui.window import first_size
from ui.window.actions import WindowActions
from ui.window.chrome import WindowChrome
from ui.window.files import APP_NAME, FileCommands
from ui.window.help_dialogs import GettingStartedDialog, ShortcutsDialog
from ui.window.panels import WindowPanels
from ui.window.recovery import Recovery
from ui.window.run import RunCommands
from ui.window.settings import StudioSettings
from ui.window.undo_bridge import UndoBridge


class MainWindow(WindowActions, WindowChrome, WindowPanels, FileCommands, RunCommands, QMainWindow):
    """The studio window for one ``StudioState``: here the wiring, the document's and the
    theme's sync and the help; its actions, chrome, panels, files and runs are mixins."""

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

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self._default_sizes_pending:
            self._default_dock_sizes()
            QTimer.singleShot(0, self.canvas, self.canvas.home_view)

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
