"""Atomic file replacement: a crash mid-save never destroys the previous file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def atomic_write(path: str | os.PathLike[str], data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, then rename over ``path``.

    The rename is atomic on POSIX and Windows, so readers see the old file or the new
    one, never half of either; the file keeps the permissions the old one had, or
    gets ``mode`` when one is given (the trust store is private: 0600).
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            with contextlib.suppress(OSError):
                os.chmod(tmp, target.stat().st_mode & 0o7777 if target.exists() else 0o644)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if hasattr(os, "O_DIRECTORY"):
        with contextlib.suppress(OSError):
            dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
