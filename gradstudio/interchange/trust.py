"""Which files' custom Function code the user allowed to run, remembered by content hash.

Like Jupyter's notebook trust: opening a file never runs its Python code; once the
user says they trust it, the sha256 of its bytes is stored here, and a file with
the same bytes is trusted next time.  Saving a trusted document trusts the new bytes.

The rule on every path that brings a document in (open, recovery, ``loads``, snippet
import, paste): its code is untrusted unless the user said so.  ``Document()`` starts
untrusted; ``admit`` settles a document that arrived whole.  One store serves the
command line and the studio (``default_trust_path``), private to the user (0600).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gradstudio.interchange.atomic import atomic_write
from gradstudio.locations import EXAMPLES_DIR

if TYPE_CHECKING:
    from gradstudio.document.model import Document

STORE_FORMAT = "gradstudio-trust"
STORE_MODE = 0o600
#: The examples shipped with GradStudio: trusted by content, so an edited copy is not.
BUNDLED_DIR = EXAMPLES_DIR


def content_hash(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def default_trust_path() -> Path:
    """The one store: ``GradStudio/trusted.json`` in the user's configuration folder.

    The folder is the one the studio's settings live in (``QSettings``' user scope in
    INI format): ``$XDG_CONFIG_HOME`` (``~/.config`` if unset), ``%APPDATA%`` on Windows.
    """
    appdata = os.environ.get("APPDATA")
    if sys.platform == "win32" and appdata:
        base = Path(appdata)
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "GradStudio" / "trusted.json"


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
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        text = json.dumps(
            {"format": STORE_FORMAT, "version": 1, "hashes": sorted(hashes)}, indent=1
        )
        atomic_write(self.path, text.encode("utf-8"), mode=STORE_MODE)

    def is_trusted(self, digest: str | None) -> bool:
        """The user trusted these bytes, or they are an example shipped with the studio."""
        return digest is not None and (digest in bundled_hashes() or digest in self._read())

    def trust(self, digest: str) -> None:
        hashes = self._read()
        if digest not in hashes:
            self._write(hashes | {digest})

    def forget(self, digest: str) -> None:
        hashes = self._read()
        if digest in hashes:
            self._write(hashes - {digest})


@functools.cache
def bundled_hashes() -> frozenset[str]:
    """Content hashes of the bundled examples: the command line and the studio both run
    them as shipped, with no trust step (one rule, here, for both)."""
    try:
        files = sorted(BUNDLED_DIR.glob("*.gstudio"))
        return frozenset(content_hash(f.read_bytes()) for f in files)
    except OSError:
        return frozenset()


def admit(doc: Document, user_trusts: bool) -> Document:
    """Settle the trust of a document that just came in from outside (returned).

    Its code may run only if the user said so (``user_trusts``: the store knows the
    bytes, the recovery note vouches for them, the caller ships them).  A document
    with no code has nothing to distrust: code the user then types into it is theirs,
    while code pasted into it makes it untrusted again (``PasteCommand``).
    """
    doc.set_trusted(user_trusts or not doc.has_code())
    return doc


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
