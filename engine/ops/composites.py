"""Functions PyTorch builds from other ops (``tile``, ``diff``, ``unique``, ``F.normalize``,
``F.cosine_similarity``): the same ops in the same order, so the graph and its names agree."""

from __future__ import annotations

from typing import Any

from engine import grad_mode
from engine.catalog import Example, Param, Port, public
from engine.ops.index import narrow
from engine.ops.norms import vector_norm
from engine.ops.pointwise import div, mul, sub
from engine.ops.rearrange import repeat
from engine.ops.reduce import sum as reduce_sum
from engine.ops.shape import cat, expand


@public("tile", ("input",), (Param("dims", "shape"),), category="shape", doc="repeat, dims padded")
def tile(input: Any, dims: Any) -> Any:  # noqa: A002
    """``repeat`` with ``dims`` padded by leading ones to the input's rank."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


@public(
    "diff",
    ("input", Port("prepend", optional=True), Port("append", optional=True)),
    (Param("n", "int"), Param("dim", "dim")),
    category="math",
    doc="differences of neighbours along dim",
)
def diff(
    input: Any,  # noqa: A002
    n: int = 1,
    dim: int = -1,
    prepend: Any = None,
    append: Any = None,
) -> Any:
    """``n`` times: the slice from 1 minus the slice to -1 (``SubBackward0``)."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    parts = [t for t in (prepend, input, append) if t is not None]
    x = cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[dim]
        if length == 0:
            break
        # ``narrow(1) - narrow(0)`` in C++: the right operand is made first (GCC)
        right = narrow(x, dim, 0, length - 1)
        x = sub(narrow(x, dim, 1, length - 1), right)
    return x


def unique(
    input: Any,  # noqa: A002
    sorted: bool = True,  # noqa: A002
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """Sorted distinct values (not differentiable), with inverse indices and counts if asked."""
    from engine.backend import array_module
    from engine.tensor import Tensor

    a = input._data
    xp = array_module(a)
    values, inverse, counts = xp.unique(a, return_inverse=True, return_counts=True, axis=dim)
    out = [Tensor._wrap(values)]
    if return_inverse:
        shape = a.shape if dim is None else (a.shape[dim],)
        out.append(Tensor._wrap(inverse.reshape(shape).astype("int64")))
    if return_counts:
        out.append(Tensor._wrap(counts.astype("int64")))
    return out[0] if len(out) == 1 else tuple(out)


@public(
    "normalize",
    ("input",),
    (Param("p", "number"), Param("dim", "dim"), Param("eps", "float")),
    namespace="torch.nn.functional",
    category="math",
    doc="input over its p-norm along dim",
    method=False,
)
def normalize(
    input: Any,  # noqa: A002
    p: float = 2.0,
    dim: int = 1,
    eps: float = 1e-12,
    out: Any = None,
) -> Any:
    """``input / norm.clamp_min(eps).expand_as(input)``, as ``torch.nn.functional`` writes it."""
    from engine._methods import _clamp_min

    denom = expand(_clamp_min(vector_norm(input, p, dim, True), eps), *input.shape)
    return div(input, denom)


@public(
    "cosine_similarity",
    ("x1", "x2"),
    (Param("dim", "dim"), Param("eps", "float")),
    namespace="torch.nn.functional",
    category="math",
    doc="cosine of the angle between x1 and x2 along dim",
    method=False,
    example=Example(inputs={"x2": (2, 3)}),
)
def cosine_similarity(x1: Any, x2: Any, dim: int = 1, eps: float = 1e-8) -> Any:
    """ATen's ``cosine_similarity``: each input over a clone of its norm, clamped in place
    without grad, then the product summed over ``dim`` (``SumBackward1``)."""
    import numpy as np

    from engine.functions import clamp_
    from engine.ops.shape import clone

    shape = tuple(np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))
    if tuple(x1.shape) != shape:
        x1 = expand(x1, *shape)
    if tuple(x2.shape) != shape:
        x2 = expand(x2, *shape)
    n1 = clone(vector_norm(x1, 2, dim, True))
    n2 = clone(vector_norm(x2, 2, dim, True))
    with grad_mode.no_grad():
        clamp_(n1, min=eps)
        clamp_(n2, min=eps)
    # ``(x1 / n1) * (x2 / n2)`` in C++: GCC evaluates the right operand first, so the
    # second quotient is made (and its node numbered) before the first
    right = div(x2, n2)
    return reduce_sum(mul(div(x1, n1), right), dim)
