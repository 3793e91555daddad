"""Indexing: ``x[...]`` as PyTorch decomposes it (select, slice, unsqueeze,
alias, advanced index) and ``x[...] = v`` (``CopySlices``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from engine import dtypes, warn_site
from engine.backend import device, to_numpy, transfer
from engine.catalog import Example, Param, Port, public
from engine.creation import tensor
from engine.integers import is_int
from engine.messages import fmt_shape
from engine.ops.atomic_add import add_at
from engine.ops.convert import copy_
from engine.ops.core import Sample, apply_inplace, apply_op, declare
from engine.ops.shape import UNSQUEEZE, _wrap, alias, expand, view
from engine.tensor import Tensor


def _index_into(xp: Any, shape: tuple[int, ...], dtype: Any, key: Any, g: Any) -> Any:
    out = xp.zeros(shape, dtype=dtype)
    if _is_advanced(key):
        if xp is np:
            np.add.at(out, key, g)
        else:  # CuPy's counterpart of np.add.at (duplicate indices accumulate)
            import cupyx  # type: ignore[import-not-found]

            cupyx.scatter_add(out, key, g)
    else:
        out[key] = g
    return out


def _is_advanced(key: Any) -> bool:
    ks = key if isinstance(key, tuple) else (key,)
    return any(not isinstance(k, int | slice | type(None) | type(Ellipsis)) for k in ks)


SELECT = declare(
    "select",
    "SelectBackward0",
    ("self",),
    lambda xp, a, dim, index: a[(slice(None),) * dim + (index, Ellipsis)],
    lambda ctx, g: ctx.math.index_backward(
        g,
        shape=tuple(ctx.shapes[0]),
        key=(slice(None),) * ctx.params["dim"] + (ctx.params["index"],),
    ),
    dtype="same",
    view=True,
    samples=(Sample(((3, 4),), {"dim": 1, "index": 2}),),
)
SLICE = declare(
    "slice",
    "SliceBackward0",
    ("self",),
    lambda xp, a, dim, start, end, step: a[(slice(None),) * dim + (slice(start, end, step),)],
    lambda ctx, g: ctx.math.index_backward(
        g,
        shape=tuple(ctx.shapes[0]),
        key=(slice(None),) * ctx.params["dim"]
        + (slice(ctx.params["start"], ctx.params["end"], ctx.params["step"]),),
    ),
    dtype="same",
    view=True,
    samples=(Sample(((4, 3),), {"dim": 0, "start": 1, "end": 4, "step": 2}),),
)
INDEX = declare(
    "index",
    "IndexBackward0",
    ("self",),
    lambda xp, a, key: a[key],
    lambda ctx, g: ctx.math.index_backward(g, shape=tuple(ctx.shapes[0]), key=ctx.params["key"]),
    saved_params=("key",),
    unlisted=("key",),
    dtype="same",
    samples=(Sample(((4, 3),), {"key": (np.array([0, 2, 2]),)}),),
    grad_version=1,
)
INDEX_BACKWARD = declare(
    "index_backward",
    "IndexBackwardBackward0",
    ("grad",),
    lambda xp, g, shape, key: _index_into(xp, shape, g.dtype, key, g),
    lambda ctx, gg: gg[ctx.params["key"]],
    dtype="same",
)


def _norm_index(k: Any, size: int, dim: int) -> int:
    if not -size <= k < size:
        raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {size}")
    return k % size


_SEQUENCE_AS_TUPLE = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result"
)


def _is_sequence(k: Any) -> bool:
    """The index objects PyTorch reads as sequences (a NumPy array reads as a tensor)."""
    return isinstance(k, list | tuple | range)


def _wrap_key(key: Any) -> tuple[Any, ...]:
    """The key as a tuple of indices, by PyTorch's (NumPy's old) rule: a short non-tuple
    sequence holding a tensor, a sequence, a slice, ``...`` or ``None`` is read as a
    tuple of indices (with a deprecation warning); any other is one index."""
    if isinstance(key, tuple):
        return key
    if not _is_sequence(key) or len(key) >= 32:
        return (key,)
    if any(
        isinstance(k, Tensor | slice) or _is_sequence(k) or k is None or k is Ellipsis for k in key
    ):
        warnings.warn(_SEQUENCE_AS_TUPLE, UserWarning, stacklevel=warn_site.stacklevel(4, __file__))
        return tuple(key)
    return (key,)


def _sequence_index(k: Any) -> Any:
    """A list, range or tuple inside a key as the index tensor PyTorch makes of it
    (``indexing_tensor_from_data``): bool or uint8 when its items are, else int64."""

    if not _is_sequence(k):
        return k
    data = _plain(k)
    inferred = tensor(data)
    if inferred.dtype in (dtypes.bool_, dtypes.uint8):
        return inferred
    return tensor(data, dtype=dtypes.int64)


def _plain(k: Any) -> Any:
    """Ranges and tuples nested in an index list as lists (``torch.tensor`` reads both)."""
    if isinstance(k, range | tuple | list):
        return [_plain(v) for v in k]
    return k


def getitem(x: Any, key: Any) -> Any:
    """Apply ``key`` as ATen's ``applySlicing`` does: basic indices one view op at a
    time (select, slice, unsqueeze), then any tensor indices in one ``index``."""
    out, advanced, changed = _slicing(x, key)
    if any(not isinstance(k, slice) for k in advanced):
        return _advanced(out, tuple(advanced))
    if not changed:
        return alias(x)
    return out


def _slicing(x: Any, key: Any, setting: bool = False) -> tuple[Any, list[Any], bool]:
    """The view the key's basic indices make of ``x``, the key left for an advanced
    index over that view (a full slice for each dimension it keeps) and whether the
    view differs from ``x``.  A full slice is skipped, except alone in ``x[:]`` (read,
    not assigned: ``x[:] = v`` copies into ``x`` itself)."""
    keys = tuple(_sequence_index(k) for k in _wrap_key(key))
    key = keys if isinstance(key, tuple) or _is_sequence(key) else keys[0]
    if (
        x.ndim == 0
        and any(k is not None and k is not Ellipsis for k in keys)
        and not any(_is_bool_index(k) for k in keys)
    ):
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    keys = tuple(_scalar_index(k) for k in keys)
    n_real = sum(1 for k in keys if k is not None and k is not Ellipsis and not _is_bool_index(k))
    if n_real > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    out, dim, changed = x, 0, False
    advanced: list[Any] = []
    for pos, k in enumerate(keys):
        if k is Ellipsis:
            rest = sum(1 for kk in keys[pos + 1 :] if kk is not None and kk is not Ellipsis)
            n = out.ndim - rest - dim
            advanced.extend([slice(None)] * n)
            dim += n
        elif k is None:
            out = apply_op(_unsqueeze(), (out,), {"dim": dim})
            advanced.append(slice(None))
            dim += 1
            changed = True
        elif is_int(k):
            size = out.shape[dim]
            # PyTorch names the index's position in the key, not the view's dimension.
            out = apply_op(SELECT, (out,), {"dim": dim, "index": _norm_index(k, size, pos)})
            changed = True
        elif isinstance(k, slice):
            size = out.shape[dim]
            start, end, step = k.indices(size)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            full = start == 0 and end == size and step == 1
            if not full or not (setting or isinstance(key, tuple)):
                out = apply_op(
                    SLICE,
                    (out,),
                    {"dim": dim, "start": start, "end": max(end, start), "step": step},
                )
                changed = True
            advanced.append(slice(None))
            dim += 1
        else:
            advanced.append(k)
            dim += _index_dims(k)
    return out, advanced, changed


def _is_bool_index(k: Any) -> bool:
    return isinstance(k, bool) or (
        getattr(k, "dtype", None) is not None and str(k.dtype) in ("bool", "torch.bool")
    )


def _index_dims(k: Any) -> int:
    """Dimensions of ``self`` an advanced index consumes (a bool mask: its ndim)."""
    if _is_bool_index(k) and not isinstance(k, bool):
        return k.ndim
    return 1


def _scalar_index(k: Any) -> Any:
    """A 0-dim integer tensor indexes like a Python int (PyTorch selects)."""
    if (
        isinstance(k, Tensor)
        and k.ndim == 0
        and not k.dtype.is_floating_point
        and k.dtype.name != "bool"
    ):
        return int(k.item())
    if hasattr(k, "__index__") and not isinstance(k, bool | Tensor) and not hasattr(k, "shape"):
        return int(k)
    return k


@public(
    "select",
    ("input",),
    (Param("dim", "dim", 0), Param("index", "int", 0)),
    category="indexing",
    doc="the slice at one index of a dimension (what x[i] does)",
)
def select(input: Any, dim: int, index: int) -> Any:  # noqa: A002

    d = _wrap(dim, input.ndim)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size "
            f"{fmt_shape(input.shape)} at dimension {d}"
        )
    return apply_op(SELECT, (input,), {"dim": d, "index": index % size})


@public(
    "narrow",
    ("input",),
    (Param("dim", "dim", 0), Param("start", "int", 0), Param("length", "int", 1)),
    category="indexing",
    doc="length elements from start along dim (what x[a:b] does)",
)
def narrow(input: Any, dim: int, start: int, length: int) -> Any:  # noqa: A002

    d = _wrap(dim, input.ndim)
    size = input.shape[d]
    s = start % size if start < 0 else start
    if s + length > size or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    params = {"dim": d, "start": s, "end": s + length, "step": 1}
    return apply_op(SLICE, (input,), params)


def _unsqueeze() -> Any:
    return UNSQUEEZE


def _as_index_array(k: Any, dev: device) -> Any:
    """An index on the indexed tensor's device; CPU indices of a CUDA tensor are
    moved over, CUDA indices of a CPU tensor are refused as PyTorch does."""
    if isinstance(k, Tensor):
        if k.device == dev:
            return k._data
        if k.device.type != "cpu":
            raise RuntimeError(
                "indices should be either on cpu or on the same device as the indexed tensor "
                f"({dev})"
            )
        return transfer(k._data, dev)
    if isinstance(k, list | np.ndarray):
        return transfer(np.asarray(k), dev)
    return k


def _advanced(x: Any, keys: tuple[Any, ...]) -> Any:
    key = _index_key(x, keys)
    return apply_op(INDEX, (x,), {"key": key if len(key) > 1 else key[0]})


def _index_key(x: Any, keys: tuple[Any, ...]) -> tuple[Any, ...]:
    """The advanced part of a key as arrays on ``x``'s device, checked as ATen's index
    kernel checks it (dtype, bounds, mask shapes, broadcastable index shapes)."""
    key = tuple(_as_index_array(k, x.device) for k in keys)
    for k in key:
        if hasattr(k, "dtype") and k.dtype.kind == "f":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if all(isinstance(k, slice) or hasattr(k, "dtype") for k in key):
        _check_index_bounds(x.shape, key)
        _check_broadcast(key)
    try:
        x._data[key]
    except IndexError as exc:
        raise IndexError(str(exc)) from None
    return key


def _index_shapes(key: tuple[Any, ...]) -> list[tuple[int, ...]]:
    """The shapes of the index tensors ATen broadcasts: a mask stands for one index per
    dimension it covers, each as long as the mask has true entries."""

    shapes: list[tuple[int, ...]] = []
    for k in key:
        if isinstance(k, slice):
            continue
        if k.dtype.kind == "b":
            shapes.extend([(int(np.count_nonzero(to_numpy(k))),)] * max(k.ndim, 1))
        else:
            shapes.append(tuple(k.shape))
    return shapes


def _check_broadcast(key: tuple[Any, ...]) -> None:
    shapes = _index_shapes(key)
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        listed = ", ".join(map(fmt_shape, shapes))
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {listed}"
        ) from None


def _check_value_shape(x: Any, key: tuple[Any, ...], v: Any) -> None:
    """``index_put_``'s message when the value cannot broadcast to the indexed shape."""
    target = tuple(x._data[key if len(key) > 1 else key[0]].shape)
    shape = tuple(v.shape)
    try:
        ok = np.broadcast_shapes(shape, target) == target
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {fmt_shape(shape)} cannot be "
            f"broadcast to indexing result of shape {fmt_shape(target)}"
        )


def _check_index_bounds(shape: tuple[int, ...], key: tuple[Any, ...]) -> None:
    """PyTorch's index kernel message: the dimension it names is the position of
    the offending index among the index tensors, the size that of the dimension
    it indexes."""

    dim = nth = 0
    for k in key:
        if isinstance(k, slice):
            dim += 1
            continue
        if k.dtype.kind == "b":
            for j, n in enumerate(k.shape):
                if dim + j < len(shape) and n != shape[dim + j]:
                    raise IndexError(
                        f"The shape of the mask {fmt_shape(k.shape)} at index {j} "
                        "does not match the shape of the indexed tensor "
                        f"{fmt_shape(shape)} at index {dim + j}"
                    )
            dim += k.ndim
            nth += k.ndim
            continue
        size = shape[dim]
        host = to_numpy(k)
        bad = (host < -size) | (host >= size)
        if bad.any():
            raise IndexError(
                f"index {int(host[bad].flat[0])} is out of bounds for dimension {nth} with "
                f"size {size}"
            )
        dim += 1
        nth += 1


INDEX_PUT = declare(
    "index_put_",
    "IndexPutBackward0",
    ("self", "values"),
    lambda xp, a, v, key: _setitem_array(a.copy(), key, v),
    lambda ctx, g: (
        ctx.math.index_put_zero(g, key=ctx.params["key"]) if ctx.needs[0] else None,
        g[ctx.params["key"]] if ctx.needs[1] else None,
    ),
    samples=(Sample(((4, 3), (2, 3)), {"key": np.array([0, 2])}),),
)
declare(
    "index_put_zero",
    "IndexPutBackward0",
    ("self",),
    lambda xp, g, key: _setitem_array(g.copy(), key, 0),
    lambda ctx, gg: ctx.math.index_put_zero(gg, key=ctx.params["key"]),
    dtype="same",
)


def _accumulate_array(xp: Any, a: Any, v: Any, key: Any) -> Any:
    out = a.copy()
    add_at(xp, out, key, v)
    return out


INDEX_PUT_ACCUMULATE = declare(
    "index_put_accumulate",
    "IndexPutBackward0",
    ("self", "values"),
    _accumulate_array,
    lambda ctx, g: (g if ctx.needs[0] else None, g[ctx.params["key"]] if ctx.needs[1] else None),
    samples=(Sample(((4, 3), (3, 3)), {"key": np.array([0, 2, 0])}),),
)


@public(
    "index_put",
    ("input", Port("indices", variadic=True), "values"),
    (Param("accumulate", "bool"),),
    category="indexing",
    doc="a copy with input[indices] = values (+= with accumulate)",
    example=Example(inputs={"indices": [(2,)]}, values={"indices": "index"}),
)
def index_put(input: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:  # noqa: A002
    """``input.index_put(indices, values, accumulate)``: a copy with the values put, one
    ``IndexPutBackward0`` of ``input`` itself (no clone in between), as ATen's."""
    key, v = _put_arguments(input, indices, values)
    return apply_op(INDEX_PUT_ACCUMULATE if accumulate else INDEX_PUT, (input, v), {"key": key})


def _put_arguments(input: Any, indices: Any, values: Any) -> tuple[Any, Any]:  # noqa: A002
    """The index key on the input's device, and the values in its dtype."""
    key = tuple(_as_index_array(k, input.device) for k in indices)
    v = values if values.dtype is input.dtype else values.to(input.dtype)
    return (key if len(key) > 1 else key[0]), v


@public(
    "index_put_",
    ("input", Port("indices", variadic=True), "values"),
    (Param("accumulate", "bool"),),
    namespace="torch.Tensor",
    category="in-place",
    doc="input[indices] = values (+= with accumulate), in place",
    mutates=True,
    example=Example(inputs={"indices": [(2,)]}, values={"indices": "index"}),
)
def index_put_(input: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:  # noqa: A002
    """``input[indices] = values`` (``accumulate``: ``+=``, repeated indices adding up);
    one ``IndexPutBackward0`` either way, as ATen's ``index_put_``."""

    key, v = _put_arguments(input, indices, values)
    apply_inplace(INDEX_PUT_ACCUMULATE if accumulate else INDEX_PUT, (input, v), {"key": key})
    return input


def _setitem_array(a: Any, key: Any, v: Any) -> Any:
    a[key] = v
    return a


def setitem(x: Any, key: Any, value: Any) -> None:
    """``x[key] = value`` as PyTorch does it: ``copy_`` into a view for basic
    indices (so autograd shows ``CopySlices``), ``index_put_`` for advanced ones."""

    v = _value_tensor(x, value)
    sliced, advanced, changed = _slicing(x, key, setting=True)
    if not any(not isinstance(k, slice) for k in advanced):
        _copy_to(sliced if changed else x, v)
        return
    k = _index_key(sliced, tuple(advanced))
    v = _without_leading_ones(v)
    if v.dtype is not x.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{x.dtype.scalar_name} for the destination and {v.dtype.scalar_name} for the source."
        )
    _check_value_shape(sliced, k, v)
    apply_inplace(INDEX_PUT, (sliced, v), {"key": k if len(k) > 1 else k[0]})


def _value_tensor(x: Any, value: Any) -> Any:
    """The assigned value as a tensor (ATen's ``valueToTensor``): a tensor as it is, a
    Python number in ``x``'s dtype; any other object is refused by its type's name."""

    if isinstance(value, Tensor):
        return value
    if isinstance(value, bool | int | float | complex | np.integer):
        return tensor(value, dtype=x.dtype, device=x.device)
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    raise TypeError(f"can't assign a {name} to a {dtypes.legacy_name(x.dtype, x.is_cuda)}")


def _without_leading_ones(v: Any) -> Any:
    """``v`` viewed without its leading size-1 dimensions (ATen's ``slicePrefix1sSize``),
    as ``x[i] = v`` assigns it; a ``view`` only where the shape changes."""

    shape = tuple(v.shape)
    n = next((i for i, s in enumerate(shape) if s != 1), len(shape))
    return view(v, *shape[n:]) if n else v


def _copy_to(dst: Any, src: Any) -> None:
    """ATen's ``copy_to``: equal shapes copy; a 0-dim value fills; any other value is
    viewed without leading ones and expanded to ``dst`` first (``ViewBackward0``,
    ``ExpandBackward0`` under ``CopySlices``; the expand names the mismatch)."""

    if tuple(dst.shape) == tuple(src.shape) or src.ndim == 0:
        copy_(dst, src)
        return
    shape = tuple(src.shape)
    n = next((i for i, s in enumerate(shape) if s != 1), len(shape))
    src = view(src, *shape[n:])
    if tuple(src.shape) != tuple(dst.shape):
        src = expand(src, *dst.shape)
    copy_(dst, src)
