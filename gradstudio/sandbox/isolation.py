"""Isolating a run, where Linux offers it: no network, and writes only to one folder.

Two kernel features, used together when both are there, through ``ctypes`` (no package
wraps them both): a new user and network namespace (the run sees only its own, down,
loopback device: no socket reaches anything), and a Landlock ruleset that lets the run
write, create, remove and rename only beneath its own folder (and write to ``/dev/null``),
connect or bind no TCP socket, and signal no process outside it.  Reading stays as it is:
the program has to import its modules.  Where either feature is missing the run is not
isolated at all, and ``unavailable`` says why, so the user is told rather than
half-protected.
"""

from __future__ import annotations

import ctypes
import functools
import os
import subprocess
import sys

_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000

# Landlock's filesystem rights that change something (ABI 1, then REFER in 2, TRUNCATE in 3).
_WRITE_FILE = 1 << 1
_CHANGES_V1 = sum(1 << bit for bit in (1, 4, 5, 6, 7, 8, 9, 10, 11, 12))
_REFER = 1 << 13
_TRUNCATE = 1 << 14
_FILE_RIGHTS = _WRITE_FILE | _TRUNCATE
_TCP = (1 << 0) | (1 << 1)  # bind, connect (ABI 4)
_SCOPES = (1 << 0) | (1 << 1)  # abstract unix sockets, signals (ABI 6)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 where there is none."""
    if not sys.platform.startswith("linux"):
        return 0
    version = _libc().syscall(_SYS_LANDLOCK_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    return max(0, int(version))


_PROBE = (
    "import ctypes, sys; "
    f"sys.exit(ctypes.CDLL(None, use_errno=True).unshare({_CLONE_NEWUSER | _CLONE_NEWNET}) != 0)"
)


def _namespaces_work() -> str | None:
    """Whether this user may make a user and network namespace (asked of a fresh child:
    forking the studio, which has threads, to try it would not be safe)."""
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "the namespace check could not run"
    if done.returncode != 0:
        return "this system does not let a user make a network namespace"
    return None


@functools.cache
def unavailable() -> str | None:
    """Why runs cannot be isolated here, or None when they can (asked once)."""
    if not sys.platform.startswith("linux"):
        return "isolation needs Linux (namespaces and Landlock)"
    if landlock_abi() < 1:
        return "this Linux kernel has no Landlock (5.13 or later, enabled)"
    return _namespaces_work()


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return result


def _enter_namespaces() -> None:
    uid, gid = os.getuid(), os.getgid()
    _check(_libc().unshare(_CLONE_NEWUSER | _CLONE_NEWNET), "unshare")
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write(f"{uid} {uid} 1")
    with open("/proc/self/gid_map", "w") as f:
        f.write(f"{gid} {gid} 1")


def _restrict_writes(writable: str) -> None:
    libc = _libc()
    abi = landlock_abi()
    changes = _CHANGES_V1 | (_REFER if abi >= 2 else 0) | (_TRUNCATE if abi >= 3 else 0)
    attr = _RulesetAttr(changes, _TCP if abi >= 4 else 0, _SCOPES if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = _check(
        libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, 0), "landlock"
    )
    try:
        for path, rights in ((writable, changes), (os.devnull, changes & _FILE_RIGHTS)):
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneathAttr(rights, fd)
                _check(
                    libc.syscall(
                        _SYS_LANDLOCK_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0
                    ),
                    f"landlock rule for {path}",
                )
            finally:
                os.close(fd)
        _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock")
    finally:
        os.close(ruleset)


def isolate(writable: str) -> None:
    """Isolate this process and all it starts (in the child, before it runs the code;
    the parent asked ``unavailable`` first)."""
    _enter_namespaces()
    _restrict_writes(writable)
