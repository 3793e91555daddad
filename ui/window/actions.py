"""The studio window's actions: every command the menus, toolbar and shortcuts offer,
made once and connected to what it does."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence

from ui.actions import connect_action, make_action


class WindowActions:
    """``MainWindow``'s actions (mixed into it)."""

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
