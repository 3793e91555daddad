"""``ufunc.at``-style accumulation (repeated indices add up) on either device.

NumPy's ``add.at`` takes every dtype.  CuPy's is a CUDA atomic (``_scatter_op_single`` in
``cupy/_core/_routines_indexing.pyx``), which exists for 32- and 64-bit integers and
floats only: a bool, 8- or 16-bit integer tensor (``index_put_(accumulate=True)``,
``index_add``, ``scatter_add``, all of which PyTorch runs for every dtype) is accumulated
in int64 on the device, then cast back, which wraps as PyTorch's narrow integers wrap
(and, for bool, is ``or``, as PyTorch's bool addition is).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Dtypes CuPy's ``add.at`` has an atomic for (integer-array indices).
_ATOMIC = frozenset(
    np.dtype(n) for n in ("int32", "int64", "uint32", "uint64", "float16", "float32", "float64")
)


def add_at(xp: Any, out: Any, key: Any, values: Any) -> None:
    """``out[key] += values`` in place, each repeated index adding once more."""
    if xp is np or out.dtype in _ATOMIC:
        xp.add.at(out, key, values)
        return
    wide = out.astype(np.int64)
    xp.add.at(wide, key, values.astype(np.int64) if hasattr(values, "astype") else values)
    out[...] = wide.astype(out.dtype)
