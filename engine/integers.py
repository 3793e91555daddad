"""What an integer argument is: a Python ``int`` or a NumPy integer scalar.

PyTorch takes any integer with ``__index__`` where it wants an int (a dim, a size, a
kernel), so ``x.sum(np.int64(1))`` and ``F.max_pool2d(x, np.int64(2))`` work there; code
that tells "one int" from "a sequence of ints" asks ``is_int`` rather than
``isinstance(v, int)``, and keeps Python ints (``grad_fn._saved_dim`` is an ``int``).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

#: The types a single integer argument may have.
INTEGER = (int, np.integer)


def is_int(value: Any) -> bool:
    """Whether ``value`` is one integer (a bool too, as ``isinstance(True, int)``)."""
    return isinstance(value, INTEGER)


def as_int(value: Any) -> Any:
    """A NumPy integer as a Python ``int``; anything else as it is (checked later)."""
    return operator.index(value) if isinstance(value, np.integer) else value


def int_tuple(value: Any) -> tuple[Any, ...]:
    """One integer or a sequence of them (a list, a tuple, a ``torch.Size``) as a tuple,
    NumPy integers made Python ints."""
    if is_int(value):
        return (as_int(value),)
    return tuple(as_int(v) for v in value)
