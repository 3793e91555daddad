"""What a contained run may use: CPU seconds, address space, processes, file size."""

from __future__ import annotations

import contextlib
import os
from dataclasses import asdict, dataclass
from typing import Any

#: Processes a run may have at once, its own first process included.
MAX_PROCESSES = 64
#: The largest file a run may write (its report included).
MAX_FILE_BYTES = 1 << 30


@dataclass(frozen=True)
class Limits:
    """Caps on one run; None leaves that resource as the caller has it."""

    cpu_seconds: int | None = None
    memory_bytes: int | None = None
    max_processes: int = MAX_PROCESSES
    max_file_bytes: int | None = MAX_FILE_BYTES

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Limits:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


def user_processes(uid: int) -> int:
    """How many processes this user has now (``RLIMIT_NPROC`` counts them all, per user)."""
    count = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    if entry.stat().st_uid == uid:
                        count += 1
    return count


def apply(limits: Limits) -> None:
    """Set the limits on this process (in the child, before it runs the code).

    ``RLIMIT_NPROC`` counts every process of the user, so the cap is what the user runs
    now plus the run's share; it does not bind root, which is why the supervisor also
    counts the tree itself.
    """
    import resource

    def cap(which: int, value: int) -> None:
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (value, hard))

    if limits.cpu_seconds is not None:
        cap(resource.RLIMIT_CPU, limits.cpu_seconds)
    if limits.memory_bytes is not None:
        cap(resource.RLIMIT_AS, limits.memory_bytes)
    if limits.max_file_bytes is not None:
        cap(resource.RLIMIT_FSIZE, limits.max_file_bytes)
    if hasattr(resource, "RLIMIT_NPROC"):
        cap(resource.RLIMIT_NPROC, user_processes(os.getuid()) + limits.max_processes)
