"""The last bytes of a stream, kept while it is read: a program may print 700 MB."""

from __future__ import annotations

import contextlib
import os
import threading
from typing import IO

#: How much of each stream is kept: enough for a traceback's last lines.
TAIL_BYTES = 64 * 1024
CHUNK = 64 * 1024


class Tail:
    """Reads ``stream`` to its end in a thread, keeping only its last ``limit`` bytes."""

    def __init__(self, stream: IO[bytes], limit: int = TAIL_BYTES) -> None:
        self.limit = limit
        self.total = 0
        self._data = bytearray()
        self._lock = threading.Lock()
        self._stream = stream
        self._thread = threading.Thread(target=self._read, name="gradstudio-tail", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        fd = self._stream.fileno()
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(fd, CHUNK):
                with self._lock:
                    self.total += len(chunk)
                    self._data += chunk
                    if len(self._data) > 2 * self.limit:
                        del self._data[: len(self._data) - self.limit]
        with contextlib.suppress(OSError):
            self._stream.close()

    def join(self, timeout: float | None = None) -> None:
        """Wait until the stream has ended (every writer has closed it)."""
        self._thread.join(timeout)

    def text(self) -> str:
        """The kept tail, decoded (a cut character at its start is dropped)."""
        with self._lock:
            data = bytes(self._data[-self.limit :])
        return data.decode("utf-8", "replace").lstrip("\ufffd")
