"""``torch.einsum``, decomposed exactly as ATen decomposes it.

PyTorch has no einsum node: ``einsum`` takes diagonals for repeated labels
(``DiagonalBackward0``), permutes and unsqueezes every operand into one label
order, sums labels that only one operand still has, and contracts pairs left to
right with ``sumproduct_pair`` (``bmm`` between ``permute`` and ``reshape``, or
``mul`` when nothing is summed).  Running the same ops in the same order gives
PyTorch's graph (``ViewBackward0 -> PermuteBackward0 -> ViewBackward0 ->
BmmBackward0`` for ``ij,jk->ik``, ``SumBackward1`` for ``ij->j``) and values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine import dtypes
from engine.catalog import Example, Param, Port, public
from engine.ops import reduce as reductions
from engine.ops.core import Sample, apply_op, declare
from engine.ops.linalg import bmm
from engine.ops.pointwise import mul
from engine.ops.shape import permute, reshape, unsqueeze, view
from engine.tensor import _wrap_dim

_ELLIPSIS = 52


def _diagonal(xp: Any, a: Any, offset: int, dim1: int, dim2: int) -> Any:
    """``a.diagonal(offset, dim1, dim2)`` as a view that can be written through (NumPy's
    own is read-only; PyTorch's is an ordinary view)."""
    d = xp.diagonal(a, offset, dim1, dim2)
    if getattr(d.flags, "writeable", True):
        return d
    start = [slice(None)] * a.ndim
    start[dim2 if offset >= 0 else dim1] = slice(abs(offset), None)
    return np.lib.stride_tricks.as_strided(a[tuple(start)], d.shape, d.strides)


def _diagonal_backward(
    xp: Any, g: Any, shape: tuple[int, ...], offset: int, dim1: int, dim2: int
) -> Any:
    """Scatter ``g`` onto the diagonal of zeros, by index rather than through a diagonal
    view (CuPy's and NumPy's diagonals differ in whether they can be written)."""
    out = xp.zeros(shape, dtype=g.dtype)
    n = g.shape[-1]
    rows = xp.arange(n) + max(-offset, 0)
    cols = xp.arange(n) + max(offset, 0)
    xp.moveaxis(out, (dim1, dim2), (-2, -1))[..., rows, cols] = g
    return out


DIAGONAL = declare(
    "diagonal",
    "DiagonalBackward0",
    ("self",),
    _diagonal,
    lambda ctx, g: ctx.math.diagonal_backward(
        g,
        shape=tuple(ctx.shapes[0]),
        offset=ctx.params["offset"],
        dim1=ctx.params["dim1"],
        dim2=ctx.params["dim2"],
    ),
    dtype="same",
    view=True,
    samples=(
        Sample(((3, 3),), {"offset": 0, "dim1": 0, "dim2": 1}),
        Sample(((2, 3, 3),), {"offset": 0, "dim1": 1, "dim2": 2}),
        Sample(((3, 4),), {"offset": 1, "dim1": 0, "dim2": 1}),
    ),
)
declare(
    "diagonal_backward",
    "DiagonalBackwardBackward0",
    ("grad_output",),
    _diagonal_backward,
    lambda ctx, gg: ctx.math.diagonal(
        gg, offset=ctx.params["offset"], dim1=ctx.params["dim1"], dim2=ctx.params["dim2"]
    ),
    dtype="same",
    samples=(Sample(((3,),), {"shape": (3, 3), "offset": 0, "dim1": 0, "dim2": 1}),),
)


@public(
    "diagonal",
    ("input",),
    (Param("offset", "int"), Param("dim1", "dim"), Param("dim2", "dim")),
    category="shape",
    doc="a view of the diagonal of two dimensions",
    example=Example(inputs={"input": (3, 3)}),
)
def diagonal(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:  # noqa: A002

    d1, d2 = _wrap_dim(dim1, input.ndim), _wrap_dim(dim2, input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply_op(DIAGONAL, (input,), {"offset": offset, "dim1": d1, "dim2": d2})


TRACE = declare(
    "trace",
    "TraceBackward0",
    ("self",),
    lambda xp, a: xp.trace(a).astype(a.dtype if a.dtype.kind == "f" else "int64"),
    lambda ctx, g: ctx.math.diagonal_backward(
        ctx.math.expand(g, size=(min(ctx.shapes[0]),)),
        shape=tuple(ctx.shapes[0]),
        offset=0,
        dim1=0,
        dim2=1,
    ),
    dtype=lambda inputs, params: (
        inputs[0].dtype if inputs[0].dtype.is_floating_point else dtypes.int64
    ),
    samples=(Sample(((3, 3),)), Sample(((2, 4),))),
    grad_version=2,
)


@public(
    "trace",
    ("input",),
    category="reduction",
    doc="sum of the main diagonal of a matrix",
    example=Example(inputs={"input": (3, 3)}),
)
def trace(input: Any) -> Any:  # noqa: A002
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return apply_op(TRACE, (input,))


def _diag_embed(xp: Any, a: Any, offset: int = 0) -> Any:
    n = a.shape[0] + abs(offset)
    return _diagonal_backward(xp, a, (n, n), offset, 0, 1)


DIAG_EMBED = declare(
    "diag_embed",
    "DiagEmbedBackward0",
    ("self",),
    _diag_embed,
    lambda ctx, g: ctx.math.diagonal(g, offset=ctx.params["offset"], dim1=0, dim2=1),
    dtype="same",
    samples=(Sample(((3,),), {"offset": 0}), Sample(((2,),), {"offset": -1})),
)
DIAGONAL_COPY = declare(
    "diagonal_copy",
    "DiagonalBackward0_copy",
    ("self",),
    lambda xp, a, offset=0: _diagonal(xp, a, offset, 0, 1).copy(),
    lambda ctx, g: ctx.math.diagonal_backward(
        g, shape=tuple(ctx.shapes[0]), offset=ctx.params["offset"], dim1=0, dim2=1
    ),
    dtype="same",
    samples=(Sample(((3, 3),), {"offset": 0}), Sample(((2, 4),), {"offset": 1})),
)


@public(
    "diag",
    ("input",),
    (Param("diagonal", "int"),),
    category="shape",
    doc="a vector to a diagonal matrix, or a matrix's diagonal as a vector",
    example=Example(inputs={"input": (3,)}),
)
def diag(input: Any, diagonal: int = 0) -> Any:  # noqa: A002
    if input.ndim == 1:
        return apply_op(DIAG_EMBED, (input,), {"offset": diagonal})
    if input.ndim == 2:
        return apply_op(DIAGONAL_COPY, (input,), {"offset": diagonal})
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def _subscript(label: str) -> int:
    """ATen's order: ``A``-``Z`` first, then ``a``-``z``."""
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + 26


def _letter(s: int) -> str:
    return chr(s + ord("A")) if s < 26 else chr(s - 26 + ord("a"))


def _parse_inputs(lhs: str, count: int) -> list[list[int]]:
    labels: list[list[int]] = [[] for _ in range(count)]
    op, i, ellipsis = 0, 0, False
    while i < len(lhs):
        ch = lhs[i]
        if ch == " ":
            pass
        elif ch == ".":
            if ellipsis:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {op} for which an ellipsis was already found"
                )
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(
                    f"einsum(): found '.' for operand {op} that is not part of any ellipsis"
                )
            i += 2
            labels[op].append(_ELLIPSIS)
            ellipsis = True
        elif ch == ",":
            op += 1
            if op >= count:
                raise RuntimeError(
                    "einsum(): fewer operands were provided than specified in the equation"
                )
            ellipsis = False
        elif ch.isascii() and ch.isalpha():
            labels[op].append(_subscript(ch))
        else:
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {i} in the equation string, "
                "subscripts must be in [a-zA-Z]"
            )
        i += 1
    if op != count - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return labels


def _operands(operands: tuple[Any, ...]) -> tuple[Any, ...]:
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    return operands


@public(
    "einsum",
    (Port("operands", variadic=True),),
    (Param("equation", "str", "ij,jk->ik"),),
    category="linalg",
    doc="sum of products over the labels the equation names",
    method=False,
    example=Example(inputs={"operands": [(2, 3), (3, 4)]}),
)
def einsum(equation: str, *operands: Any) -> Any:
    """``einsum(equation, *operands)`` (or a list of operands), as ATen computes it."""
    ops_in = _operands(operands)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_inputs(lhs, len(ops_in))

    label_count = [0] * _ELLIPSIS
    ell_num_dim = 0
    for i, (x, labels) in enumerate(zip(ops_in, op_labels, strict=True)):
        nlabels = len(labels)
        has_ellipsis = _ELLIPSIS in labels
        for s in labels:
            if s == _ELLIPSIS:
                nlabels -= 1
                ell_num_dim = max(ell_num_dim, x.ndim - nlabels)
            else:
                label_count[s] += 1
        if (nlabels > x.ndim) if has_ellipsis else (nlabels != x.ndim):
            what = (
                ") is more than the number of dimensions ("
                if has_ellipsis
                else ") does not match the number of dimensions ("
            )
            tail = "" if has_ellipsis else " and no ellipsis was given"
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}{what}{x.ndim}) "
                f"for operand {i}{tail}"
            )

    perm_index_of = [-1] * _ELLIPSIS
    perm_index = 0
    ell_index = 0
    ell_in_output = False
    if arrow < 0:
        perm_index = ell_num_dim
        ell_in_output = True
        for s in range(_ELLIPSIS):
            if label_count[s] == 1:
                perm_index_of[s] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow + 2 :]
        i = 0
        while i < len(rhs):
            ch = rhs[i]
            if ch == " ":
                pass
            elif ch == ".":
                if ell_in_output:
                    raise RuntimeError(
                        "einsum(): found '.' for output but an ellipsis (...) was already found"
                    )
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError(
                        "einsum(): found '.' for output that is not part of any ellipsis (...)"
                    )
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            elif ch.isascii() and ch.isalpha():
                s = _subscript(ch)
                if not (label_count[s] > 0 and perm_index_of[s] == -1):
                    why = (
                        " appears more than once in the output"
                        if perm_index_of[s] > -1
                        else " does not appear in the equation for any input operand"
                    )
                    raise RuntimeError(f"einsum(): output subscript {ch}{why}")
                perm_index_of[s] = perm_index
                perm_index += 1
            else:
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                    "equation string, subscripts must be in [a-zA-Z]"
                )
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for s in range(_ELLIPSIS):
        if label_count[s] > 0 and perm_index_of[s] == -1:
            perm_index_of[s] = perm_index
            perm_index += 1

    label_size = [1] * _ELLIPSIS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops: list[Any] = []
    for i, (x, labels) in enumerate(zip(ops_in, op_labels, strict=True)):
        op = x
        permutation = [-1] * perm_index
        dim = 0
        for s in labels:
            if s == _ELLIPSIS:
                ndim = x.ndim - (len(labels) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = op.shape[dim]
                    if size != 1:
                        if ell_sizes[j] not in (1, size):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has "
                                f"size {size} which does not broadcast with previously seen "
                                f"ellipsis with size {ell_sizes[j]} for the respective dimension"
                            )
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_index_of[s]] == -1:
                size = op.shape[dim]
                if size != 1:
                    if label_size[s] not in (1, size):
                        raise RuntimeError(
                            f"einsum(): subscript {_letter(s)} has size {size} for operand {i} "
                            f"which does not broadcast with previously seen size {label_size[s]}"
                        )
                    label_size[s] = size
                    dim_counts[perm_index_of[s]] += 1
                permutation[perm_index_of[s]] = dim
                dim += 1
            else:  # a repeated label: take the diagonal, moved to the first one's place
                prev = permutation[perm_index_of[s]]
                if op.shape[dim] != op.shape[prev]:
                    raise RuntimeError(
                        f"einsum(): subscript {_letter(s)} is repeated for operand {i} but the "
                        f"sizes don't match, {op.shape[dim]} != {op.shape[prev]}"
                    )
                op = apply_op(DIAGONAL, (op,), {"offset": 0, "dim1": prev, "dim2": dim})
                order = list(range(op.ndim - 1))
                order.insert(prev, op.ndim - 1)
                op = permute(op, order)
        for k, val in enumerate(permutation):
            if val == -1:
                op = unsqueeze(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(permute(op, permutation))

    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims: list[int] = []
        a_dims: list[int] = []
        b_dims: list[int] = []
        for d in range(out_num_dim, perm_index):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.shape[d] != 1:
                    a_dims.append(d)
                    dim_counts[d] = 0
                elif b.shape[d] != 1:
                    b_dims.append(d)
                    dim_counts[d] = 0
        if a_dims:
            a = reductions.sum(a, a_dims, True)
        if b_dims:
            b = reductions.sum(b, b_dims, True)
        ops.insert(
            0, _sumproduct_pair(a, b, sum_dims, mul, bmm, permute, reshape, reductions.sum, view)
        )

    if perm_index - out_num_dim > 0:
        if len(ops_in) > 1:
            return view(ops[0], *ops[0].shape[:out_num_dim])
        return reductions.sum(ops[0], list(range(out_num_dim, perm_index)))
    return ops[0]


def _sumproduct_pair(
    left: Any,
    right: Any,
    sum_dims: list[int],
    mul: Any,
    bmm: Any,
    permute: Any,
    reshape: Any,
    sum: Any,
    view: Any,  # noqa: A002
) -> Any:
    """ATen's ``sumproduct_pair`` with ``keepdim=True``: ``(left * right).sum(sum_dims)``
    by permuting both into ``bmm`` operands."""
    if not sum_dims:
        return mul(left, right)
    ndim = left.ndim
    summed = set(sum_dims)
    lro: list[int] = []
    lo: list[int] = []
    ro: list[int] = []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in summed:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = sum(left, i, True)
            elif sr:
                right = sum(right, i, True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = (
        [left.shape[d] for d in lro]
        + [left.shape[d] for d in lo]
        + [1] * len(sum_dims)
        + [right.shape[d] for d in ro]
    )
    lperm = lro + lo + sum_dims + ro
    rperm = lro + sum_dims + ro + lo
    operm = [-1] * len(out_size)
    for i, d in enumerate(lro + lo + sum_dims + ro):
        operm[d] = i
    left = reshape(permute(left, lperm), (lro_size, lo_size, sum_size))
    right = reshape(permute(right, rperm), (lro_size, sum_size, ro_size))
    assert math.prod(out_size) == lro_size * lo_size * ro_size
    return permute(view(bmm(left, right), *out_size), operm)
