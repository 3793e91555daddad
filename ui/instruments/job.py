"""One instrument run (verify, gradcheck) in a child process the window can kill.

The child (``gradstudio.instruments.studio_child``) evaluates the document, so a
trusted document's Function code runs there and never in the studio; it starts in a
session of its own, and Cancel kills that whole process group (``verify``'s PyTorch
grandchild included).  Nothing blocks: a timer polls the process and reads its
pickled answer when it exits.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from gradstudio.interchange.fileformat import dumps

if TYPE_CHECKING:
    from gradstudio.document.model import Document

POLL_MS = 40
_ROOT = str(Path(__file__).resolve().parents[2])


class InstrumentJob(QObject):
    """Runs one instrument at a time; ``done`` carries the child's payload dict
    (``result``, ``error`` or ``unavailable``), or ``{"cancelled": ...}``."""

    done = Signal(object)
    busyChanged = Signal(bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._proc: subprocess.Popen[bytes] | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)

    @property
    def busy(self) -> bool:
        return self._proc is not None

    def start(self, kind: str, doc: Document, device: str = "cpu", node: str | None = None) -> None:
        """Run ``kind`` ("verify" or "gradcheck") on a copy of ``doc`` (a newer run
        replaces a running one)."""
        self._stop()
        self._tmp = tempfile.TemporaryDirectory(prefix="gradstudio-instrument-")
        source = Path(self._tmp.name, "doc.gstudio")
        source.write_text(dumps(doc), "utf-8")
        cmd = [sys.executable, "-m", "gradstudio.instruments.studio_child", kind, str(source)]
        cmd += [str(Path(self._tmp.name, "out.pickle")), "--device", device]
        if node is not None:
            cmd += ["--node", node]
        if doc.trusted:
            cmd.append("--trusted")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), _ROOT]))
        with Path(self._tmp.name, "stderr.txt").open("wb") as err:
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                env=env,
                start_new_session=True,
            )
        self._timer.start()
        self.busyChanged.emit(True)

    def cancel(self) -> None:
        """Stop the run now (its process group is killed)."""
        if self._proc is not None:
            self._stop()
            self.busyChanged.emit(False)
            self.done.emit({"cancelled": "stopped"})

    def _stop(self) -> None:
        self._timer.stop()
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def _poll(self) -> None:
        proc = self._proc
        if proc is None or proc.poll() is None:
            return
        assert self._tmp is not None
        output = Path(self._tmp.name, "out.pickle")
        payload: dict[str, Any]
        if proc.returncode == 0 and output.exists():
            # our own child wrote this file a moment ago, into our private directory
            with output.open("rb") as f:
                payload = pickle.load(f)
        else:
            err = Path(self._tmp.name, "stderr.txt").read_text("utf-8", "replace")
            last = (err.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
            payload = {"error": f"the instrument's process failed: {last}"}
        self._stop()
        self.busyChanged.emit(False)
        self.done.emit(payload)
