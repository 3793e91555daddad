"""An evaluation as plain, picklable per-step records (what instruments compare).

``Evaluation`` keeps live objects (the plan's node types, a lazily converted
backward trace); a ``StepRecord`` keeps only facts, so it can cross a process
boundary (the PyTorch run of ``verify``) and be compared field by field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gradstudio.evaluation.facts import GradValue, OutputRef, TensorFacts, TraceExecution
from gradstudio.evaluation.results import Evaluation


@dataclass(frozen=True)
class StepRecord:
    step: int
    node_id: str
    status: str
    #: ``(exception type, message)`` of the step's error, if it failed.
    error: tuple[str, str] | None
    warnings: tuple[tuple[str, str], ...]
    changed: dict[OutputRef, TensorFacts | None] = field(default_factory=dict)
    #: The grad_fn nodes a backward step ran, in order (None for other steps).
    trace: tuple[TraceExecution, ...] | None = None


def records_of(ev: Evaluation) -> list[StepRecord]:
    return [
        StepRecord(
            step=s.step,
            node_id=s.node_id,
            status=s.status,
            error=None if s.error is None else (s.error.exc_type, s.error.message),
            warnings=tuple((w.category, w.message) for w in s.warnings),
            changed=dict(s.changed),
            trace=None if s.trace is None else s.trace.executions,
        )
        for s in ev.steps
    ]


def nbytes(value: GradValue | TensorFacts) -> int:
    """Bytes of a tensor's elements (``numel * element_size``), as PyTorch counts them."""
    return math.prod(value.shape) * _itemsize(value.dtype)


_ITEMSIZE = {"bool": 1, "bfloat16": 2, "float16": 2, "complex64": 8, "complex128": 16}


def _itemsize(dtype: str) -> int:
    size = _ITEMSIZE.get(dtype)
    if size is None:
        size = _ITEMSIZE[dtype] = int(np.dtype(dtype).itemsize)
    return size
