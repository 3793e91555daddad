"""Fused and structured products: ``addmv``, ``addr``, ``addbmm``, ``baddbmm`` (attention
code's scaled batch products), ``cross``/``linalg.cross``, ``kron``, ``dist``,
``diag_embed`` and ``rot90``.

The fused ops are one node each in PyTorch (``AddmvBackward0``...) with the
``derivatives.yaml`` formulas; ``kron`` is ATen's composition (a broadcast product
of two reshaped views, ``_unsafe_view`` back), so its chain is PyTorch's.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from engine.catalog import Example, Param, public
from engine.ops.core import Sample, apply_op, declare
from engine.ops.einsum import _diagonal
from engine.ops.host import on_host
from engine.ops.norms import _vector_norm_fwd, _vector_norm_grad
from engine.ops.shape import _wrap, unsafe_view

LINALG = "torch.linalg"

BETA, ALPHA = Param("beta", "number"), Param("alpha", "number")


def _scaled(ctx: Any, g: Any, k: Any) -> Any:
    """``maybe_multiply``: ``g`` itself when the scalar is 1."""
    return g if k == 1 else ctx.math.mul_scalar(g, other=k)


def _fused(xp: Any, bias: Any, product: Any, beta: Any, alpha: Any) -> Any:
    """``beta * self + alpha * product``; ``beta == 0`` ignores ``self`` (NaN included)."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    return product + bias if beta == 1 else product + beta * bias


def _outer(m: Any, a: Any, b: Any) -> Any:
    """``ger``, as ATen composes it: ``a.reshape(-1, 1) * b``."""
    return m.mul(m.unsqueeze(a, dim=1), b)


def _t(m: Any, x: Any) -> Any:
    return m.transpose(x, dim0=-1, dim1=-2) if x.ndim == 3 else m.t(x)


ADDMV = declare(
    "addmv",
    "AddmvBackward0",
    ("self", "mat", "vec"),
    lambda xp, a, mat, vec, beta=1, alpha=1: _fused(xp, a, mat @ vec, beta, alpha),
    lambda ctx, g: (
        _scaled(ctx, g, ctx.params.get("beta", 1)) if ctx.needs[0] else None,
        _scaled(ctx, _outer(ctx.math, g, ctx.saved["vec"]), ctx.params.get("alpha", 1))
        if ctx.needs[1]
        else None,
        _scaled(ctx, ctx.math.mv(ctx.math.t(ctx.saved["mat"]), g), ctx.params.get("alpha", 1))
        if ctx.needs[2]
        else None,
    ),
    save={"mat": ("vec",), "vec": ("mat",)},
    samples=(Sample(((2,), (2, 3), (3,))), Sample(((2,), (2, 3), (3,)), {"beta": 0.5, "alpha": 2})),
)
ADDR = declare(
    "addr",
    "AddrBackward0",
    ("self", "vec1", "vec2"),
    on_host(
        lambda xp, a, v1, v2, beta=1, alpha=1: _fused(xp, a, xp.multiply.outer(v1, v2), beta, alpha)
    ),
    lambda ctx, g: (
        _scaled(ctx, g, ctx.params.get("beta", 1)) if ctx.needs[0] else None,
        _scaled(ctx, ctx.math.mv(g, ctx.saved["vec2"]), ctx.params.get("alpha", 1))
        if ctx.needs[1]
        else None,
        _scaled(ctx, ctx.math.mv(ctx.math.t(g), ctx.saved["vec1"]), ctx.params.get("alpha", 1))
        if ctx.needs[2]
        else None,
    ),
    save={"vec1": ("vec2",), "vec2": ("vec1",)},
    samples=(Sample(((2, 3), (2,), (3,))), Sample(((3,), (2,), (3,)), {"beta": 2, "alpha": 0.5})),
)
BADDBMM = declare(
    "baddbmm",
    "BaddbmmBackward0",
    ("self", "batch1", "batch2"),
    lambda xp, a, b1, b2, beta=1, alpha=1: _fused(xp, a, xp.matmul(b1, b2), beta, alpha),
    lambda ctx, g: (
        _scaled(ctx, g, ctx.params.get("beta", 1)) if ctx.needs[0] else None,
        _scaled(ctx, ctx.math.bmm(g, _t(ctx.math, ctx.saved["batch2"])), ctx.params.get("alpha", 1))
        if ctx.needs[1]
        else None,
        _scaled(ctx, ctx.math.bmm(_t(ctx.math, ctx.saved["batch1"]), g), ctx.params.get("alpha", 1))
        if ctx.needs[2]
        else None,
    ),
    save={"batch1": ("batch2",), "batch2": ("batch1",)},
    samples=(
        Sample(((2, 2, 4), (2, 2, 3), (2, 3, 4))),
        Sample(((2, 4), (2, 2, 3), (2, 3, 4)), {"beta": 0.5, "alpha": -1}),
    ),
)


def _addbmm_batch_grad(ctx: Any, g: Any, first: bool) -> Any:
    b1, b2 = ctx.saved["batch1"], ctx.saved["batch2"]
    n, rows, cols = b1.shape[0], b1.shape[1], b2.shape[2]
    wide = ctx.math.expand(ctx.math.unsqueeze(g, dim=0), size=(n, rows, cols))
    out = ctx.math.bmm(wide, _t(ctx.math, b2)) if first else ctx.math.bmm(_t(ctx.math, b1), wide)
    return _scaled(ctx, out, ctx.params.get("alpha", 1))


ADDBMM = declare(
    "addbmm",
    "AddbmmBackward0",
    ("self", "batch1", "batch2"),
    lambda xp, a, b1, b2, beta=1, alpha=1: _fused(xp, a, xp.matmul(b1, b2).sum(0), beta, alpha),
    lambda ctx, g: (
        _scaled(ctx, g, ctx.params.get("beta", 1)) if ctx.needs[0] else None,
        _addbmm_batch_grad(ctx, g, True) if ctx.needs[1] else None,
        _addbmm_batch_grad(ctx, g, False) if ctx.needs[2] else None,
    ),
    save={"batch1": ("batch1", "batch2"), "batch2": ("batch1", "batch2")},
    samples=(Sample(((2, 4), (3, 2, 3), (3, 3, 4))),),
)


def _check_3d(name: str, **tensors: Any) -> None:
    for label, t in tensors.items():
        if t.ndim != 3:
            raise RuntimeError(f"{label} must be a 3D tensor")


@public(
    "addmv",
    ("input", "mat", "vec"),
    (BETA, ALPHA),
    category="linalg",
    doc="beta * input + alpha * (mat @ vec)",
    inplace=True,
    example=Example(inputs={"input": (2,), "mat": (2, 3), "vec": (3,)}),
)
def addmv(input: Any, mat: Any, vec: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:  # noqa: A002
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}"
        )
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({mat.shape[0]}), mat ({mat.shape[0]}x{mat.shape[1]}), "
            f"vec ({vec.shape[0]})"
        )
    return apply_op(ADDMV, (input, mat, vec), {"beta": beta, "alpha": alpha})


@public(
    "addr",
    ("input", "vec1", "vec2"),
    (BETA, ALPHA),
    category="linalg",
    doc="beta * input + alpha * outer(vec1, vec2)",
    inplace=True,
    example=Example(inputs={"input": (2, 3), "vec1": (2,), "vec2": (3,)}),
)
def addr(input: Any, vec1: Any, vec2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:  # noqa: A002
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(
            f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D"
            if vec1.ndim != 1
            else f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D"
        )
    return apply_op(ADDR, (input, vec1, vec2), {"beta": beta, "alpha": alpha})


@public(
    "baddbmm",
    ("input", "batch1", "batch2"),
    (BETA, ALPHA),
    category="linalg",
    doc="beta * input + alpha * (batch1 @ batch2), batch by batch",
    inplace=True,
    example=Example(inputs={"input": (2, 2, 4), "batch1": (2, 2, 3), "batch2": (2, 3, 4)}),
)
def baddbmm(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:  # noqa: A002
    _check_3d("baddbmm", batch1=batch1, batch2=batch2)
    return apply_op(BADDBMM, (input, batch1, batch2), {"beta": beta, "alpha": alpha})


@public(
    "addbmm",
    ("input", "batch1", "batch2"),
    (BETA, ALPHA),
    category="linalg",
    doc="beta * input + alpha * sum of batch1[i] @ batch2[i]",
    inplace=True,
    example=Example(inputs={"input": (2, 4), "batch1": (3, 2, 3), "batch2": (3, 3, 4)}),
)
def addbmm(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:  # noqa: A002
    _check_3d("addbmm", batch1=batch1, batch2=batch2)
    return apply_op(ADDBMM, (input, batch1, batch2), {"beta": beta, "alpha": alpha})


# -- dist ---------------------------------------------------------------------------------------
def _dist_grads(ctx: Any, g: Any) -> tuple[Any, Any]:
    """``norm_backward(grad, self - other, p, result)`` for ``self``, its negation for
    ``other`` (the engine sums each back over broadcasting)."""
    view = SimpleNamespace(
        saved={"self": ctx.saved["self"] - ctx.saved["other"], "result": ctx.saved["result"]},
        params={"ord": ctx.params.get("p", 2.0)},
        math=ctx.math,
    )
    grad = _vector_norm_grad(view, g)
    return (grad if ctx.needs[0] else None, -grad if ctx.needs[1] else None)


DIST = declare(
    "dist",
    "DistBackward0",
    ("self", "other"),
    lambda xp, a, b, p=2.0: _vector_norm_fwd(xp, a - b, float(p)),
    _dist_grads,
    save={"self": None, "other": None, "result": None},
    samples=(
        Sample(((2, 3), (2, 3)), distinct=True),
        Sample(((2, 3), (3,)), {"p": 1.0}, distinct=True),
        Sample(((2, 3), (2, 3)), {"p": 3.0}, distinct=True),
    ),
    quiet=True,
)


@public(
    "dist",
    ("input", "other"),
    (Param("p", "number"),),
    category="linalg",
    doc="p-norm of input - other",
)
def dist(input: Any, other: Any, p: Any = 2) -> Any:  # noqa: A002
    return apply_op(DIST, (input, other), {"p": float(p)})


# -- cross ----------------------------------------------------------------------------------------
def _cross_fwd(xp: Any, a: Any, b: Any, dim: int) -> Any:
    shape = xp.broadcast_shapes(a.shape, b.shape)
    a, b = xp.broadcast_to(a, shape), xp.broadcast_to(b, shape)
    return xp.moveaxis(xp.cross(xp.moveaxis(a, dim, -1), xp.moveaxis(b, dim, -1)), -1, dim)


LINALG_CROSS = declare(
    "linalg_cross",
    "LinalgCrossBackward0",
    ("self", "other"),
    on_host(_cross_fwd),
    lambda ctx, g: (
        ctx.math.linalg_cross(ctx.saved["other"], g, dim=ctx.params["dim"])
        if ctx.needs[0]
        else None,
        ctx.math.linalg_cross(g, ctx.saved["self"], dim=ctx.params["dim"])
        if ctx.needs[1]
        else None,
    ),
    save={"other": ("self",), "self": ("other",)},
    samples=(Sample(((2, 3), (2, 3)), {"dim": 1}), Sample(((3, 2), (3, 1)), {"dim": 0})),
)


@public(
    "cross",
    ("input", "other"),
    (Param("dim", "dim"),),
    namespace=LINALG,
    category="linear algebra",
    doc="cross product of 3-vectors along dim",
    method=False,
)
def linalg_cross(input: Any, other: Any, *, dim: int = -1) -> Any:  # noqa: A002
    """``torch.linalg.cross``: ``dim`` of size 3 (after broadcasting)."""

    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} "
            f"and {other.shape[d]}"
        )
    return apply_op(LINALG_CROSS, (input, other), {"dim": d})


@public(
    "cross",
    ("input", "other"),
    (Param("dim", "dims"),),
    category="linalg",
    doc="cross product of 3-vectors along dim",
    example=Example(inputs={"input": (2, 3), "other": (2, 3)}, params={"dim": 1}),
)
def cross(input: Any, other: Any, dim: int | None = None) -> Any:  # noqa: A002
    """``torch.cross``: without ``dim``, the first dimension of size 3 (deprecated in
    PyTorch, which warns; ``linalg.cross`` takes the last)."""
    if dim is None:
        dim = next((i for i, s in enumerate(input.shape) if s == 3), -1)
    return linalg_cross(input, other, dim=dim)


# -- kron -----------------------------------------------------------------------------------------
@public("kron", ("input", "other"), category="linalg", doc="Kronecker product")
def kron(input: Any, other: Any) -> Any:  # noqa: A002
    """ATen's ``kron``: ``a`` and ``b`` reshaped to interleave their dimensions, one
    broadcast ``mul``, then ``_unsafe_view`` to the product's shape."""

    nd = max(input.ndim, other.ndim)
    a_shape = (1,) * (nd - input.ndim) + tuple(input.shape)
    b_shape = (1,) * (nd - other.ndim) + tuple(other.shape)
    a_view, b_view, result = [], [], []
    for i in range(nd):
        a_view += [a_shape[i], 1]
        b_view += [1, b_shape[i]]
        result.append(a_shape[i] * b_shape[i])
    a = unsafe_view(input, tuple(a_view)) if input.is_contiguous() else input.reshape(a_view)
    b = unsafe_view(other, tuple(b_view)) if other.is_contiguous() else other.reshape(b_view)
    return unsafe_view(a * b, tuple(result))


# -- diag_embed / rot90 ---------------------------------------------------------------------------
def _diag_embed_fwd(xp: Any, a: Any, offset: int, dim1: int, dim2: int) -> Any:
    n = a.shape[-1] + abs(offset)
    out = xp.zeros((*a.shape[:-1], n, n), dtype=a.dtype)
    _diagonal(xp, out, offset, -2, -1)[...] = a
    lo, hi = sorted((dim1, dim2))
    order = [d for d in range(out.ndim - 2)]
    order.insert(lo, out.ndim - 2 if dim1 < dim2 else out.ndim - 1)
    order.insert(hi, out.ndim - 1 if dim1 < dim2 else out.ndim - 2)
    return xp.transpose(out, order).copy()


DIAG_EMBED = declare(
    "diag_embed_dims",
    "DiagEmbedBackward0",
    ("self",),
    on_host(_diag_embed_fwd),
    lambda ctx, g: ctx.math.diagonal(
        g, offset=ctx.params["offset"], dim1=ctx.params["dim1"], dim2=ctx.params["dim2"]
    ),
    dtype="same",
    samples=(
        Sample(((2, 3),), {"offset": 0, "dim1": 1, "dim2": 2}),
        Sample(((2, 3),), {"offset": 1, "dim1": 0, "dim2": 2}),
    ),
)


@public(
    "diag_embed",
    ("input",),
    (Param("offset", "int"), Param("dim1", "dim"), Param("dim2", "dim")),
    category="shape",
    doc="last dim placed on the diagonal of two new dims",
)
def diag_embed(input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:  # noqa: A002

    n = input.ndim + 1
    d1, d2 = _wrap(dim1, n), _wrap(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply_op(DIAG_EMBED, (input,), {"offset": offset, "dim1": d1, "dim2": d2})


def _rot90_fwd(xp: Any, a: Any, k: int, dims: tuple[int, int]) -> Any:
    return xp.rot90(a, k, axes=dims).copy()


ROT90 = declare(
    "rot90",
    "Rot90Backward0",
    ("self",),
    on_host(_rot90_fwd),
    lambda ctx, g: ctx.math.rot90(g, k=-ctx.params["k"], dims=ctx.params["dims"]),
    dtype="same",
    samples=(
        Sample(((2, 3),), {"k": 1, "dims": (0, 1)}),
        Sample(((2, 3, 2),), {"k": -1, "dims": (2, 0)}),
    ),
)


@public(
    "rot90",
    ("input",),
    (Param("k", "int"), Param("dims", "dim_list")),
    category="shape",
    doc="rotate by 90 degrees k times in the plane of dims",
)
def rot90(input: Any, k: int = 1, dims: Any = (0, 1)) -> Any:  # noqa: A002
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")

    d0, d1 = _wrap(dims[0], input.ndim), _wrap(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    return apply_op(ROT90, (input,), {"k": k % 4, "dims": (d0, d1)})
