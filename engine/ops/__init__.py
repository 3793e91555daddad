"""Op declarations, one module per family; importing this package registers them all."""

from engine.ops import (
    activations,
    convert,
    index,
    linalg,
    logic,
    losses,
    math,
    nn,
    norms,
    pointwise,
    rearrange,
    reduce,
    select,
    shape,
    stats,
)
from engine.ops.core import OPS, OpDef, Sample

__all__ = [
    "OPS",
    "OpDef",
    "Sample",
    "activations",
    "convert",
    "index",
    "linalg",
    "logic",
    "losses",
    "math",
    "nn",
    "norms",
    "pointwise",
    "rearrange",
    "reduce",
    "select",
    "shape",
    "stats",
]
