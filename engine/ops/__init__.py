"""Op declarations, one module per family; importing this package registers them all."""

from engine.ops import convert, index, linalg, nn, pointwise, reduce, shape
from engine.ops.core import OPS, OpDef, Sample

__all__ = [
    "OPS",
    "OpDef",
    "Sample",
    "convert",
    "index",
    "linalg",
    "nn",
    "pointwise",
    "reduce",
    "shape",
]
