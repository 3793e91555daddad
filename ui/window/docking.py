"""The studio's side panels and their docks: which panel docks where, a dock that lets
a wide panel scroll rather than squeeze the canvas, and the first-start dock sizes."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QScrollArea, QWidget

from ui.backward.view import BackwardView
from ui.explain.panel import ExplainPanel
from ui.inspector.panel import Inspector
from ui.state import StudioState
from ui.timeline.panel import Timeline

#: The right-hand docks' least first-start width: the backward graph's four tabs fit it.
RIGHT_DOCK_WIDTH = 360

#: The side panels: (object name, dock title, class, where it docks).
PANELS: tuple[
    tuple[str, str, Callable[[StudioState, QWidget], QWidget], Qt.DockWidgetArea], ...
] = (
    ("inspector", "Inspector", Inspector, Qt.DockWidgetArea.RightDockWidgetArea),
    ("backwardGraph", "Backward graph", BackwardView, Qt.DockWidgetArea.RightDockWidgetArea),
    ("timeline", "Timeline", Timeline, Qt.DockWidgetArea.BottomDockWidgetArea),
    ("explain", "Explain", ExplainPanel, Qt.DockWidgetArea.RightDockWidgetArea),
)


def make_dock(
    window: QMainWindow,
    key: str,
    title: str,
    widget: QWidget,
    area: Qt.DockWidgetArea,
    scroll: bool = False,
) -> QDockWidget:
    """``widget`` in a new dock of ``window`` at ``area`` (in a scroll area if ``scroll``)."""
    dock = QDockWidget(title, window)
    dock.setObjectName(f"{key}Dock")
    if scroll:
        # a panel with a wide minimum size must not squeeze the canvas: let it scroll
        area_widget = QScrollArea(dock)
        area_widget.setObjectName(f"{key}Scroll")
        area_widget.setWidgetResizable(True)
        area_widget.setFrameShape(QScrollArea.Shape.NoFrame)
        area_widget.setWidget(widget)
        dock.setWidget(area_widget)
    else:
        dock.setWidget(widget)
    dock.setFeatures(
        QDockWidget.DockWidgetFeature.DockWidgetMovable
        | QDockWidget.DockWidgetFeature.DockWidgetClosable
        | QDockWidget.DockWidgetFeature.DockWidgetFloatable
    )
    window.addDockWidget(area, dock)
    return dock


def default_dock_sizes(
    window: QMainWindow, palette_dock: QDockWidget, docks: dict[str, QDockWidget]
) -> None:
    """Give the canvas most of the room (only when no saved layout was restored)."""
    width = max(window.width(), 800)
    window.resizeDocks(
        [palette_dock, docks["inspector"]],
        [max(200, width // 7), max(RIGHT_DOCK_WIDTH, width // 4)],
        Qt.Orientation.Horizontal,
    )
    window.resizeDocks(
        [docks["inspector"], docks["backwardGraph"]],
        [window.height() * 9 // 20, window.height() * 11 // 20],
        Qt.Orientation.Vertical,
    )
    window.resizeDocks([docks["timeline"]], [165], Qt.Orientation.Vertical)
