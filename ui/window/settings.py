"""What the studio remembers between sessions (``QSettings``): layout, theme, recent files.

One small typed wrapper so keys are spelled once and tests can point the store at
a temporary file instead of the user's real configuration.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

ORGANIZATION = "GradStudio"
APPLICATION = "GradStudio"
MAX_RECENT = 10
MAX_VIEWS = 50


class StudioSettings:
    """Typed access to the persistent settings."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self.qsettings = settings or QSettings(
            QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION
        )

    @classmethod
    def at(cls, path: str | Path) -> StudioSettings:
        """Settings kept in one INI file (tests, portable installs)."""
        return cls(QSettings(str(path), QSettings.Format.IniFormat))

    @property
    def directory(self) -> Path:
        """The folder beside the settings file (the recovery file goes here)."""
        return Path(self.qsettings.fileName()).resolve().parent

    def sync(self) -> None:
        self.qsettings.sync()

    # ------------------------------------------------------------------ theme
    @property
    def theme(self) -> str:
        value = self.qsettings.value("ui/theme", "dark")
        return value if value in ("dark", "light") else "dark"

    @theme.setter
    def theme(self, name: str) -> None:
        self.qsettings.setValue("ui/theme", name)

    # ------------------------------------------------------------------ live mode
    @property
    def live(self) -> bool:
        return _as_bool(self.qsettings.value("run/live", True))

    @live.setter
    def live(self, value: bool) -> None:
        self.qsettings.setValue("run/live", bool(value))

    # ------------------------------------------------------------------ backward graph
    @property
    def backward_big(self) -> bool:
        """The backward graph is shown in a tab beside the canvas (View > Backward Graph
        in a Tab), not in its dock."""
        return _as_bool(self.qsettings.value("ui/backward_in_tab", False))

    @backward_big.setter
    def backward_big(self, value: bool) -> None:
        self.qsettings.setValue("ui/backward_in_tab", bool(value))

    # ------------------------------------------------------------------ memory budget
    @property
    def memory_budget(self) -> int:
        """Bytes of tensor data one run may hold (Run > Memory Budget)."""
        from gradstudio.evaluation.budget import DEFAULT_BUDGET

        try:
            value = int(self.qsettings.value("run/memory_budget", DEFAULT_BUDGET))
        except (TypeError, ValueError):
            return DEFAULT_BUDGET
        return value if value > 0 else DEFAULT_BUDGET

    @memory_budget.setter
    def memory_budget(self, nbytes: int) -> None:
        self.qsettings.setValue("run/memory_budget", int(nbytes))

    # ------------------------------------------------------------------ program import
    @property
    def keep_iterations(self) -> int:
        """Iterations of a loop that Run to Import keeps as nodes (then the last)."""
        from gradstudio.interchange.program_import.runner import KEEP_ITERATIONS

        try:
            value = int(self.qsettings.value("import/keep_iterations", KEEP_ITERATIONS))
        except (TypeError, ValueError):
            return KEEP_ITERATIONS
        return value if value >= 0 else KEEP_ITERATIONS

    @keep_iterations.setter
    def keep_iterations(self, count: int) -> None:
        self.qsettings.setValue("import/keep_iterations", max(0, int(count)))

    # ------------------------------------------------------------------ window layout
    def geometry(self) -> QByteArray | None:
        value = self.qsettings.value("window/geometry")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def window_state(self) -> QByteArray | None:
        value = self.qsettings.value("window/state")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def save_layout(self, geometry: QByteArray, state: QByteArray) -> None:
        self.qsettings.setValue("window/geometry", geometry)
        self.qsettings.setValue("window/state", state)

    # ------------------------------------------------------------------ recent files
    def recent_files(self) -> list[str]:
        value = self.qsettings.value("files/recent", [])
        if isinstance(value, str):
            value = [value] if value else []
        return [str(v) for v in (value or []) if v][:MAX_RECENT]

    def add_recent(self, path: str | Path) -> list[str]:
        text = str(Path(path).resolve())
        files = [f for f in self.recent_files() if f != text]
        files.insert(0, text)
        files = files[:MAX_RECENT]
        self.qsettings.setValue("files/recent", files)
        return files

    # ------------------------------------------------------------------ views of files
    def view_of(self, path: str | Path) -> tuple[float, float, float] | None:
        """The ``(zoom, centre x, centre y)`` a file was last saved or left at, if any.

        The view is the user's, like the layout, but kept here rather than in the file:
        a view field would make every saved file unreadable to the studios before it
        (the schema admits no unknown field), and sharing a file need not share a zoom."""
        raw = self.qsettings.value("files/views", "")
        try:
            views = json.loads(raw) if isinstance(raw, str) and raw else {}
            zoom, x, y = (float(v) for v in views[str(Path(path).resolve())])
        except (ValueError, TypeError, KeyError):
            return None
        ok = all(math.isfinite(v) for v in (zoom, x, y)) and zoom > 0
        return (zoom, x, y) if ok else None

    def remember_view(self, path: str | Path, zoom: float, x: float, y: float) -> None:
        """Keep a file's view (the ``MAX_VIEWS`` files seen last)."""
        raw = self.qsettings.value("files/views", "")
        try:
            views = json.loads(raw) if isinstance(raw, str) and raw else {}
        except ValueError:
            views = {}
        if not isinstance(views, dict):
            views = {}
        key = str(Path(path).resolve())
        views.pop(key, None)
        views[key] = [round(zoom, 6), round(x, 2), round(y, 2)]
        kept = dict(list(views.items())[-MAX_VIEWS:])
        self.qsettings.setValue("files/views", json.dumps(kept))

    def remove_recent(self, path: str) -> None:
        self.qsettings.setValue("files/recent", [f for f in self.recent_files() if f != path])

    def clear_recent(self) -> None:
        self.qsettings.setValue("files/recent", [])

    @property
    def last_directory(self) -> str:
        return str(self.qsettings.value("files/last_directory", "") or "")

    @last_directory.setter
    def last_directory(self, path: str) -> None:
        self.qsettings.setValue("files/last_directory", path)

    @property
    def save_directory(self) -> Path:
        """Where Save As and the exports start: the folder last saved into, else the
        user's documents.  Opening a file does not move it: the folder of an opened
        example (perhaps another checkout's) is no place to put one's own work."""
        stored = str(self.qsettings.value("files/save_directory", "") or "")
        if stored and Path(stored).is_dir():
            return Path(stored)
        return documents_folder()

    @save_directory.setter
    def save_directory(self, path: str | Path) -> None:
        self.qsettings.setValue("files/save_directory", str(path))


def documents_folder() -> Path:
    """The user's documents folder (``QStandardPaths``), or home where there is none."""
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(docs) if docs and Path(docs).is_dir() else Path.home()


def _as_bool(value: object) -> bool:
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes")
    return bool(value)
