"""Which files' custom Function code the user allowed to run, remembered by content hash.

Like Jupyter's notebook trust: opening a file never runs its Python code; once the
user says they trust it, the sha256 of its bytes is stored here, and a file with
the same bytes is trusted next time.  Saving a trusted document trusts the new bytes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from gradstudio.interchange.atomic import atomic_write

if TYPE_CHECKING:
    from gradstudio.document.model import Document

STORE_FORMAT = "gradstudio-trust"


def content_hash(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def default_trust_path() -> Path:
    """``$XDG_CONFIG_HOME/gradstudio/trusted.json`` (``~/.config`` if unset)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "gradstudio" / "trusted.json"


class TrustStore:
    """A JSON file of trusted content hashes; a damaged store reads as empty."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_trust_path()

    def _read(self) -> set[str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("format") == STORE_FORMAT:
                return {h for h in data.get("hashes", []) if isinstance(h, str)}
        except (OSError, ValueError, AttributeError, TypeError, RecursionError):
            pass
        return set()

    def _write(self, hashes: set[str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(
            {"format": STORE_FORMAT, "version": 1, "hashes": sorted(hashes)}, indent=1
        )
        atomic_write(self.path, text.encode("utf-8"))

    def is_trusted(self, digest: str | None) -> bool:
        return digest is not None and digest in self._read()

    def trust(self, digest: str) -> None:
        hashes = self._read()
        if digest not in hashes:
            self._write(hashes | {digest})

    def forget(self, digest: str) -> None:
        hashes = self._read()
        if digest in hashes:
            self._write(hashes - {digest})


def trust_document(doc: Document, store: TrustStore) -> None:
    """The user trusts this document: its code may run, and its file is remembered."""
    if doc.source_hash is not None:
        store.trust(doc.source_hash)
    doc.set_trusted(True)


def trust_file(path: str | os.PathLike[str], store: TrustStore) -> str:
    """Trust a file's current bytes (``main.py trust FILE``); returns the hash."""
    digest = content_hash(Path(path).read_bytes())
    store.trust(digest)
    return digest


def is_file_trusted(path: str | os.PathLike[str], store: TrustStore) -> bool:
    with contextlib.suppress(OSError):
        return store.is_trusted(content_hash(Path(path).read_bytes()))
    return False
