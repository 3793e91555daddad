"""Whether a forward-AD level is open: the one fact the op dispatcher reads per call.

``DUAL`` is empty outside ``dual_level``; inside, it holds the object that carries tangents
through an op (``engine.autograd.forward_ad``), so ``apply_op`` pays one list test when no
level is open and never imports the forward-AD machinery.
"""

from __future__ import annotations

from typing import Any

DUAL: list[Any] = []


def tangent_of(t: Any) -> Any:
    """``t``'s tangent at the open level, or None (outside a level every tangent is gone)."""
    if not DUAL:
        return None
    fw = getattr(t, "_fw", None)
    if fw is None or fw[0] is not DUAL[0].token:
        return None
    return fw[1]
