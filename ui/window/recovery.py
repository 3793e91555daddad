"""Autosave to a recovery file, so a crash loses at most a few seconds of work.

While the document has unsaved edits it is written (atomically, without touching
the document's own file or trust) to a recovery file of this instance's own,
``recovery/<instance>.gstudio`` beside the settings, with a small JSON note saying
which file it came from.  A clean exit or a save removes both; a next start that
finds files no running instance owns offers to restore them.

Every running instance holds a lock file beside its recovery file (``QLockFile``:
the lock of an instance that died, by its process id, is stale), so two open windows
never write one file, and a starting instance takes only the files of instances that
are gone: never one another instance is still writing.  A ``recovery.gstudio`` from
before one file per instance is offered like a crashed instance's.

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
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QLockFile, QObject, QTimer, Signal

from gradstudio.document.model import Document
from gradstudio.interchange.atomic import atomic_write
from gradstudio.interchange.fileformat import DocumentError, loads, to_json
from gradstudio.interchange.trust import admit, content_hash
from ui.state import StudioState

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

#: A write comes at most this long after the first edit since the last one.
AUTOSAVE_MS = 5_000
#: The folder (beside the settings) of every instance's recovery file, note and lock.
RECOVERY_FOLDER = "recovery"
RECOVERY_SUFFIX = ".gstudio"
NOTE_SUFFIX = ".json"
LOCK_SUFFIX = ".lock"
#: The one shared file of the studio before each instance had its own.
LEGACY_NAME = "recovery.gstudio"
LEGACY_NOTE = "recovery.json"


@dataclass(frozen=True)
class RecoveredDocument:
    document: Document
    original_path: str | None
    saved_at: float


def _lock(path: Path) -> QLockFile:
    lock = QLockFile(str(path))
    lock.setStaleLockTime(0)  # only a dead owner makes a lock stale, never its age
    return lock


@dataclass
class RecoveryFile:
    """A recovery file some instance left, claimed (its lock held) by the one that found
    it; ``release`` gives it back untouched, ``remove`` deletes it."""

    path: Path
    note: Path
    lock: QLockFile | None  # None: the legacy shared file, which had no lock

    @property
    def saved_at(self) -> float:
        try:
            return self.path.stat().st_mtime
        except OSError:
            return 0.0

    def release(self) -> None:
        if self.lock is not None:
            self.lock.unlock()

    def remove(self) -> None:
        for p in (self.path, self.note):
            with contextlib.suppress(OSError):
                p.unlink()
        self.release()


def orphaned_files(directory: Path, own: Path | None = None) -> list[RecoveryFile]:
    """The recovery files in ``directory`` that no running instance owns (their owner
    crashed), newest first, each claimed by the caller; ``own`` is left out."""
    folder = directory / RECOVERY_FOLDER
    found: list[RecoveryFile] = []
    if folder.is_dir():
        for path in folder.glob(f"*{RECOVERY_SUFFIX}"):
            if path == own:
                continue
            lock = _lock(path.with_suffix(LOCK_SUFFIX))
            if lock.tryLock(0):  # no lock, or a dead owner's: nobody writes it now
                found.append(RecoveryFile(path, path.with_suffix(NOTE_SUFFIX), lock))
        for path in folder.glob(f"*{LOCK_SUFFIX}"):  # owners that died before writing
            lock = _lock(path)
            if not path.with_suffix(RECOVERY_SUFFIX).exists() and lock.tryLock(0):
                lock.unlock()  # removes the stale lock file
    legacy = directory / LEGACY_NAME
    if legacy.is_file():
        found.append(RecoveryFile(legacy, directory / LEGACY_NOTE, None))
    found.sort(key=lambda f: f.saved_at, reverse=True)
    return found


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
        folder = self.directory / RECOVERY_FOLDER
        #: This instance's own files: the process id keeps them apart across processes,
        #: the random part across windows of one process (tests, the notebook).
        self.instance = f"{os.getpid()}-{secrets.token_hex(4)}"
        self.path = folder / f"{self.instance}{RECOVERY_SUFFIX}"
        self.note = folder / f"{self.instance}{NOTE_SUFFIX}"
        self._lock = _lock(folder / f"{self.instance}{LOCK_SUFFIX}")
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
        self._claim()
        if self._dirty:
            self.timer.start()

    def stop(self) -> None:
        """No more autosaves; returns once the writes already asked for are done.

        The files stay, as a crash leaves them, and are no longer this instance's: the
        next start finds them (a clean exit ``discard``s them first)."""
        self._started = False
        self.timer.stop()
        self._unsubscribe()
        self.wait()
        self._lock.unlock()

    def _claim(self) -> bool:
        """Hold this instance's lock (once the folder can be made)."""
        if self._lock.isLocked():
            return True
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        return self._lock.tryLock(0)

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
        self._claim()
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
            self.path.parent.mkdir(parents=True, exist_ok=True)
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
        """Whether this instance's own recovery file is on disk."""
        return self.path.is_file()

    def orphans(self) -> list[RecoveryFile]:
        """Recovery files of instances that are gone, newest first, claimed: the caller
        ``remove``s or ``release``s each."""
        return orphaned_files(self.directory, own=self.path)

    def load(self, found: RecoveryFile | None = None) -> RecoveredDocument:
        """An autosaved document: ``found``, or this instance's own (``DocumentError``
        if the file is damaged)."""
        path, note_path = (self.path, self.note) if found is None else (found.path, found.note)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise DocumentError(path, f"cannot be read ({exc})") from None
        doc = loads(data, path)
        original: str | None = None
        saved_at = path.stat().st_mtime
        vouched = None
        with contextlib.suppress(OSError, ValueError, AttributeError, TypeError):
            note = json.loads(note_path.read_text(encoding="utf-8"))
            original = note.get("original") or None
            saved_at = float(note.get("saved_at", saved_at))
            vouched = note.get("trusted")
        admit(doc, vouched == content_hash(data))
        return RecoveredDocument(doc, original, saved_at)
