"""The supervisor: the one process between the caller and the code it runs.

    python -m gradstudio.sandbox.supervisor CONFIG_JSON -- PROGRAM ARGS...

It makes itself a child subreaper, starts the program in a new session (its own process
group) under the run's limits, and watches the tree: every process below it, including one
that double-forked into another session and so left the group, is its descendant, because
orphans are handed to it rather than to init.  When the program ends, when the caller asks
(SIGTERM), when the caller dies (its parent
changes: the kernel's parent-death signal would follow the caller's *thread*, and the studio
starts workers from short-lived threads), or when the tree grows past its
cap, it stops and kills every process below it and collects them, then writes the
program's end to the status pipe as one JSON line and exits.  SIGUSR1 ends every process
below the program but spares the program (an evaluation worker outlives its runs; what a
run's code started does not).

It imports only the standard library and this package's small modules, so it starts fast.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
from typing import Any

from gradstudio.sandbox.isolation import isolate
from gradstudio.sandbox.limits import Limits, apply
from gradstudio.sandbox.process_tree import descendants, end_tree, reap

#: How often the tree is counted, in seconds.
WATCH_S = 0.05
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    return ctypes.CDLL(None).prctl(option, value, 0, 0, 0) == 0


def _close_all_but(keep: list[int]) -> None:
    """Close every descriptor above stderr but ``keep`` (the supervisor's own included)."""
    low = 3
    for fd in sorted(set(keep)):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))


def _start(command: list[str], config: dict[str, Any]) -> int:
    """Fork the program: a new session, the limits, isolation if asked, then exec."""
    pid = os.fork()
    if pid != 0:
        return pid
    try:  # pragma: no cover - the child's side is seen through what it runs
        os.setsid()
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1):
            signal.signal(sig, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        _close_all_but(config["keep_fds"])
        apply(Limits.from_json(config["limits"]))
        if config.get("isolate"):
            isolate(config["writable"])
        os.execv(command[0], command)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.write(2, f"the program could not be started: {exc}\n".encode(errors="replace"))
    os._exit(127)


class _Flags:
    stop = False
    strays = False


def main(argv: list[str]) -> int:
    config = json.loads(argv[0])
    command = argv[2:] if argv[1:2] == ["--"] else argv[1:]
    status = os.fdopen(config["status_fd"], "w", encoding="utf-8")
    flags = _Flags()
    me = os.getpid()
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)

    def on_stop(_sig: int, _frame: object) -> None:
        flags.stop = True

    def on_strays(_sig: int, _frame: object) -> None:
        flags.strays = True

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_stop)
    signal.signal(signal.SIGUSR1, on_strays)
    if os.getppid() != config["parent"]:
        return 1  # the caller died before the death signal was set
    child = _start(command, config)
    for fd in config["keep_fds"]:  # the program's sockets are its own: the caller sees it end
        with contextlib.suppress(OSError):
            os.close(fd)
    print(json.dumps({"pid": child}), file=status, flush=True)
    limit = Limits.from_json(config["limits"]).max_processes
    ended: int | None = None
    reason = ""
    while ended is None and not flags.stop:
        if os.getppid() != config["parent"]:  # the caller died: its run goes with it
            flags.stop = True
            break
        with contextlib.suppress(InterruptedError):
            select.select([wake_r], [], [], WATCH_S)
        with contextlib.suppress(BlockingIOError, OSError):
            os.read(wake_r, 512)
        ended = reap().get(child, ended)
        if flags.strays and ended is None:
            flags.strays = False
            ended = end_tree(me, spare=frozenset({child})).get(child)
        if ended is None and len(descendants(me)) > limit:
            reason = f"it started more than {limit} processes"
            break
    if flags.stop and ended is None:
        reason = reason or "stopped"
    statuses = end_tree(me, groups=(child,))
    ended = statuses.get(child, ended)
    end: dict[str, Any] = {"reason": reason}
    if ended is not None:
        end["exit"] = os.waitstatus_to_exitcode(ended)
    with contextlib.suppress(BrokenPipeError):  # the studio that asked is gone: no one to tell
        print(json.dumps(end), file=status, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
