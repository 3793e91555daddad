"""Where a warning raised by the engine points: the same line compiled or not.

``warnings.warn(stacklevel=n)`` counts Python frames, and functions compiled by Cython
(``engine.compiled_core``) have none, so a fixed ``n`` would point too far up the stack.
This module stays pure Python so that its own frame is always there to count from.
"""

from __future__ import annotations

import sys
from pathlib import Path

_ENGINE = str(Path(__file__).resolve().parent)


#: Files whose frames only forward a call (autocast's wrapper around the ops on its
#: lists): a warning's level does not count them, as PyTorch's C++ dispatcher adds none.
_FORWARDERS = frozenset({str(Path(_ENGINE) / "amp.py")})


def stacklevel(level: int, module_file: str) -> int:
    """``level`` for a warning raised in the module at ``module_file`` when it runs as
    Python, not counting forwarding frames (``_FORWARDERS``); compiled, the level of the
    first frame outside the engine (the user's call, which is where ``level`` points in
    the interpreted engine)."""
    if not module_file.endswith(".py"):
        return outside_engine(2)
    frame = sys._getframe(1)  # the frame that warnings.warn will count as level 1
    n = counted = 1
    while frame.f_back is not None and (counted < level or frame.f_code.co_filename in _FORWARDERS):
        frame = frame.f_back
        n += 1
        if frame.f_code.co_filename not in _FORWARDERS:
            counted += 1
    return n


def outside_engine(depth: int = 1) -> int:
    """The stacklevel of the first frame outside the engine, for a warning about the
    user's call whose engine frames differ by path (``Tensor.backward``,
    ``autograd.backward``) and by build.  ``depth`` 2 counts from the caller's caller."""
    frame = sys._getframe(depth)  # the frame that warnings.warn will count as level 1
    n = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_ENGINE):
        frame = frame.f_back
        n += 1
    return n


_MODULES = str(Path(_ENGINE) / "nn" / "modules")


def functional_caller(depth: int = 1) -> int:
    """The stacklevel of the caller of an ``F`` function, for a warning PyTorch raises there
    with ``stacklevel=2``: the user's line when the user called ``F.mse_loss``, the layer's
    own ``forward`` when a layer did (``nn.MSELoss`` warns at a line of
    ``torch/nn/modules/loss.py``, once per process by the default filter, not once per
    user line).  The engine's layers live in ``engine/nn/modules`` as PyTorch's do."""
    frame = sys._getframe(depth)
    n = 1
    while (
        frame.f_back is not None
        and frame.f_code.co_filename.startswith(_ENGINE)
        and not frame.f_code.co_filename.startswith(_MODULES)
    ):
        frame = frame.f_back
        n += 1
    return n
