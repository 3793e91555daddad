"""Functions PyTorch builds from other ops (``tile``, ``diff``, ``unique``, ``F.normalize``,
``F.cosine_similarity``): the same ops in the same order, so the graph and its names agree."""

from __future__ import annotations

import math
from typing import Any

from engine import grad_mode
from engine.backend import array_module
from engine.catalog import Example, Param, Port, public
from engine.creation import tensor
from engine.integers import int_tuple, is_int
from engine.ops.index import narrow
from engine.ops.norms import vector_norm
from engine.ops.pointwise import div, mul, sub
from engine.ops.rearrange import repeat
from engine.ops.reduce import sum as reduce_sum
from engine.ops.select import index_select
from engine.ops.shape import _wrap, cat, clone, expand, flatten, reshape, unsqueeze, view
from engine.tensor import Tensor


@public("tile", ("input",), (Param("dims", "shape"),), category="shape", doc="repeat, dims padded")
def tile(input: Any, *dims: Any) -> Any:  # noqa: A002
    """``repeat`` with ``dims`` padded by leading ones to the input's rank; one sequence
    or, as ``Tensor.tile`` takes them, the sizes themselves (``x.tile(2, 2)``)."""
    dims = int_tuple(dims[0] if len(dims) == 1 else dims)
    dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


@public(
    "repeat_interleave",
    ("input",),
    (Param("repeats", "int", 2), Param("dim", "dims")),
    category="shape",
    doc="each element repeated, side by side, along dim (flattened without one)",
)
def repeat_interleave(
    input: Any,  # noqa: A002
    repeats: Any = None,
    dim: int | None = None,
    *,
    output_size: int | None = None,
) -> Any:
    """ATen's two overloads: an int repeats by ``unsqueeze``, ``expand``, ``clone`` and
    ``flatten`` (``ViewBackward0`` last); a tensor of counts by ``index_select``."""

    if repeats is None:  # ``repeat_interleave(counts)``: each index, counts times
        counts = input.tolist()
        if any(c < 0 for c in counts):
            raise RuntimeError("repeats can not be negative")
        return tensor([i for i, c in enumerate(counts) for _ in range(c)], dtype=input.dtype)
    if not is_int(repeats):
        if repeats.ndim == 0 or repeats.numel() == 1:
            repeats = int(repeats.reshape(()).item())
        else:
            x = input if dim is not None else input.flatten()
            d = _wrap(dim if dim is not None else 0, x.ndim)
            if repeats.shape[0] != x.shape[d]:
                raise RuntimeError("repeats must have the same size as input along dim")
            return index_select(x, d, repeat_interleave(repeats))
    if repeats < 0:
        raise RuntimeError("Repeats can not be negative")
    x = input if dim is not None else input.flatten()
    d = _wrap(dim if dim is not None else 0, input.ndim)
    x = unsqueeze(x, d + 1)
    shape = list(x.shape)
    shape[d + 1] = repeats
    return flatten(clone(expand(x, tuple(shape))), d, d + 1)


_MESHGRID_WARNING = (
    "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
    "argument. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4215.)"
)
_warned_meshgrid: list[bool] = []


@public(
    "meshgrid",
    (Port("tensors", variadic=True),),
    (Param("indexing", "optional_str", "ij", choices=("ij", "xy")),),
    outputs=("grids",),
    returns_list=True,
    category="shape",
    doc="one grid per vector, each expanded to every combination",
    method=False,
    example=Example(inputs={"tensors": [(2,), (3,)]}),
)
def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Any, ...]:
    """Each 0-d or 1-d tensor viewed along its own dimension and expanded to the grid
    (``ExpandBackward0``); ``"xy"`` swaps the first two, as ATen does."""
    import warnings

    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tuple(tensors[0])
    if indexing is None:
        if not _warned_meshgrid:  # TORCH_WARN_ONCE
            _warned_meshgrid.append(True)
            warnings.warn(_MESHGRID_WARNING, UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list")
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    sizes = tuple(t.numel() for t in ts)
    out = []
    for i, t in enumerate(ts):
        shape = [1] * len(ts)
        shape[i] = -1
        out.append(expand(view(t, tuple(shape)), sizes))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


@public(
    "atleast_1d",
    ("tensors",),
    category="shape",
    doc="viewed with at least one dimension",
    method=False,
    example=Example(inputs={"tensors": ()}),
)
def atleast_1d(*tensors: Any) -> Any:
    """A 0-d tensor as ``reshape(1)`` (``ViewBackward0``); others as they are."""

    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], list | tuple) else tensors
    out = tuple(reshape(t, (1,)) if t.ndim == 0 else t for t in ts)
    return out[0] if len(tensors) == 1 and not isinstance(tensors[0], list | tuple) else out


@public(
    "atleast_2d",
    ("tensors",),
    category="shape",
    doc="viewed with at least two dimensions",
    method=False,
    example=Example(inputs={"tensors": (3,)}),
)
def atleast_2d(*tensors: Any) -> Any:
    """0-d as ``reshape(1, 1)``, 1-d as ``unsqueeze(0)``, as ATen's ``atleast_2d``."""

    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], list | tuple) else tensors
    out = tuple(
        reshape(t, (1, 1)) if t.ndim == 0 else unsqueeze(t, 0) if t.ndim == 1 else t for t in ts
    )
    return out[0] if len(tensors) == 1 and not isinstance(tensors[0], list | tuple) else out


@public(
    "hstack",
    (Port("tensors", variadic=True),),
    category="shape",
    doc="cat along dim 1 (dim 0 for vectors)",
    method=False,
)
def hstack(tensors: Any) -> Any:
    """``cat`` of ``atleast_1d`` tensors: along dim 0 for vectors, else dim 1."""
    ts = atleast_1d(tuple(tensors))
    return cat(list(ts), 0 if ts[0].ndim == 1 else 1)


@public(
    "vstack",
    (Port("tensors", variadic=True),),
    category="shape",
    doc="cat along dim 0, vectors as rows",
    method=False,
)
def vstack(tensors: Any) -> Any:
    """``cat`` along dim 0 of ``atleast_2d`` tensors (vectors become rows)."""
    return cat(list(atleast_2d(tuple(tensors))), 0)


@public(
    "unflatten",
    ("input",),
    (Param("dim", "dim"), Param("sizes", "shape")),
    category="shape",
    doc="split one dimension into sizes",
    example=Example(params={"dim": 1, "sizes": [3, 1]}),
)
def unflatten(input: Any, dim: int, sizes: Any) -> Any:  # noqa: A002
    """One dimension split into ``sizes`` (one may be -1): a ``view`` (``ViewBackward0``)."""

    d = _wrap(dim, input.ndim)
    sizes = [int(s) for s in sizes]
    n = input.shape[d]
    known = math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) == 1 and known and n % known == 0:
        sizes[sizes.index(-1)] = n // known
    elif sizes.count(-1) == 0 and known != n:
        raise RuntimeError(
            f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
            f"({n}) in the input tensor"
        )
    return view(input, (*input.shape[:d], *sizes, *input.shape[d + 1 :]))


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


@public(
    "unique",
    ("input",),
    (
        Param("sorted", "bool"),
        Param("return_inverse", "bool"),
        Param("return_counts", "bool"),
        Param("dim", "dims"),
    ),
    outputs=("output", "inverse_indices", "counts"),
    output_flags=(("inverse_indices", "return_inverse"), ("counts", "return_counts")),
    category="indexing",
    doc="the distinct values, and where each element is among them if asked",
    differentiable=False,
    example=Example(params={"return_counts": True}, values={"input": "index"}),
)
def unique(
    input: Any,  # noqa: A002
    sorted: bool = True,  # noqa: A002
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """Sorted distinct values (not differentiable), with inverse indices and counts if asked."""

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
    denom = expand(vector_norm(input, p, dim, True).clamp_min(eps), *input.shape)
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

    shape = tuple(np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))
    if tuple(x1.shape) != shape:
        x1 = expand(x1, *shape)
    if tuple(x2.shape) != shape:
        x2 = expand(x2, *shape)
    n1 = clone(vector_norm(x1, 2, dim, True))
    n2 = clone(vector_norm(x2, 2, dim, True))
    with grad_mode.no_grad():
        n1.clamp_(min=eps)
        n2.clamp_(min=eps)
    # ``(x1 / n1) * (x2 / n2)`` in C++: GCC evaluates the right operand first, so the
    # second quotient is made (and its node numbered) before the first
    right = div(x2, n2)
    return reduce_sum(mul(div(x1, n1), right), dim)
