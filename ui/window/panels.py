"""The side panels written alongside the canvas, loaded lazily with a placeholder meanwhile.

The inspector, the backward-graph view and the timeline live in their own modules,
each a ``QWidget(state, parent)`` with a known object name.  The window asks this
module for them by that name; a module that does not exist yet (or fails to
import) becomes a labelled placeholder, and ``load_panel`` can be retried later.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import logging
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from ui.state import StudioState

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PanelSpec:
    key: str  # the widget's object name
    module: str
    classes: tuple[str, ...]  # likely class names, tried first
    title: str


PANELS: tuple[PanelSpec, ...] = (
    PanelSpec(
        "inspector",
        "ui.inspector.panel",
        ("Inspector", "InspectorPanel", "InspectorWidget"),
        "Inspector",
    ),
    PanelSpec(
        "backwardGraph",
        "ui.backward.view",
        ("BackwardView", "BackwardGraphView", "BackwardGraph"),
        "Backward graph",
    ),
    PanelSpec(
        "timeline", "ui.timeline.panel", ("Timeline", "TimelineWidget", "TimelineView"), "Timeline"
    ),
)
BY_KEY = {p.key: p for p in PANELS}


def placeholder(spec: PanelSpec, why: str = "") -> QLabel:
    """A quiet stand-in saying what will appear here."""
    label = QLabel(f"{spec.title}\n\n{why or 'This panel is not available in this build.'}")
    label.setObjectName("panelPlaceholder")
    label.setProperty("panelKey", spec.key)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    return label


def available(spec: PanelSpec) -> bool:
    return importlib.util.find_spec(spec.module) is not None


def load_panel(key: str, state: StudioState, parent: QWidget | None = None) -> QWidget | None:
    """The real panel for ``key``, or None when its module is missing or broken."""
    spec = BY_KEY[key]
    if not available(spec):
        return None
    try:
        module = importlib.import_module(spec.module)
    except Exception:
        log.exception("panel %s failed to import", spec.module)
        return None
    candidates = [getattr(module, name) for name in spec.classes if hasattr(module, name)]
    candidates += [
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if cls.__module__ == module.__name__ and issubclass(cls, QWidget) and cls not in candidates
    ]
    for cls in candidates:
        if not (isinstance(cls, type) and issubclass(cls, QWidget)):
            continue
        try:
            widget = cls(state, parent)
        except TypeError:
            continue
        except Exception:
            log.exception("panel %s.%s failed to start", spec.module, cls.__name__)
            return None
        if widget.objectName() == key:
            return widget
        widget.deleteLater()
    return None
