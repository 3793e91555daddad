"""``torch.range``: the deprecated inclusive range old tutorials still call (``torch.range(1,
4)`` is ``[1., 2., 3., 4.]``, floating by default), with PyTorch's warning on every call."""

from __future__ import annotations

import builtins
import warnings
from typing import Any

from engine import defaults, dtypes
from engine.creation import tensor
from engine.tensor import Tensor

_DEPRECATED = (
    "torch.range is deprecated and will be removed in a future release because its behavior "
    "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
    "values in [start, end)."
)


def legacy_range(
    start: float,
    end: float,
    step: float = 1,
    *,
    dtype: dtypes.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``start, start + step, ...`` up to and including ``end``; each value computed in double
    (ATen's accumulate type) and then cast, as its CPU kernel does."""
    warnings.warn(_DEPRECATED, UserWarning, stacklevel=2)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    dt = dtype or defaults.get_default_dtype()
    if dt.is_floating_point:
        first, last, by = float(start), float(end), float(step)
    else:
        first, last, by = int(start), int(end), int(step)
    size = int((last - first) / by + 1)  # truncated after the + 1, as ATen's range_out
    values: list[Any] = [first + i * by for i in builtins.range(size)]
    return tensor(values, dtype=dt, device=device, requires_grad=requires_grad)
