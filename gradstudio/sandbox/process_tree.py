"""A process's descendants, read from ``/proc``, and ending them all."""

from __future__ import annotations

import contextlib
import os
import signal


def parents() -> dict[int, int]:
    """Every live process and its parent (Linux ``/proc``; empty elsewhere).  Zombies are
    left out: they run nothing, and their parent (or the subreaper) collects them."""
    found: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    stat = f.read()
                # the command name is in parentheses and may hold anything: read after it
                fields = stat[stat.rindex(b")") + 2 :].split()
                if fields[0] != b"Z":
                    found[int(entry.name)] = int(fields[1])
    return found


def descendants(root: int) -> list[int]:
    """The processes below ``root``, parents before their children."""
    children: dict[int, list[int]] = {}
    for pid, parent in parents().items():
        children.setdefault(parent, []).append(pid)
    order: list[int] = []
    todo = list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        order.append(pid)
        todo.extend(children.get(pid, ()))
    return order


def signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, sig)


def end_tree(
    root: int, spare: frozenset[int] = frozenset(), groups: tuple[int, ...] = ()
) -> dict[int, int]:
    """Stop, then kill, every process below ``root`` but ``spare`` (their children too);
    the wait statuses of ``root``'s children that ended meanwhile.

    Each round freezes the tree first, so a process that forks while it is being killed
    leaves nothing running; ``root``, a subreaper, then collects them.  ``groups`` are
    process groups killed whole first (what did not leave its group goes at once).
    """
    statuses: dict[int, int] = {}
    for group in groups:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)
    for _ in range(1000):
        statuses.update(reap())
        below = [p for p in descendants(root) if p not in spare]
        if not below:
            break
        signal_all(below, signal.SIGSTOP)
        signal_all(below, signal.SIGKILL)
    return statuses


def reap() -> dict[int, int]:
    """Collect this process's children that have ended: their wait statuses."""
    statuses: dict[int, int] = {}
    with contextlib.suppress(ChildProcessError):
        while True:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            statuses[pid] = status
    return statuses
