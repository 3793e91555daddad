"""The caller's side of a contained run: start it, poll it, stop it, read its end.

``Contained`` starts the supervisor (``supervisor.py``) with the program under it and
holds three pipes: the program's stdout and stderr, each read to a bounded ``Tail`` (or
left to the caller's own streams), and the supervisor's status line.  ``stop`` asks the
supervisor to end the whole tree and, should the supervisor itself not answer, kills it
and the program's process group.  Nothing here waits on the program for longer than the
caller asks.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradstudio.sandbox.limits import Limits
from gradstudio.sandbox.tail import Tail

#: How long the supervisor has to end the tree once asked, before it is killed itself.
STOP_GRACE_S = 2.0
#: Where the ``gradstudio`` package lives: the supervisor imports it from the same place.
_ROOT = str(Path(__file__).resolve().parents[2])


@dataclass(frozen=True)
class Ended:
    """How a run ended: the program's exit code (negative: the signal that ended it;
    None: unknown, the supervisor was killed) and the supervisor's reason for ending it
    early ("" when the program ended by itself)."""

    code: int | None
    reason: str

    def describe(self) -> str:
        """``exit status 3``, ``killed by signal 9``, or the supervisor's reason."""
        if self.reason:
            return self.reason
        if self.code is None:
            return "it stopped answering"
        if self.code < 0:
            return f"killed by signal {-self.code}"
        return f"exit status {self.code}"


class Contained:
    """A program running contained.  ``capture``: keep the tails of its stdout and stderr
    (else it writes to the caller's own).  ``pass_fds`` stay open in the program."""

    def __init__(
        self,
        argv: list[str],
        *,
        limits: Limits,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        capture: bool = True,
        isolate: bool = False,
        writable: str | None = None,
        pass_fds: tuple[int, ...] = (),
    ) -> None:
        status_r, status_w = os.pipe()
        config = {
            "status_fd": status_w,
            "parent": os.getpid(),
            "keep_fds": list(pass_fds),
            "limits": limits.to_json(),
            "isolate": isolate,
            "writable": writable,
        }
        environment = dict(os.environ if env is None else env)
        environment["PYTHONPATH"] = os.pathsep.join(
            filter(None, (_ROOT, environment.get("PYTHONPATH")))
        )
        if isolate and writable:
            environment["TMPDIR"] = writable
        pipe = subprocess.PIPE if capture else None
        try:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gradstudio.sandbox.supervisor",
                    json.dumps(config),
                    "--",
                    *argv,
                ],
                cwd=cwd,
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=pipe,
                stderr=pipe,
                pass_fds=(status_w, *pass_fds),
            )
        finally:
            os.close(status_w)
        self._status = os.fdopen(status_r, "rb")
        self.stdout = Tail(self.process.stdout) if self.process.stdout else None
        self.stderr = Tail(self.process.stderr) if self.process.stderr else None
        self.pid: int | None = None
        self.ended: Ended | None = None

    def poll(self) -> bool:
        """Whether the run has ended (then ``ended`` says how)."""
        if self.ended is None and self.process.poll() is not None:
            self._finish()
        return self.ended is not None

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the run to end; whether it has."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout)
        return self.poll()

    def stop(self) -> None:
        """End the program and everything it started, now."""
        if self.process.poll() is None:
            with contextlib.suppress(OSError):
                self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                self._read_pid()
                if self.pid is not None:
                    with contextlib.suppress(OSError):
                        os.killpg(self.pid, signal.SIGKILL)
                self.process.kill()
                self.process.wait()
        self.poll()

    def end_strays(self) -> None:
        """End what the program started, sparing the program (a worker between runs)."""
        if self.process.poll() is None:
            with contextlib.suppress(OSError):
                self.process.send_signal(signal.SIGUSR1)

    def _read_pid(self) -> None:
        if self.pid is None:
            line = self._readline(0.0)
            if line is not None:
                self.pid = line.get("pid")

    def _readline(self, timeout: float) -> dict[str, Any] | None:
        if not select.select([self._status], [], [], timeout)[0]:
            return None
        raw = self._status.readline()
        with contextlib.suppress(ValueError):
            data = json.loads(raw)
            if isinstance(data, dict):
                return data
        return None

    def _finish(self) -> None:
        lines: list[dict[str, Any]] = []
        while (line := self._readline(0.0)) is not None:
            lines.append(line)
        self._status.close()
        end = next((line for line in lines if "reason" in line), None)
        if self.pid is None:
            self.pid = next((line["pid"] for line in lines if "pid" in line), None)
        if end is None:
            self.ended = Ended(None, "")
        else:
            code = end.get("exit")
            self.ended = Ended(code if isinstance(code, int) else None, str(end["reason"]))
        for tail in (self.stdout, self.stderr):
            if tail is not None:
                tail.join(1.0)

    def close(self) -> None:
        """Stop the run if it still goes, and let go of its pipes."""
        self.stop()
        with contextlib.suppress(OSError):
            self._status.close()

    def stderr_text(self) -> str:
        return self.stderr.text() if self.stderr is not None else ""
