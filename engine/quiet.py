"""NumPy's floating-point warnings switched off around one call, cheaply.

``with np.errstate(all="ignore")`` builds a new error-state object on every entry
(about 1.5 µs, more than a small ufunc itself), and ops such as ``log`` or ``x / 0``
run inside one on every call.  NumPy keeps that state in a context variable; here
the "ignore everything" state derived from the one in force is built once and the
variable is set and reset around the call, which is what ``errstate`` does, in a
tenth of the time.  Where NumPy lacks the variable, ``np.errstate`` is used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:
    from numpy._core.umath import _extobj_contextvar as _STATE
    from numpy._core.umath import _make_extobj
except ImportError:  # pragma: no cover  (NumPy < 2 keeps the state elsewhere)
    _STATE = None

#: The state in force -> the same state with every warning ignored (capsules compare by identity).
_IGNORING: dict[Any, Any] = {}


def quietly(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with NumPy's floating-point warnings ignored."""
    if _STATE is None:  # pragma: no cover
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    current = _STATE.get()
    ignoring = _IGNORING.get(current)
    if ignoring is None:
        ignoring = _ignoring(current)
    token = _STATE.set(ignoring)
    try:
        return fn(*args, **kwargs)
    finally:
        _STATE.reset(token)


def silence() -> Any:
    """Ignore NumPy's floating-point warnings until ``restore(token)``; the token.
    For a long block (a whole backward pass) where ``quietly`` would wrap every call."""
    if _STATE is None:  # pragma: no cover
        state = np.errstate(all="ignore")
        state.__enter__()
        return state
    current = _STATE.get()
    ignoring = _IGNORING.get(current)
    if ignoring is None:
        ignoring = _ignoring(current)
    return _STATE.set(ignoring)


def restore(token: Any) -> None:
    """End what ``silence`` began."""
    if _STATE is None:  # pragma: no cover
        token.__exit__(None, None, None)
    else:
        _STATE.reset(token)


def _ignoring(current: Any) -> Any:
    """The state ``current`` with every floating-point error ignored (built once each)."""
    if len(_IGNORING) > 64:  # states come and go with ``np.errstate`` blocks: keep a few
        _IGNORING.clear()
    ignoring = _make_extobj(all="ignore")
    _IGNORING[current] = ignoring
    _IGNORING[ignoring] = ignoring
    return ignoring
