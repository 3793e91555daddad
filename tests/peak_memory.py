"""A process's own peak resident memory, for probes run in a fresh interpreter.

``getrusage``'s ``ru_maxrss`` survives ``exec``: a probe forked from a large pytest starts
with pytest's peak.  ``VmHWM`` belongs to the process's own address space, made at exec.
"""

from __future__ import annotations

import re


def peak_kib() -> int:
    """This process's peak resident set since it was exec'd, in KiB (Linux)."""
    with open("/proc/self/status", encoding="ascii") as status:
        found = re.search(r"^VmHWM:\s+(\d+) kB", status.read(), re.M)
    assert found, "/proc/self/status has no VmHWM"
    return int(found.group(1))
