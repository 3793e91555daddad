"""The studio window's chrome: the menus, the toolbar and the status bar around the
panels, made from the window's actions."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QLabel,
    QProgressBar,
    QSizePolicy,
    QToolBar,
    QToolButton,
    QWidget,
)

from ui.lessons.menu import fill_lessons_menu
from ui.window.device_selector import DeviceSelector

PROGRESS_DELAY_MS = 250


class WindowChrome:
    """``MainWindow``'s menus, toolbar and status bar (mixed into it)."""

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
