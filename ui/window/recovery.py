"""Autosave to a recovery file, so a crash loses at most a few seconds of work.

While the document has unsaved edits it is written (atomically, without touching
the document's own file or trust) to ``recovery.gstudio`` beside the settings, with
a small JSON note saying which file it came from.  A clean exit or a save removes
both; a next start that finds them offers to restore.

Trust is keyed by content here too: the note vouches for the recovery bytes' hash
only when the document was trusted, so a recovery file edited or replaced after the
note was written opens untrusted.

Writing happens on a background thread: encoding a big document and the file
system's ``fsync`` took tens of milliseconds (more on a busy disk) out of an edit
and re-run.  The UI thread only copies the document into plain data; one writer
thread writes the copies in the order they were taken, and ``discard``/``stop``
wait for it, so a removed recovery file is never written back behind them.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from gradstudio.document.model import Document
from gradstudio.interchange.atomic import atomic_write
from gradstudio.interchange.fileformat import DocumentError, loads, to_json
from gradstudio.interchange.trust import admit, content_hash
from ui.state import StudioState

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

#: A write comes at most this long after the first edit since the last one.
AUTOSAVE_MS = 5_000
RECOVERY_NAME = "recovery.gstudio"
NOTE_NAME = "recovery.json"


@dataclass(frozen=True)
class RecoveredDocument:
    document: Document
    original_path: str | None
    saved_at: float


class Recovery(QObject):
    """Writes ``state.document`` shortly after it gets unsaved changes."""

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
        self._started = False
        self._writer: ThreadPoolExecutor | None = None
        self._pending: list[Future[bool]] = []
        self._unsubscribe = state.document.subscribe(self._changed)
        state.documentReplaced.connect(self._document_replaced)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)  # counted from the first edit, not the last
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(lambda: self.autosave(wait=False))

    def start(self) -> None:
        self._started = True
        if self._dirty:
            self.timer.start()

    def stop(self) -> None:
        """No more autosaves; returns once the writes already asked for are done."""
        self._started = False
        self.timer.stop()
        self._unsubscribe()
        self.wait()

    def _changed(self, _event: object) -> None:
        self._dirty = True
        if self._started and not self.timer.isActive():
            self.timer.start()

    def _document_replaced(self) -> None:
        self._unsubscribe()
        self._unsubscribe = self.state.document.subscribe(self._changed)
        self._dirty = False
        self.timer.stop()

    # ------------------------------------------------------------------ writing
    def autosave(self, wait: bool = True) -> bool:
        """Write the recovery file if there are edits since the last one and no save.

        ``wait=False`` (the timer): return once the document is copied; the file is
        written in the background and ``saved`` follows.
        """
        if not self._dirty:
            return False
        if self.state.undo_stack.is_clean:
            self._dirty = False
            self.discard()
            return False
        return self.write(wait)

    def write(self, wait: bool = True) -> bool:
        """Copy the document now and write it (False: it could not be written; when
        not waiting, True only says the write was asked for)."""
        doc = self.state.document
        data = to_json(doc)  # plain data: later edits do not reach the copy
        original = self._path_of_document()
        trusted = doc.trusted
        self._dirty = False
        if self._writer is None:  # imported with the first write, not at startup
            from concurrent.futures import ThreadPoolExecutor

            self._writer = ThreadPoolExecutor(1, thread_name_prefix="gradstudio-recovery")
        self._pending = [f for f in self._pending if not f.done()]
        future = self._writer.submit(self._write_copy, data, original, trusted)
        self._pending.append(future)
        return future.result() if wait else True

    def _write_copy(self, data: dict[str, Any], original: str | None, trusted: bool) -> bool:
        """On the writer thread: encode the copy and replace the files atomically."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
            encoded = (text + "\n").encode("utf-8")
            atomic_write(self.path, encoded)
            note = {
                "original": original,
                "trusted": content_hash(encoded) if trusted else None,
                "saved_at": time.time(),
            }
            atomic_write(self.note, json.dumps(note).encode("utf-8"))
        except (OSError, ValueError):  # UnicodeEncodeError is a ValueError
            self._dirty = True  # autosave is best effort: the next edit or tick tries again
            return False
        self.saved.emit(str(self.path))  # queued to the UI thread
        return True

    def wait(self) -> None:
        """Return once every write asked for so far is on disk (or has failed)."""
        pending, self._pending = self._pending, []
        for future in pending:
            future.result()

    def discard(self) -> None:
        """Remove the recovery file (after a save, or on a clean exit): after any write
        still under way, so that it cannot bring the file back."""
        self.timer.stop()
        self.wait()
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
