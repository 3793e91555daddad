"""Matrix products: mm, mv, dot, bmm, addmm, and ``matmul`` composed from them.

``matmul`` is written the way ATen composes it, so the ``grad_fn`` a learner
sees (``MmBackward0``, ``UnsafeViewBackward0``, ``SqueezeBackward4`` ...) is
the one PyTorch would show.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.catalog import Example, Param, Port, public
from engine.ops import shape as sh
from engine.ops.core import Sample, _broadcast_error, apply_op, declare
from engine.ops.shape import expanded_size


def _t(m: Any, x: Any) -> Any:
    return m.transpose(x, dim0=-1, dim1=-2)


def _check_mm(xp: Any, a: Any, b: Any, cm1: bool = False, cm2: bool = False) -> Any:
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
            f"{b.shape[0]}x{b.shape[1]})"
        )
    return xp.matmul(a, b)


def _col_major(x: Any) -> bool:
    """Column-major (a transposed matrix): ATen computes its gradient in that layout."""
    flags = getattr(x, "_data", x).flags
    return bool(flags.f_contiguous and not flags.c_contiguous)


#: The layouts ``_layout`` records, one shared dict each (a node's params are never
#: changed after it is made): ``F.linear`` records the second on every call.
_LAYOUT_PARAMS = {
    (True, False): {"cm1": True, "cm2": False},
    (False, True): {"cm1": False, "cm2": True},
    (True, True): {"cm1": True, "cm2": True},
}


def _layout(a: Any, b: Any) -> dict[str, bool] | None:
    """Which operands are column-major, recorded at forward time (None: neither)."""
    ca, cb = _col_major(a), _col_major(b)
    return _LAYOUT_PARAMS[(ca, cb)] if ca or cb else None


def _mm_self_grad(ctx: Any, g: Any, mat2: Any) -> Any:
    """``mm_mat1_backward``: matrices are transposed with ``t()`` (``TBackward0``)."""
    t = ctx.math.t
    if ctx.params.get("cm1"):
        return t(ctx.math.mm(mat2, t(g)))
    return ctx.math.mm(g, t(mat2))


def _mm_mat2_grad(ctx: Any, g: Any, mat1: Any) -> Any:
    t = ctx.math.t
    if ctx.params.get("cm2"):
        return t(ctx.math.mm(t(g), mat1))
    return ctx.math.mm(t(mat1), g)


MM = declare(
    "mm",
    "MmBackward0",
    ("self", "mat2"),
    _check_mm,
    lambda ctx, g: (
        _mm_self_grad(ctx, g, ctx.saved["mat2"]) if ctx.needs[0] else None,
        _mm_mat2_grad(ctx, g, ctx.saved["self"]) if ctx.needs[1] else None,
    ),
    save={"self": ("mat2",), "mat2": ("self",)},
    samples=(Sample(((2, 3), (3, 4))),),
    formula={"self": "grad @ mat2.T", "mat2": "self.T @ grad"},
)


def _check_mv(xp: Any, a: Any, v: Any) -> Any:
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {v.ndim}, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
            f"vec ({v.shape[0]})"
        )
    return xp.matmul(a, v)


MV = declare(
    "mv",
    "MvBackward0",
    ("self", "vec"),
    _check_mv,
    lambda ctx, g: (
        ctx.math.view(g, size=(g.shape[0], 1)) * ctx.saved["vec"]
        if ctx.needs[0]
        else None,  # grad.outer(vec)
        ctx.math.mv(ctx.math.t(ctx.saved["self"]), g) if ctx.needs[1] else None,
    ),
    save={"self": ("vec",), "vec": ("self",)},
    samples=(Sample(((2, 3), (3,))),),
)


def _check_dot(xp: Any, a: Any, b: Any) -> Any:
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
            "have the same number "
            f"of elements, but got {a.shape[0]} and {b.shape[0]} elements respectively"
        )
    return xp.dot(a, b)


DOT = declare(
    "dot",
    "DotBackward0",
    ("self", "tensor"),
    _check_dot,
    lambda ctx, g: (
        g * ctx.saved["tensor"] if ctx.needs[0] else None,
        g * ctx.saved["self"] if ctx.needs[1] else None,
    ),
    save={"self": ("tensor",), "tensor": ("self",)},
    samples=(Sample(((3,), (3,))),),
)
BMM = declare(
    "bmm",
    "BmmBackward0",
    ("self", "mat2"),
    lambda xp, a, b: xp.matmul(a, b),
    lambda ctx, g: (
        ctx.math.bmm(g, _t(ctx.math, ctx.saved["mat2"])) if ctx.needs[0] else None,
        ctx.math.bmm(_t(ctx.math, ctx.saved["self"]), g) if ctx.needs[1] else None,
    ),
    save={"self": ("mat2",), "mat2": ("self",)},
    samples=(Sample(((2, 2, 3), (2, 3, 4))),),
)


def _addmm_fwd(
    xp: Any,
    bias: Any,
    a: Any,
    b: Any,
    beta: Any = 1,
    alpha: Any = 1,
    cm1: bool = False,
    cm2: bool = False,
) -> Any:
    if cm2 and alpha == 1 and beta == 1 and xp is np and not cm1 and a.ndim == 2:
        fused = _linear_nt(a, b, bias)
        if fused is not None:
            return fused
    out = _check_mm(xp, a, b)
    if alpha != 1:
        out = out * alpha
    return out + bias if beta == 1 else out + beta * bias


def _linear_nt(a: np.ndarray, b: np.ndarray, bias: np.ndarray) -> np.ndarray | None:
    """``a @ w.t() + bias`` (``F.linear``): NumPy's product, with the bias added in place
    into it (no second array).  The product is always ``a @ b`` as given: another
    orientation (``(w @ a.T).T``), faster on some hosts, gives other float32 bits, so
    the result would depend on the host's tuning."""
    if (
        type(b) is not np.ndarray
        or a.dtype is not b.dtype
        or a.dtype.kind != "f"
        or not a.flags.c_contiguous
        or b.ndim != 2
        or a.shape[1] != b.shape[0]
        or bias.dtype is not a.dtype
        or bias.shape not in ((b.shape[1],), (1, b.shape[1]), (a.shape[0], b.shape[1]))
    ):
        return None
    out = np.matmul(a, b)
    return np.add(out, bias, out=out)


ADDMM = declare(
    "addmm",
    "AddmmBackward0",
    ("self", "mat1", "mat2"),
    _addmm_fwd,
    lambda ctx, g: (
        (g if ctx.params.get("beta", 1) == 1 else g * ctx.params["beta"]) if ctx.needs[0] else None,
        _scale(_mm_self_grad(ctx, g, ctx.saved["mat2"]), ctx.params.get("alpha", 1))
        if ctx.needs[1]
        else None,
        _scale(_mm_mat2_grad(ctx, g, ctx.saved["mat1"]), ctx.params.get("alpha", 1))
        if ctx.needs[2]
        else None,
    ),
    save={"mat1": ("mat2",), "mat2": ("mat1",)},
    samples=(Sample(((4,), (2, 3), (3, 4))), Sample(((2, 4), (2, 3), (3, 4)))),
    formula={"self": "beta", "mat1": "alpha * (grad @ mat2.T)", "mat2": "alpha * (mat1.T @ grad)"},
)


def _scale(x: Any, a: Any) -> Any:
    return x if a == 1 else x * a


@public(
    "mm",
    ("input", "mat2"),
    category="linear algebra",
    doc="matrix product of two 2-D tensors",
    example=Example(inputs={"mat2": (3, 2)}),
)
def mm(input: Any, mat2: Any) -> Any:  # noqa: A002
    if input.dtype is not mat2.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{input.dtype.cpp_name} != {mat2.dtype.cpp_name}"
        )
    return apply_op(MM, (input, mat2), _layout(input._data, mat2._data))


@public(
    "mv",
    ("input", "vec"),
    category="linear algebra",
    doc="matrix-vector product",
    example=Example(inputs={"vec": (3,)}),
)
def mv(input: Any, vec: Any) -> Any:  # noqa: A002
    if input.dtype is not vec.dtype:
        v, m = vec.dtype.scalar_name, input.dtype.scalar_name
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {v}, {m}, and {v}"
        )
    return apply_op(MV, (input, vec))


@public(
    "dot",
    ("input", "tensor"),
    category="linear algebra",
    doc="dot product of 1-D tensors",
    example=Example(inputs={"input": (3,), "tensor": (3,)}),
)
def dot(input: Any, tensor: Any) -> Any:  # noqa: A002
    if input.dtype is not tensor.dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{input.dtype.scalar_name} and {tensor.dtype.scalar_name}"
        )
    return apply_op(DOT, (input, tensor))


@public(
    "bmm",
    ("input", "mat2"),
    category="linear algebra",
    doc="batched matrix product (3-D)",
    example=Example(inputs={"input": (2, 2, 3), "mat2": (2, 3, 2)}),
)
def bmm(input: Any, mat2: Any) -> Any:  # noqa: A002
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if input.dtype is not mat2.dtype:
        raise RuntimeError(
            f"expected scalar type {input.dtype.scalar_name} but found {mat2.dtype.scalar_name}"
        )
    b, _, k = input.shape
    if tuple(mat2.shape[:2]) != (b, k):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but "
            f"got: [{mat2.shape[0]}, {mat2.shape[1]}]."
        )
    return apply_op(BMM, (input, mat2))


@public(
    "addmm",
    (Port("input"), "mat1", "mat2"),
    (Param("beta", "number"), Param("alpha", "number")),
    category="linear algebra",
    doc="beta * input + alpha * (mat1 @ mat2)",
    example=Example(inputs={"input": (2, 2), "mat1": (2, 3), "mat2": (3, 2)}),
)
def addmm(input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:  # noqa: A002
    # (the arrays' own shapes and dtypes: this runs for every F.linear)
    d1, d2 = mat1._data, mat2._data
    dt = d2.dtype
    for name, t in (("self", input), ("mat1", mat1)):  # ATen's order: self, then mat1
        if t._data.dtype != dt:
            raise RuntimeError(
                f"{name} and mat2 must have the same dtype, but got "
                f"{t.dtype.scalar_name} and {mat2.dtype.scalar_name}"
            )
    s1, s2 = d1.shape, d2.shape
    if len(s1) == 2 and len(s2) == 2 and s1[1] == s2[0]:
        target = (s1[0], s2[1])
        bias = input._data.shape
        if bias != target and bias != target[1:]:
            expanded_size(bias, target)
    layout = _layout(d1, d2)
    if beta == 1 and alpha == 1:
        return apply_op(ADDMM, (input, mat1, mat2), layout)
    params = {"beta": beta, "alpha": alpha}
    params.update(layout or {})  # (a new dict: the shared layouts stay as they are)
    return apply_op(ADDMM, (input, mat1, mat2), params)


@public(
    "matmul",
    ("input", "other"),
    category="linear algebra",
    doc="matrix product with broadcasting",
    example=Example(inputs={"other": (3, 2)}),
)
def matmul(input: Any, other: Any) -> Any:  # noqa: A002
    """ATen's ``matmul`` decomposition, so every intermediate ``grad_fn`` matches."""

    a, b = input, other
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        return dot(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 1 and db == 2:
        return sh.squeeze_inplace(mm(sh.unsqueeze(a, 0), b), 0)
    if da == 2 and db == 2:
        return mm(a, b)
    # Two 3-D operands of different batch sizes: the one of batch 1 that requires grad
    # is squeezed to a matrix first (ATen's ``_matmul_impl``, so its gradient is no
    # expanded copy).
    if da == 3 and db == 3 and a.shape[0] != b.shape[0]:
        if a.shape[0] == 1 and a.requires_grad:
            return matmul(sh.squeeze(a, 0), b)
        if b.shape[0] == 1 and b.requires_grad:
            return matmul(a, sh.squeeze(b, 0))
    if da >= 3 and db <= 2:
        return _folded(a, b)
    if db >= 3 and da <= 2:
        # ATen folds (b^T @ a^T) and transposes back: ``.mT.contiguous()``.
        bt = sh.transpose(b, -1, -2)
        at = sh.t(a) if da == 2 else a
        out = _folded(bt, at)
        return out if da == 1 else sh.contiguous(sh.transpose(out, -1, -2))
    return _batched(a, b)


def _folded(a: Any, b: Any) -> Any:
    """``a`` (>= 3-D) times a matrix or vector: fold the batch into rows, one mm/mv."""

    lead = tuple(a.shape[:-1])
    folded = sh.reshape(a, (-1, a.shape[-1]))
    out = mv(folded, b) if b.ndim == 1 else mm(folded, b)
    return sh.unsafe_view(out, lead if b.ndim == 1 else (*lead, b.shape[-1]))


def _batched(a: Any, b: Any) -> Any:
    """Broadcast the batch dims, expand, reshape to 3-D, bmm, unsafe view back."""

    n, k, p = a.shape[-2], a.shape[-1], b.shape[-1]
    batch_a, batch_b = tuple(a.shape[:-2]), tuple(b.shape[:-2])
    if b.shape[-2] != k:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{math.prod(batch_b)}, {k}] but got: [{math.prod(batch_b)}, {b.shape[-2]}]."
        )
    try:
        batch = tuple(np.broadcast_shapes(batch_a, batch_b))
    except ValueError:
        views = [np.broadcast_to(np.empty(()), s) for s in (batch_a, batch_b)]
        raise _broadcast_error(views) from None
    bsz = math.prod(batch)
    ra = sh.reshape(sh.expand(a, (*batch, n, k)), (bsz, n, k))
    rb = sh.reshape(sh.expand(b, (*batch, k, p)), (bsz, k, p))
    return sh.unsafe_view(bmm(ra, rb), (*batch, n, p))
