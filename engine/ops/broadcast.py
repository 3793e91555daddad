"""``broadcast_shapes``, ``broadcast_to``, ``broadcast_tensors``: expands, as in PyTorch."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.catalog import Example, Param, Port, public
from engine.integers import int_tuple
from engine.ops.core import _broadcast_error
from engine.ops.shape import expand
from engine.tensor import Size


def broadcast_shapes(*shapes: Any) -> Any:
    """The common shape, with PyTorch's message naming the first shape that does not fit."""

    result: list[int] = []
    for k, shape in enumerate(shapes):
        shape = int_tuple(shape)
        result = [1] * (len(shape) - len(result)) + result
        for i in range(1, len(shape) + 1):
            if shape[-i] != 1 and result[-i] not in (1, shape[-i]):
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[-i]} at {-i}! "
                    f"Mismatching argument at index {k} had {shape}; but expected shape "
                    f"should be broadcastable to {result}"
                )
            if shape[-i] != 1:
                result[-i] = shape[-i]
    return Size(result)


@public(
    "broadcast_to",
    ("input",),
    (Param("size", "shape"),),
    category="shape",
    doc="a view expanded to size (-1 keeps a size)",
    example=Example(params={"size": [4, 2, 3]}),
)
def broadcast_to(input: Any, size: Any) -> Any:  # noqa: A002
    """``input.expand(size)``: a view with ``ExpandBackward0``."""
    return expand(input, tuple(size))


@public(
    "broadcast_tensors",
    (Port("tensors", variadic=True),),
    outputs=("parts",),
    returns_list=True,
    category="shape",
    doc="every tensor expanded to their common shape",
    method=False,
    example=Example(inputs={"tensors": [(2, 1), (3,)]}),
)
def broadcast_tensors(*tensors: Any) -> tuple[Any, ...]:
    """Every tensor expanded to the common shape; the message is the one binary ops give."""
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tuple(tensors[0])
    try:
        shape = tuple(np.broadcast_shapes(*(tuple(t.shape) for t in tensors)))
    except ValueError:
        for i in range(1, len(tensors)):
            error = _broadcast_error([tensors[0]._data, tensors[i]._data])
            if error is not None:
                raise error from None
        raise
    return tuple(expand(t, shape) for t in tensors)
