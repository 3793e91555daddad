"""Shape ops: views (t, transpose, permute, view, squeeze, unsqueeze, expand),
copies (clone, contiguous, reshape when it must copy), cat and stack."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.catalog import Example, Param, Port, public
from engine.dtypes import as_dtype
from engine.integers import int_tuple, is_int
from engine.messages import fmt_shape
from engine.ops.core import Sample, apply_op, declare
from engine.tensor import Tensor


def _wrap(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def _inv_perm(p: tuple[int, ...]) -> tuple[int, ...]:
    inv = [0] * len(p)
    for i, d in enumerate(p):
        inv[d] = i
    return tuple(inv)


T_OP = declare(
    "t",
    "TBackward0",
    ("self",),
    lambda xp, a: a.T,
    lambda ctx, g: ctx.math.t(g),
    dtype="same",
    view=True,
    samples=(Sample(((2, 3),)),),
    formula={"self": "grad.T"},
)
TRANSPOSE = declare(
    "transpose",
    "TransposeBackward0",
    ("self",),
    lambda xp, a, dim0, dim1: xp.swapaxes(a, dim0, dim1),
    lambda ctx, g: ctx.math.transpose(g, dim0=ctx.params["dim0"], dim1=ctx.params["dim1"]),
    dtype="same",
    view=True,
    samples=(Sample(((2, 3, 4),), {"dim0": 0, "dim1": 2}),),
)
PERMUTE = declare(
    "permute",
    "PermuteBackward0",
    ("self",),
    lambda xp, a, dims: xp.transpose(a, dims),
    lambda ctx, g: ctx.math.permute(g, dims=_inv_perm(ctx.params["dims"])),
    dtype="same",
    view=True,
    samples=(Sample(((2, 3, 4),), {"dims": (2, 0, 1)}),),
)


def _view_fwd(xp: Any, a: Any, size: tuple[int, ...]) -> Any:
    try:
        v = a.view()
        v.shape = size
        return v
    except AttributeError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None


def _reshape_back(ctx: Any, g: Any) -> Any:
    return ctx.math.reshape_copy(g, size=tuple(ctx.shapes[0]))


VIEW = declare(
    "view",
    "ViewBackward0",
    ("self",),
    _view_fwd,
    _reshape_back,
    dtype="same",
    view=True,
    samples=(Sample(((2, 3),), {"size": (3, 2)}),),
)
UNSAFE_VIEW = declare(
    "_unsafe_view",
    "UnsafeViewBackward0",
    ("self",),
    lambda xp, a, size: a.reshape(size),
    _reshape_back,
    dtype="same",
    samples=(Sample(((2, 3),), {"size": (6,)}),),
)
declare(
    "reshape_copy",
    "ReshapeCopyBackward0",
    ("self",),
    lambda xp, a, size: a.reshape(size),
    _reshape_back,
    dtype="same",
)
SQUEEZE0 = declare(
    "squeeze",
    "SqueezeBackward0",
    ("self",),
    lambda xp, a: a.reshape([s for s in a.shape if s != 1]),
    _reshape_back,
    dtype="same",
    view=True,
    samples=(Sample(((2, 1, 3),)),),
)
SQUEEZE1 = declare(
    "squeeze_dim",
    "SqueezeBackward1",
    ("self",),
    lambda xp, a, dim: (
        a.reshape(a.shape[:dim] + a.shape[dim + 1 :]) if a.ndim and a.shape[dim] == 1 else a.view()
    ),
    _reshape_back,
    dtype="same",
    view=True,
    samples=(Sample(((2, 1, 3),), {"dim": 1}),),
)
SQUEEZE2 = declare(
    "squeeze_dims",
    "SqueezeBackward2",
    ("self",),
    lambda xp, a, dims: a.reshape([s for i, s in enumerate(a.shape) if not (i in dims and s == 1)]),
    _reshape_back,
    dtype="same",
    view=True,
    samples=(Sample(((1, 2, 1, 3),), {"dims": (0, 2)}),),
)
SQUEEZE4 = declare(
    "squeeze_",
    "SqueezeBackward4",
    ("self",),
    lambda xp, a, dim: a.reshape(a.shape[:dim] + a.shape[dim + 1 :]) if a.shape[dim] == 1 else a,
    _reshape_back,
    dtype="same",
)
RESHAPE_ALIAS = declare(
    "_reshape_alias",
    "ReshapeAliasBackward0",
    ("self",),
    _view_fwd,
    _reshape_back,
    dtype="same",
    view=True,
)
UNSQUEEZE = declare(
    "unsqueeze",
    "UnsqueezeBackward0",
    ("self",),
    lambda xp, a, dim: xp.expand_dims(a, dim),
    lambda ctx, g: ctx.math.squeeze_dim(g, dim=ctx.params["dim"]),
    dtype="same",
    view=True,
    samples=(Sample(((2, 3),), {"dim": 1}),),
)


def _expand(xp: Any, a: Any, size: tuple[int, ...]) -> Any:
    """``xp.broadcast_to(a, size)``: a read-only view with stride 0 along every dim that
    is new or of size 1 in ``a``.  A C-contiguous NumPy array of a built-in dtype gets
    that view straight from ``np.ndarray`` over its memory (a tenth of the cost: NumPy's
    ``broadcast_to`` sets up an ``nditer``, a sum's backward pays it on every call); any
    other array, an empty result, or sizes that do not broadcast, go through
    ``broadcast_to`` itself."""
    if type(a) is not np.ndarray or not a.flags.c_contiguous or not a.dtype.isbuiltin:
        return xp.broadcast_to(a, size)
    lead = len(size) - a.ndim
    if lead < 0:
        return xp.broadcast_to(a, size)
    strides = [0] * lead
    shape, have_strides = a.shape, a.strides
    for i in range(a.ndim):  # (by index: a zip costs more than this loop)
        n, have, stride = size[lead + i], shape[i], have_strides[i]
        if have == 1 and n > 0:
            strides.append(0)  # as NumPy gives a dim of size 1, kept or broadcast
        elif have == n and n > 0:
            strides.append(stride)
        else:
            return xp.broadcast_to(a, size)  # an empty result, or its error
    view = np.ndarray(size, a.dtype, a, 0, strides)
    view.flags.writeable = False
    return view


EXPAND = declare(
    "expand",
    "ExpandBackward0",
    ("self",),
    _expand,
    lambda ctx, g: g,
    dtype="same",
    view=True,
    samples=(Sample(((3, 1),), {"size": (3, 4)}), Sample(((3,),), {"size": (2, 3)})),
)
CLONE = declare(
    "clone",
    "CloneBackward0",
    ("self",),
    lambda xp, a: a.copy(),
    lambda ctx, g: g,
    dtype="same",
    samples=(Sample(((2, 3),)),),
    formula={"self": "1"},
)
ALIAS = declare(
    "alias",
    "AliasBackward0",
    ("self",),
    lambda xp, a: a.view(),
    lambda ctx, g: g,
    dtype="same",
    view=True,
)


def _cat_fwd(xp: Any, *arrays: Any, dim: int) -> Any:
    """``xp.concatenate``, its result contiguous as ATen's is (NumPy follows the inputs'
    layout, so transposed inputs would give a transposed result and other strides)."""
    kept = [a for a in arrays if not _legacy_empty(a.shape)]
    if not kept:
        kept = list(arrays)
    out = xp.concatenate(kept, axis=dim) if len(kept) > 1 else kept[0].copy()
    if out.dtype != arrays[0].dtype:
        out = out.astype(arrays[0].dtype)
    return out if out.flags.c_contiguous else out.copy()  # copy() is C order


def _legacy_empty(shape: tuple[int, ...]) -> bool:
    """A 1-D empty tensor, which ``cat`` skips whatever the others' shapes (ATen keeps this
    legacy rule, so ``torch.cat((torch.FloatTensor(), t), 0)`` grows a list from nothing)."""
    return tuple(shape) == (0,)


def _split_grad(ctx: Any, g: Any) -> tuple[Any, ...]:
    dim = ctx.params["dim"]
    out, start = [], 0
    stacked = ctx.params.get("stack", False)
    skips = not all(_legacy_empty(shape) for shape in ctx.shapes)
    for shape in ctx.shapes:
        if skips and not stacked and _legacy_empty(shape):
            out.append(g.reshape(-1)[:0])
            continue
        if stacked:
            out.append(g[(slice(None),) * dim + (start,)])
            start += 1
        else:
            n = shape[dim]
            out.append(g[(slice(None),) * dim + (slice(start, start + n),)])
            start += n
    return tuple(out)


CAT = declare(
    "cat",
    "CatBackward0",
    ("tensors",),
    _cat_fwd,
    _split_grad,
    tensor_list=True,
    samples=(Sample(((2, 3), (4, 3)), {"dim": 0}),),
)


def _stack(xp: Any, arrays: tuple[Any, ...], dim: int) -> Any:
    """``xp.stack``; along the first dimension as one concatenation, which NumPy does
    without its per-array Python steps (3x faster for 5,000 small tensors)."""
    if dim == 0 and xp is np and arrays and arrays[0].ndim:
        return np.concatenate(arrays).reshape((len(arrays), *arrays[0].shape))
    return xp.stack(arrays, axis=dim)


STACK = declare(
    "stack",
    "StackBackward0",
    ("tensors",),
    lambda xp, *arrays, dim, stack=True: _stack(xp, arrays, dim),
    _split_grad,
    tensor_list=True,
    samples=(Sample(((2, 3), (2, 3)), {"dim": 1, "stack": True}),),
)


# -- public functions -----------------------------------------------------------
@public("t", ("input",), category="shape", doc="transpose a 2-D tensor")
def t(input: Any) -> Any:  # noqa: A002
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return apply_op(T_OP, (input,))


@public(
    "transpose",
    ("input",),
    (Param("dim0", "dim", 0), Param("dim1", "dim", 1)),
    category="shape",
    doc="swap two dimensions",
)
def transpose(input: Any, dim0: int, dim1: int) -> Any:  # noqa: A002
    n = input.ndim
    return apply_op(TRANSPOSE, (input,), {"dim0": _wrap(dim0, n), "dim1": _wrap(dim1, n)})


@public(
    "permute",
    ("input",),
    (Param("dims", "shape"),),
    category="shape",
    doc="reorder dimensions",
    example=Example(params={"dims": [1, 0]}),
)
def permute(input: Any, *dims: Any) -> Any:  # noqa: A002
    if len(dims) == 1 and not isinstance(dims[0], int):
        dims = tuple(dims[0])
    if len(dims) != input.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = "
            f"{input.ndim} is not equal to len(dims) = {len(dims)}"
        )
    return apply_op(PERMUTE, (input,), {"dims": tuple(_wrap(d, input.ndim) for d in dims)})


@public(
    "movedim",
    ("input",),
    (Param("source", "shape"), Param("destination", "shape")),
    category="shape",
    doc="move dimensions to new positions, the others keeping their order",
    example=Example(params={"source": [0], "destination": [1]}),
)
def movedim(input: Any, source: Any, destination: Any) -> Any:  # noqa: A002
    """A ``permute`` (so ``PermuteBackward0``), with ATen's checks in its order."""
    src = list(int_tuple(source))
    dst = list(int_tuple(destination))
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
            f"the same number of dims as destination ({dst} dims)"
        )
    n = input.ndim
    src = [_wrap(d, n) for d in src]
    dst = [_wrap(d, n) for d in dst]
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    order = [-1] * n
    for s_, d_ in zip(src, dst):
        order[d_] = s_
    rest = iter(d for d in range(n) if d not in src)
    return permute(input, tuple(d if d >= 0 else next(rest) for d in order))


def _infer_size(size: Any, numel: int) -> tuple[int, ...]:
    if len(size) == 1 and not is_int(size[0]):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
    inferred = False
    for i, s in enumerate(size):  # ATen's ``infer_size``: each dim in order
        if s == -1:
            if inferred:
                raise RuntimeError("only one dimension can be inferred")
            inferred = True
        elif s < 0:
            raise RuntimeError(
                f"invalid shape dimension {s} at index {i} of shape {fmt_shape(size)}"
            )
    known = math.prod(s for s in size if s != -1)
    if -1 in size:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{fmt_shape(size)}' is invalid for input of size {numel}")
        size = tuple(numel // known if s == -1 else s for s in size)
    elif known != numel:
        raise RuntimeError(f"shape '{fmt_shape(size)}' is invalid for input of size {numel}")
    return size


@public(
    "view",
    ("input",),
    (Param("size", "shape"),),
    category="shape",
    namespace="torch.Tensor",
    doc="same data with a new shape; fails where a copy would be needed",
)
def view(input: Any, *size: Any) -> Any:  # noqa: A002

    if (
        len(size) == 1
        and not is_int(size[0])
        and not isinstance(size[0], tuple | list)
        and not hasattr(size[0], "__len__")
    ):
        return input.to(as_dtype(size[0]))
    return apply_op(VIEW, (input,), {"size": _infer_size(size, input.numel())})


def _viewable(a: Any, size: tuple[int, ...]) -> bool:
    if a.flags.c_contiguous:
        return True
    try:
        v = a.view()
        v.shape = size
        return True
    except AttributeError:
        return False


@public(
    "reshape",
    ("input",),
    (Param("shape", "shape"),),
    category="shape",
    doc="same data with a new shape (a view when possible)",
)
def reshape(input: Any, *shape: Any) -> Any:  # noqa: A002
    size = _infer_size(shape, input.numel())
    if input._data.flags.c_contiguous:
        return apply_op(VIEW, (input,), {"size": size})
    if _viewable(input._data, size):
        return apply_op(RESHAPE_ALIAS, (input,), {"size": size})
    return unsafe_view(clone(input), size)


def squeeze_inplace(input: Any, dim: int) -> Any:  # noqa: A002
    """ATen's ``squeeze_(dim)`` on a fresh result: same tensor, version bumped."""
    out = apply_op(SQUEEZE4, (input,), {"dim": _wrap(dim, input.ndim)})
    out._counter()[0] += 1
    return out


def unsafe_view(input: Any, size: tuple[int, ...]) -> Any:  # noqa: A002
    return apply_op(UNSAFE_VIEW, (input,), {"size": _infer_size(size, input.numel())})


@public(
    "flatten",
    ("input",),
    (Param("start_dim", "dim"), Param("end_dim", "dim")),
    category="shape",
    doc="flatten a range of dimensions into one",
)
def flatten(input: Any, start_dim: int = 0, end_dim: int = -1) -> Any:  # noqa: A002
    if input.ndim == 0:
        return reshape(input, (1,))
    s, e = _wrap(start_dim, input.ndim), _wrap(end_dim, input.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shp = tuple(input.shape)
    return reshape(input, (*shp[:s], math.prod(shp[s : e + 1]), *shp[e + 1 :]))


@public(
    "squeeze",
    ("input",),
    (Param("dim", "dims"),),
    category="shape",
    doc="remove dimensions of size 1",
)
def squeeze(input: Any, dim: Any = None) -> Any:  # noqa: A002
    if dim is None:
        return apply_op(SQUEEZE0, (input,))
    if is_int(dim):
        d = _wrap(dim, input.ndim) if input.ndim else 0
        return apply_op(SQUEEZE1, (input,), {"dim": d})
    return apply_op(SQUEEZE2, (input,), {"dims": tuple(_wrap(d, input.ndim) for d in dim)})


@public(
    "unsqueeze",
    ("input",),
    (Param("dim", "dim"),),
    category="shape",
    doc="insert a dimension of size 1",
)
def unsqueeze(input: Any, dim: int) -> Any:  # noqa: A002
    return apply_op(UNSQUEEZE, (input,), {"dim": _wrap(dim, input.ndim + 1)})


def expanded_size(shp: tuple[int, ...], size: tuple[int, ...]) -> tuple[int, ...]:
    """``shp`` broadcast to ``size`` (``-1`` keeps a size), or ATen's ``expand`` error:
    what ``expand`` and every op that expands an operand first (``addmm``'s bias) say."""
    if len(size) < len(shp):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{fmt_shape(shp)}}}, "
            f"size={fmt_shape(size)}): "
            "the number of sizes provided "
            f"({len(size)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(shp)})"
        )
    lead = len(size) - len(shp)
    full = []
    for i, s in enumerate(size):
        if s == -1:
            if i < lead:
                raise RuntimeError(
                    "The expanded size of the tensor (-1) isn't allowed in a leading, "
                    "non-existing dimension 0"
                )
            s = shp[i - lead]
        elif i >= lead and shp[i - lead] not in (1, s):
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size "
                f"({shp[i - lead]}) at non-singleton dimension {i}.  Target sizes: "
                f"{fmt_shape(size)}.  Tensor sizes: {fmt_shape(shp)}"
            )
        full.append(s)
    return tuple(full)


@public(
    "expand",
    ("input",),
    (Param("size", "shape"),),
    category="shape",
    doc="broadcast to a larger shape without copying",
    namespace="torch.Tensor",
)
def expand(input: Any, *size: Any) -> Any:  # noqa: A002
    if len(size) == 1 and not is_int(size[0]):
        size = tuple(size[0])
    full = expanded_size(tuple(input.shape), tuple(size))
    return apply_op(EXPAND, (input,), {"size": full})


@public("clone", ("input",), category="shape", doc="a copy that stays in the graph")
def clone(input: Any) -> Any:  # noqa: A002
    return apply_op(CLONE, (input,))


@public(
    "contiguous",
    ("input",),
    category="shape",
    namespace="torch.Tensor",
    doc="the tensor itself if contiguous, else a contiguous copy",
)
def contiguous(input: Any) -> Any:  # noqa: A002
    return input if input._data.flags.c_contiguous else clone(input)


def alias(input: Any) -> Any:  # noqa: A002
    return apply_op(ALIAS, (input,))


def _check_cat(tensors: Any, name: str) -> list[Any]:
    tensors = list(tensors)
    if not tensors:
        if name == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"{name}(): expected a non-empty list of Tensors")
    return tensors


@public(
    "cat",
    (Port("tensors", variadic=True),),
    (Param("dim", "dim"),),
    category="shape",
    doc="concatenate along an existing dimension",
    method=False,
    aliases=("concat", "concatenate"),
)
def cat(tensors: Any, dim: int = 0) -> Any:
    ts = _check_cat(tensors, "torch.cat")
    shaped = [(i, x) for i, x in enumerate(ts) if not _legacy_empty(x.shape)] or [(0, ts[0])]
    d = _wrap(dim, shaped[0][1].ndim)
    ref = shaped[0][1].shape
    for i, x in shaped[1:]:
        if x.ndim != len(ref):
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {len(ref)} and {x.ndim}"
            )
        for j, (a, b) in enumerate(zip(ref, x.shape, strict=True)):
            if j != d and a != b:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {a} but "
                    f"got size {b} for tensor number {i} in the list."
                )
    return apply_op(CAT, tuple(ts), {"dim": d})


@public(
    "stack",
    (Port("tensors", variadic=True),),
    (Param("dim", "dim"),),
    category="shape",
    doc="join along a new dimension",
    method=False,
)
def stack(tensors: Any, dim: int = 0) -> Any:
    ts = _check_cat(tensors, "stack")
    ref = tuple(ts[0].shape)
    for i, x in enumerate(ts[1:], 1):
        if (x._data.shape if type(x) is Tensor else tuple(x.shape)) != ref:
            raise RuntimeError(
                "stack expects each tensor to be equal size, but got "
                f"{fmt_shape(ts[0].shape)} "
                f"at entry 0 and {fmt_shape(x.shape)} at entry {i}"
            )
    return apply_op(STACK, tuple(ts), {"dim": _wrap(dim, ts[0].ndim + 1), "stack": True})


__all__ = ["np"]


def _unfold(xp: Any, a: Any, dimension: int, size: int, step: int) -> Any:
    """``a.unfold(dimension, size, step)``: every ``size``-long window along
    ``dimension``, ``step`` apart, as a new last dimension; a view that can be written
    through, as ATen's (NumPy's ``sliding_window_view`` is read-only)."""
    if a.ndim == 0:
        return a.reshape(1)
    n = (a.shape[dimension] - size) // step + 1
    shape = (*a.shape[:dimension], n, *a.shape[dimension + 1 :], size)
    strides = list(a.strides)
    strides[dimension] *= step
    stride_tricks = xp.lib.stride_tricks
    return stride_tricks.as_strided(a, shape, (*strides, a.strides[dimension]))


def _unfold_backward(
    xp: Any, g: Any, input_sizes: tuple[int, ...], dim: int, size: int, step: int
) -> Any:
    """``unfold_backward``: each window's gradient added back where the window lay."""
    out = xp.zeros(input_sizes, dtype=g.dtype)
    if not input_sizes:
        return g.reshape(())
    windows = xp.moveaxis(g, -1, dim + 1)  # (..., n, size, ...): window i's values at dim+1
    for i in range(g.shape[dim]):
        where = [slice(None)] * len(input_sizes)
        where[dim] = slice(i * step, i * step + size)
        out[tuple(where)] += windows.take(i, axis=dim)
    return out


UNFOLD = declare(
    "unfold",
    "UnfoldBackward0",
    ("self",),
    _unfold,
    lambda ctx, g: ctx.math.unfold_backward(
        g,
        input_sizes=tuple(ctx.shapes[0]),
        dim=ctx.params["dimension"],
        size=ctx.params["size"],
        step=ctx.params["step"],
    ),
    dtype="same",
    view=True,
    samples=(
        Sample(((7,),), {"dimension": 0, "size": 3, "step": 2}),
        Sample(((2, 5, 3),), {"dimension": 1, "size": 2, "step": 1}),
    ),
)
declare(
    "unfold_backward",
    "UnfoldBackwardBackward0",
    ("grad_in",),
    _unfold_backward,
    lambda ctx, gg: ctx.math.unfold(
        gg, dimension=ctx.params["dim"], size=ctx.params["size"], step=ctx.params["step"]
    ),
    dtype="same",
    samples=(Sample(((3, 3),), {"input_sizes": (7,), "dim": 0, "size": 3, "step": 2}),),
)


@public(
    "unfold",
    ("input",),
    (Param("dimension", "dim", 0), Param("size", "int", 2), Param("step", "int", 1)),
    category="shape",
    namespace="torch.Tensor",
    doc="windows of size elements along a dimension, step apart, as a new last dimension",
)
def unfold(input: Any, dimension: int, size: int, step: int) -> Any:  # noqa: A002
    """``Tensor.unfold`` (a method only, as in PyTorch)."""
    d = _wrap(dimension, max(input.ndim, 1))
    length = input.shape[d] if input.ndim else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {length} but size is {size}"
        )
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return apply_op(UNFOLD, (input,), {"dimension": d, "size": size, "step": step})
