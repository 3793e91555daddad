"""Autosave to a recovery file, so a crash loses at most a few seconds of work.

While the document has unsaved edits it is written (atomically, without touching
the document's own file or trust) to ``recovery.gstudio`` beside the settings, with
a small JSON note saying which file it came from.  A clean exit or a save removes
both; a next start that finds them offers to restore.

Trust is keyed by content here too: the note vouches for the recovery bytes' hash
only when the document was trusted, so a recovery file edited or replaced after the
note was written opens untrusted.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from gradstudio.document.model import Document
from gradstudio.interchange.atomic import atomic_write
from gradstudio.interchange.fileformat import DocumentError, dumps, loads
from gradstudio.interchange.trust import admit, content_hash
from ui.state import StudioState

AUTOSAVE_MS = 10_000
RECOVERY_NAME = "recovery.gstudio"
NOTE_NAME = "recovery.json"


@dataclass(frozen=True)
class RecoveredDocument:
    document: Document
    original_path: str | None
    saved_at: float


class Recovery(QObject):
    """Periodically writes ``state.document`` while it has unsaved changes."""

    saved = Signal(str)  # path of the recovery file just written

    def __init__(
        self,
        state: StudioState,
        directory: str | Path,
        path_of_document: Callable[[], str | None] = lambda: None,
        interval_ms: int = AUTOSAVE_MS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.directory = Path(directory)
        self.path = self.directory / RECOVERY_NAME
        self.note = self.directory / NOTE_NAME
        self._path_of_document = path_of_document
        self._dirty = False
        self._unsubscribe = state.document.subscribe(self._changed)
        state.documentReplaced.connect(self._document_replaced)
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.autosave)

    def start(self) -> None:
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        self._unsubscribe()

    def _changed(self, _event: object) -> None:
        self._dirty = True

    def _document_replaced(self) -> None:
        self._unsubscribe()
        self._unsubscribe = self.state.document.subscribe(self._changed)
        self._dirty = False

    # ------------------------------------------------------------------ writing
    def autosave(self) -> bool:
        """Write the recovery file if there are edits since the last one and no save."""
        if not self._dirty:
            return False
        if self.state.undo_stack.is_clean:
            self._dirty = False
            self.discard()
            return False
        return self.write()

    def write(self) -> bool:
        doc = self.state.document
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            data = dumps(doc).encode("utf-8")
            atomic_write(self.path, data)
            note = {
                "original": self._path_of_document(),
                "trusted": content_hash(data) if doc.trusted else None,
                "saved_at": time.time(),
            }
            atomic_write(self.note, json.dumps(note).encode("utf-8"))
        except (OSError, ValueError):  # UnicodeEncodeError is a ValueError
            return False  # autosave is best effort; never interrupt the user for it
        self._dirty = False
        self.saved.emit(str(self.path))
        return True

    def discard(self) -> None:
        """Remove the recovery file (after a save, or on a clean exit)."""
        for p in (self.path, self.note):
            with contextlib.suppress(OSError):
                p.unlink()

    # ------------------------------------------------------------------ reading
    def available(self) -> bool:
        return self.path.is_file()

    def load(self) -> RecoveredDocument:
        """The autosaved document (``DocumentError`` if the file is damaged)."""
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise DocumentError(self.path, f"cannot be read ({exc})") from None
        doc = loads(data, self.path)
        original: str | None = None
        saved_at = self.path.stat().st_mtime
        vouched = None
        with contextlib.suppress(OSError, ValueError, AttributeError, TypeError):
            note = json.loads(self.note.read_text(encoding="utf-8"))
            original = note.get("original") or None
            saved_at = float(note.get("saved_at", saved_at))
            vouched = note.get("trusted")
        admit(doc, vouched == content_hash(data))
        return RecoveredDocument(doc, original, saved_at)
