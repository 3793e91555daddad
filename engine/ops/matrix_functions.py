"""Matrix functions of one square matrix (no batches, as ``linalg.inv``): ``det``,
``slogdet``, ``logdet``, ``cholesky``; and what ``torch.linalg`` composes from other ops:
``matrix_norm``, ``vecdot``, ``multi_dot``, ``matrix_power``, ``matrix_rank``; plus
``cdist`` (``CdistBackward0``, or ATen's matrix-product form for larger inputs).

Backward formulas are ``FunctionsManual.cpp``'s, written with ``ctx.math`` so
``create_graph`` works: ``det``'s is ``grad * det * A^{-T}`` (the cofactor matrix,
from the SVD, where ``A`` is singular); ``cholesky``'s is ``L^{-T} Φ(L^T gL) L^{-1}``
symmetrised.
"""

from __future__ import annotations

import math
import warnings
from types import SimpleNamespace
from typing import Any

import numpy as np

from engine.backend import array_module, to_numpy, transfer
from engine.catalog import Example, Param, Port, public
from engine.messages import LinAlgError
from engine.ops.broadcast import broadcast_shapes
from engine.ops.core import ARRAY_MATH, Sample, apply_op, declare
from engine.ops.host import on_host
from engine.ops.inverse import check_square as _square
from engine.ops.inverse import inv
from engine.ops.linalg import mm
from engine.ops.norms import vector_norm
from engine.ops.pointwise import data_of, where
from engine.ops.stats import amax, amin
from engine.spaced import eye as make_eye
from engine.tensor import Tensor

#: ``torch.linalg``: its functions are not tensor methods.
LINALG = "torch.linalg"

SQUARE = (Sample(((3, 3),), distinct=True),)


def _mT(m: Any, x: Any) -> Any:  # noqa: N802  (PyTorch's name)
    return m.transpose(x, dim0=0, dim1=1)


def _cofactor(ctx: Any, a: Any) -> Any:
    """``det(A) * A^{-T}``, the cofactor matrix; from the SVD where ``A`` is singular (the
    formula for every ``A``, as ``linalg_det_backward``'s singular branch)."""
    data = data_of(ctx, a)
    xp = array_module(data)
    host = data if xp is np else xp.asnumpy(data)
    u, s, vt = np.linalg.svd(host)
    prods = np.array([np.prod(np.delete(s, i)) for i in range(s.shape[0])])
    cof = np.linalg.det(u) * np.linalg.det(vt) * (u * prods) @ vt
    cof = cof.astype(host.dtype)
    cof = cof if xp is np else xp.asarray(cof)
    return cof if ctx.math is ARRAY_MATH else type(a)._wrap(cof)


def _det_grad(ctx: Any, g: Any) -> Any:
    a, det = ctx.saved["A"], ctx.saved["result"]
    if float(data_of(ctx, det)) != 0.0:
        return ctx.math.mul(g * det, _mT(ctx.math, ctx.math.linalg_inv(a)))
    return g * det * _cofactor(ctx, a)  # zero, as PyTorch's where det is exactly 0


DET = declare(
    "linalg_det",
    "LinalgDetBackward0",
    ("A",),
    lambda xp, a: xp.asarray(xp.linalg.det(a), dtype=a.dtype),
    _det_grad,
    dtype="same",
    save={"A": None, "result": None},
    samples=SQUARE,
)


@public(
    "det",
    ("A",),
    namespace=LINALG,
    category="linear algebra",
    doc="determinant of a square matrix",
    method=False,
    example=Example(inputs={"A": (3, 3)}),
)
def det(A: Any) -> Any:  # noqa: N803
    """``torch.linalg.det``."""
    _square(A, "linalg.det")
    return apply_op(DET, (A,))


@public(
    "det",
    ("input",),
    category="linear algebra",
    doc="determinant of a square matrix",
    example=Example(inputs={"input": (3, 3)}),
)
def det_(input: Any) -> Any:  # noqa: A002
    return det(input)


det_.__name__ = det_.__qualname__ = "det"


def _slogdet_fwd(xp: Any, a: Any) -> tuple[Any, Any]:
    sign, logabs = xp.linalg.slogdet(a)
    return xp.asarray(sign, dtype=a.dtype), xp.asarray(logabs, dtype=a.dtype)


def _slogdet_grad(ctx: Any, g_sign: Any, g_logabs: Any = None) -> Any:
    """``linalg_slogdet_backward`` for real input: ``g * A^{-T}``; the sign has none."""
    a = ctx.saved["A"]
    if g_logabs is None:
        return zeros_of(ctx, a)
    return ctx.math.mul(g_logabs, _mT(ctx.math, ctx.math.linalg_inv(a)))


def zeros_of(ctx: Any, t: Any) -> Any:
    data = data_of(ctx, t)
    z = array_module(data).zeros(data.shape, data.dtype)
    return z if ctx.math is ARRAY_MATH else type(t)._wrap(z)


SLOGDET = declare(
    "linalg_slogdet",
    "LinalgSlogdetBackward0",
    ("A",),
    on_host(_slogdet_fwd),
    _slogdet_grad,
    dtype="same",
    outputs=2,
    every_output=True,
    save={"A": None},
    samples=SQUARE,
)


class slogdet_type(tuple):  # noqa: N801  (PyTorch's class name)
    """``torch.return_types.slogdet``: ``(sign, logabsdet)``."""

    __slots__ = ()
    __module__ = "torch.return_types"

    def __new__(cls, sign: Any, logabsdet: Any) -> slogdet_type:
        return tuple.__new__(cls, (sign, logabsdet))

    @property
    def sign(self) -> Any:
        return self[0]

    @property
    def logabsdet(self) -> Any:
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.{self._name}(\nsign={self[0]!r},\nlogabsdet={self[1]!r})"

    _name = "slogdet"


class linalg_slogdet_type(slogdet_type):  # noqa: N801
    __slots__ = ()
    _name = "linalg_slogdet"


slogdet_type.__name__ = slogdet_type.__qualname__ = "slogdet"
linalg_slogdet_type.__name__ = linalg_slogdet_type.__qualname__ = "linalg_slogdet"


@public(
    "slogdet",
    ("A",),
    namespace=LINALG,
    outputs=("sign", "logabsdet"),
    category="linear algebra",
    doc="sign and log |det| of a square matrix",
    method=False,
    example=Example(inputs={"A": (3, 3)}),
)
def slogdet(A: Any) -> Any:  # noqa: N803
    """``torch.linalg.slogdet``: the sign and the log of the absolute determinant."""
    _square(A, "linalg.slogdet")
    return linalg_slogdet_type(*apply_op(SLOGDET, (A,)))


@public(
    "slogdet",
    ("input",),
    outputs=("sign", "logabsdet"),
    category="linear algebra",
    doc="sign and log |det| of a square matrix",
    example=Example(inputs={"input": (3, 3)}),
)
def slogdet_(input: Any) -> Any:  # noqa: A002
    _square(input, "linalg.slogdet")
    return slogdet_type(*apply_op(SLOGDET, (input,)))


slogdet_.__name__ = slogdet_.__qualname__ = "slogdet"


@public(
    "logdet",
    ("input",),
    category="linear algebra",
    doc="log of the determinant (NaN where it is negative)",
    example=Example(inputs={"input": (3, 3)}),
)
def logdet(input: Any) -> Any:  # noqa: A002
    """ATen's: ``where(sign == -1, nan, logabsdet)`` over ``linalg_slogdet``."""

    _square(input, "logdet")
    sign, logabs = apply_op(SLOGDET, (input,))
    return where(sign == -1.0, math.nan, logabs)


# -- cholesky -----------------------------------------------------------------------------------
def _cholesky_fwd(xp: Any, a: Any, upper: bool = False) -> Any:
    low = xp.linalg.cholesky(a).astype(a.dtype)
    return low.T.copy() if upper else low


def _cholesky_grad(ctx: Any, g: Any) -> Any:
    """``cholesky_backward``: ``Φ = tril(L^T gL)`` with half its diagonal, then
    ``gA = L^{-T} Φ L^{-1}``, symmetrised."""
    m = ctx.math
    low, gl = ctx.saved["result"], g
    if ctx.params.get("upper"):
        low, gl = _mT(m, low), _mT(m, gl)
    phi = m.tril(m.mm(_mT(m, low), gl), diagonal=0)
    data = data_of(ctx, phi)
    xp = array_module(data)
    half = xp.where(xp.eye(data.shape[0], dtype=bool), 0.5, 1.0).astype(data.dtype)
    phi = phi * (half if m is ARRAY_MATH else type(phi)._wrap(half))
    inv = m.linalg_inv(low)
    ga = m.mm(m.mm(_mT(m, inv), phi), inv)
    return m.mul_scalar(ga + _mT(m, ga), other=0.5)


def _cholesky_op(name: str, grad_fn: str) -> Any:
    return declare(
        name,
        grad_fn,
        ("self",),
        on_host(_cholesky_fwd),
        _cholesky_grad,
        dtype="same",
        save={"result": None},
        samples=(Sample(((1, 1),), positive=True),),
    )


LINALG_CHOLESKY = _cholesky_op("linalg_cholesky", "LinalgCholeskyExBackward0")
CHOLESKY = _cholesky_op("cholesky", "CholeskyBackward0")


def _check_pd(A: Any, name: str) -> None:  # noqa: N803

    a = to_numpy(A._data)
    for k in range(1, a.shape[0] + 1):
        try:
            np.linalg.cholesky(a[:k, :k])
        except np.linalg.LinAlgError:
            raise LinAlgError(
                f"{name}: The factorization could not be completed because the input is not "
                f"positive-definite (the leading minor of order {k} is not positive-definite)."
            ) from None


@public(
    "cholesky",
    ("A",),
    (Param("upper", "bool"),),
    namespace=LINALG,
    category="linear algebra",
    doc="Cholesky factor of a symmetric positive-definite matrix",
    method=False,
    example=Example(inputs={"A": (1, 1)}, values={"A": "positive"}),
)
def cholesky(A: Any, *, upper: bool = False) -> Any:  # noqa: N803
    """``torch.linalg.cholesky``."""
    _square(A, "linalg.cholesky")
    _check_pd(A, "linalg.cholesky")
    return apply_op(LINALG_CHOLESKY, (A,), {"upper": upper} if upper else {})


_CHOLESKY_DEPRECATED = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
    "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
    "should be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
    "equivalent results for all valid (symmetric positive definite) inputs. (Triggered "
    "internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.)"
)
_warned: list[bool] = []


@public(
    "cholesky",
    ("input",),
    (Param("upper", "bool"),),
    category="linear algebra",
    doc="Cholesky factor of a symmetric positive-definite matrix (deprecated)",
    example=Example(inputs={"input": (1, 1)}, values={"input": "positive"}),
)
def cholesky_(input: Any, upper: bool = False) -> Any:  # noqa: A002
    """``torch.cholesky``: its own node (``CholeskyBackward0``) and a warning, once."""
    if not _warned:
        _warned.append(True)
        warnings.warn(_CHOLESKY_DEPRECATED, UserWarning, stacklevel=2)
    _square(input, "cholesky")
    _check_pd(input, "cholesky")
    return apply_op(CHOLESKY, (input,), {"upper": upper} if upper else {})


cholesky_.__name__ = cholesky_.__qualname__ = "cholesky"


# -- compositions -------------------------------------------------------------------------------
@public(
    "matrix_norm",
    ("A",),
    (Param("keepdim", "bool"),),
    namespace=LINALG,
    category="linear algebra",
    doc="Frobenius norm of each matrix",
    method=False,
    example=Example(inputs={"A": (3, 3)}),
)
def matrix_norm(
    A: Any,  # noqa: N803
    ord: Any = "fro",  # noqa: A002
    dim: tuple[int, int] = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Any:
    """``torch.linalg.matrix_norm`` for ``'fro'`` (a vector norm over both dims) and the
    1/inf norms (``amax`` of column/row vector norms), as ATen composes them."""

    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    d0, d1 = (d % A.ndim for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if ord in (1, -1, math.inf, -math.inf):
        if ord in (math.inf, -math.inf):
            d0, d1 = d1, d0
        if not keepdim and d0 < d1:
            d1 -= 1
        inner = vector_norm(A, 1, d0, keepdim, dtype=dtype)
        pick = amax if ord > 0 else amin
        return pick(inner, d1, keepdim)
    raise NotImplementedError(f"linalg.matrix_norm with ord={ord!r} is not supported by the engine")


@public(
    "vecdot",
    ("x", "y"),
    (Param("dim", "dim"),),
    namespace=LINALG,
    category="linear algebra",
    doc="dot products of the vectors along dim",
    method=False,
)
def vecdot(x: Any, y: Any, *, dim: int = -1) -> Any:
    """``(x * y).sum(dim)`` (real input), as ATen."""
    return (x * y).sum(dim)


@public(
    "multi_dot",
    (Port("tensors", variadic=True),),
    namespace=LINALG,
    category="linear algebra",
    doc="the product of a chain of matrices, in the cheapest order",
    method=False,
    example=Example(inputs={"tensors": [(2, 3), (3, 4), (4, 2)]}),
)
def multi_dot(tensors: Any) -> Any:
    """``mm`` in the cheapest order for three matrices (ATen's cost rule), left to right
    otherwise; a 1-D first or last operand is a row or a column, dropped at the end."""

    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    first_1d, last_1d = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_1d:
        ts[0] = ts[0].unsqueeze(0)
    if last_1d:
        ts[-1] = ts[-1].unsqueeze(-1)
    if len(ts) == 2:
        out = mm(ts[0], ts[1])
    elif len(ts) == 3:
        a, b, c = ts
        cost_1 = a.shape[0] * c.shape[0] * (a.shape[1] + c.shape[1])
        cost_2 = a.shape[1] * c.shape[1] * (a.shape[0] + c.shape[0])
        if cost_1 > cost_2:
            out = mm(a, mm(b, c))
        else:
            out = mm(mm(a, b), c)
    else:
        out = ts[0]
        for t in ts[1:]:
            out = mm(out, t)
    if first_1d and last_1d:
        return out.view(())
    if first_1d or last_1d:
        return out.view(-1)
    return out.view(out.shape[0], out.shape[1])


@public(
    "matrix_power",
    ("input",),
    (Param("n", "int", 2),),
    category="linear algebra",
    doc="the matrix multiplied by itself n times",
    example=Example(inputs={"input": (3, 3)}),
)
def matrix_power(input: Any, n: int) -> Any:  # noqa: A002
    """ATen's: ``A`` itself copied for 0 (identity), repeated squaring with ``mm``."""

    A = input  # noqa: N806
    _square(A, "linalg.matrix_power")
    if n == 0:
        eye = make_eye(A.shape[-1], dtype=A.dtype, device=A.device)
        return A.clone().copy_(eye)
    inverted = n < 0
    if inverted:
        A, n = inv(A), -n  # noqa: N806
    if n == 1:
        return A if inverted else A.clone()
    if n == 2:
        return mm(A, A)
    if n == 3:
        return mm(mm(A, A), A)
    z = result = None
    while n > 0:
        z = A if z is None else mm(z, z)
        if n & 1:
            result = z if result is None else mm(result, z)
        n >>= 1
    return result


def _rank(
    A: Any,  # noqa: N803
    *,
    atol: Any = None,
    rtol: Any = None,
    hermitian: bool = False,
) -> Any:
    """Singular values above ``max(atol, rtol * σ_max)`` (``rtol`` defaults to
    ``eps * max(m, n)`` when neither is given)."""

    a = to_numpy(A._data)
    s = np.linalg.svd(a, compute_uv=False)
    atol_v = 0.0 if atol is None else float(atol)
    if rtol is None:
        rtol_v = 0.0 if atol is not None and atol > 0 else np.finfo(a.dtype).eps * max(a.shape[-2:])
    else:
        rtol_v = float(rtol)
    smax = s.max(axis=-1, initial=0.0)
    tol = np.maximum(atol_v, rtol_v * smax)
    return Tensor._wrap(transfer(np.asarray((s > tol).sum(axis=-1), np.int64), A.device))


@public(
    "matrix_rank",
    ("A",),
    (
        Param("atol", "optional_number"),
        Param("rtol", "optional_number"),
        Param("hermitian", "bool"),
    ),
    namespace=LINALG,
    category="linear algebra",
    doc="the number of singular values above the tolerance (int64)",
    method=False,
    differentiable=False,
    example=Example(inputs={"A": (3, 3)}),
)
def matrix_rank(
    A: Any,  # noqa: N803
    *,
    atol: Any = None,
    rtol: Any = None,
    hermitian: bool = False,
) -> Any:
    rank = _rank(A, atol=atol, rtol=rtol, hermitian=hermitian)
    rank._counter()[0] += 1  # ATen counts into its result with ``sum(out=)``: version 1
    return rank


# -- cdist --------------------------------------------------------------------------------------
def _cdist_fwd(xp: Any, a: Any, b: Any, p: float = 2.0) -> Any:
    diff = xp.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(-1).astype(a.dtype)
    if p == math.inf:
        return diff.max(-1) if diff.shape[-1] else diff.sum(-1)
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return xp.sqrt((diff * diff).sum(-1))
    return (diff**p).sum(-1) ** (1.0 / p)


def _cdist_grads(ctx: Any, g: Any) -> tuple[Any, Any]:
    """``_cdist_backward``: for each pair, ``norm_backward`` of ``x1_i - x2_j``, summed
    over the other operand."""
    m = ctx.math
    x1, x2, dist = ctx.saved["x1"], ctx.saved["x2"], ctx.saved["result"]
    p = ctx.params.get("p", 2.0)
    diff = m.unsqueeze(x1, dim=x1.ndim - 1) - m.unsqueeze(x2, dim=x2.ndim - 2)
    gd = m.unsqueeze(g, dim=g.ndim)
    dd = m.unsqueeze(dist, dim=dist.ndim)
    zero = data_of(ctx, dd) == 0
    if p == 0:
        part = diff * 0
    elif p == 1:
        part = m.sgn(diff) * gd
    elif p == math.inf:
        ad = data_of(ctx, m.abs(diff))
        hit = ad == data_of(ctx, dd)
        hit = hit if m is ARRAY_MATH else type(g)._wrap(hit)
        part = m.sgn(diff) * hit * gd
    elif p == 2:
        part = m.masked_fill(diff / dd, mask=zero, value=0) * gd
    else:
        scaled = diff * m.pow(m.abs(diff), exponent=p - 2)
        part = scaled * m.masked_fill(gd / m.pow(dd, exponent=p - 1), mask=zero, value=0)
    n = diff.ndim
    return (
        m.sum_dim(part, dims=(n - 2,)) if ctx.needs[0] else None,
        -m.sum_dim(part, dims=(n - 3,)) if ctx.needs[1] else None,
    )


CDIST = declare(
    "cdist",
    "CdistBackward0",
    ("x1", "x2"),
    _cdist_fwd,
    _cdist_grads,
    save={"x1": None, "x2": None, "result": None},
    samples=(
        Sample(((3, 2), (4, 2)), distinct=True),
        Sample(((2, 3, 2), (2, 4, 2)), {"p": 1.0}, distinct=True),
        Sample(((3, 2), (4, 2)), {"p": 3.0}, distinct=True),
    ),
    quiet=True,
)


@public(
    "cdist",
    ("x1", "x2"),
    (Param("p", "number"),),
    category="linear algebra",
    doc="pairwise p-norm distances between the rows of x1 and x2",
    method=False,
    example=Example(inputs={"x1": (3, 2), "x2": (4, 2)}),
)
def cdist(x1: Any, x2: Any, p: float = 2.0, compute_mode: str | None = None) -> Any:
    """``CdistBackward0``; for p = 2 with more than 25 rows on either side (or when asked)
    ATen's matrix-product form, whose nodes are PyTorch's too."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    rows1, rows2 = x1.shape[-2], x2.shape[-2]
    use_mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist"
        or (
            compute_mode in (None, "use_mm_for_euclid_dist_if_necessary")
            and (rows1 > 25 or rows2 > 25)
        )
    )
    if use_mm:
        return _euclidean_dist(x1, x2)
    return apply_op(CDIST, (x1, x2), {"p": float(p)})


def _euclidean_fwd(xp: Any, a: Any, b: Any) -> Any:
    """ATen's ``_euclidean_dist``: one product of padded rows, clamped at 0 and rooted."""
    a_norm = (a * a).sum(-1, keepdims=True)
    b_norm = (b * b).sum(-1, keepdims=True)
    a_ = xp.concatenate([a * -2, a_norm, xp.ones_like(a_norm)], -1)
    b_ = xp.concatenate([b, xp.ones_like(b_norm), b_norm], -1)
    return xp.sqrt(xp.maximum(xp.matmul(a_, xp.swapaxes(b_, -1, -2)), 0))


def _matmul(m: Any, a: Any, b: Any) -> Any:
    return m.mm(a, b) if a.ndim == 2 else m.bmm(a, b)


def _euclidean_grads(ctx: Any, g: Any) -> tuple[Any, Any]:
    """``_euclidean_dist_backward``: ``ratio = grad / res`` (0 where ``res`` is 0)."""
    m = ctx.math
    x1, x2, res = ctx.saved["x1"], ctx.saved["x2"], ctx.saved["result"]
    ratio = m.masked_fill(g / res, mask=data_of(ctx, res) == 0, value=0)
    last = ratio.ndim - 1
    return (
        x1 * m.sum_dim(ratio, dims=(last,), keepdim=True) - _matmul(m, ratio, x2)
        if ctx.needs[0]
        else None,
        x2 * m.unsqueeze(m.sum_dim(ratio, dims=(last - 1,)), dim=last)
        - _matmul(m, m.transpose(ratio, dim0=last - 1, dim1=last), x1)
        if ctx.needs[1]
        else None,
    )


EUCLIDEAN_DIST = declare(
    "_euclidean_dist",
    "EuclideanDistBackward0",
    ("x1", "x2"),
    _euclidean_fwd,
    _euclidean_grads,
    save={"x1": None, "x2": None, "result": None},
    samples=(Sample(((3, 2), (4, 2)), distinct=True),),
    quiet=True,
)


def _euclidean_dist(x1: Any, x2: Any) -> Any:
    """ATen's path: batches expanded and flattened, one ``_euclidean_dist``, a ``view``."""

    batch = broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    (r1, c1), (r2, c2) = x1.shape[-2:], x2.shape[-2:]
    n = math.prod(batch)
    if n == 1:
        a = x1.reshape(r1, c1) if x1.ndim > 2 else x1
        b = x2.reshape(r2, c2) if x2.ndim > 2 else x2
    else:
        a = x1.expand(*batch, r1, c1).reshape(n, r1, c1)
        b = x2.expand(*batch, r2, c2).reshape(n, r2, c2)
    return apply_op(EUCLIDEAN_DIST, (a, b)).view(*batch, r1, r2)


# -- eigh -------------------------------------------------------------------------------------
def _eigh_fwd(xp: Any, a: Any, UPLO: str = "L") -> tuple[Any, Any]:  # noqa: N803
    values, vectors = np.linalg.eigh(a, UPLO=UPLO)
    return values.astype(a.dtype), vectors.astype(a.dtype)


def _eigh_grad(ctx: Any, g_values: Any, g_vectors: Any = None) -> Any:
    """``linalg_eig_backward`` for a symmetric matrix: ``V (skew(Vᵀ gV) / E, with gL on
    the diagonal) Vᵀ``, ``E_ij = λ_j - λ_i`` (computed on arrays: no double backward)."""
    values, vectors = data_of(ctx, ctx.saved["result"]), data_of(ctx, ctx.saved["indices"])
    gl = None if g_values is None else to_numpy(data_of(ctx, g_values))
    gv = None if g_vectors is None else data_of(ctx, g_vectors)
    xp = array_module(vectors)
    v = vectors if xp is np else xp.asnumpy(vectors)
    lam = values if xp is np else xp.asnumpy(values)
    if gv is None:
        out = (v * (np.zeros_like(lam) if gl is None else gl)[None, :]) @ v.T
    else:
        vhgv = v.T @ (gv if xp is np else xp.asnumpy(gv))
        vhgv = 0.5 * (vhgv - vhgv.T)
        e = lam[None, :] - lam[:, None]
        np.fill_diagonal(e, 1.0)
        inner = vhgv / e
        if gl is not None:
            np.fill_diagonal(inner, gl)
        out = v @ (inner @ v.T)
    out = out.astype(v.dtype)
    out = out if xp is np else xp.asarray(out)
    return out if ctx.math is ARRAY_MATH else type(ctx.saved["result"])._wrap(out)


EIGH = declare(
    "linalg_eigh",
    "LinalgEighBackward0",
    ("A",),
    on_host(_eigh_fwd),
    _eigh_grad,
    dtype="same",
    outputs=2,
    every_output=True,
    save={"result": None, "indices": None},
)


class linalg_eigh_type(tuple):  # noqa: N801  (PyTorch's class name)
    """``torch.return_types.linalg_eigh``: ``(eigenvalues, eigenvectors)``."""

    __slots__ = ()
    __module__ = "torch.return_types"

    def __new__(cls, eigenvalues: Any, eigenvectors: Any) -> linalg_eigh_type:
        return tuple.__new__(cls, (eigenvalues, eigenvectors))

    @property
    def eigenvalues(self) -> Any:
        return self[0]

    @property
    def eigenvectors(self) -> Any:
        return self[1]

    def __repr__(self) -> str:
        return (
            f"torch.return_types.linalg_eigh(\neigenvalues={self[0]!r},\neigenvectors={self[1]!r})"
        )


linalg_eigh_type.__name__ = linalg_eigh_type.__qualname__ = "linalg_eigh"


@public(
    "eigh",
    ("A",),
    (Param("UPLO", "str", choices=("L", "U")),),
    namespace=LINALG,
    outputs=("eigenvalues", "eigenvectors"),
    category="linear algebra",
    doc="eigenvalues and eigenvectors of the symmetric matrix one triangle gives",
    method=False,
    # 2 x 2: LAPACK's signs of some 3 x 3 eigenvectors differ between NumPy and PyTorch
    example=Example(inputs={"A": (2, 2)}),
)
def eigh(A: Any, UPLO: str = "L") -> Any:  # noqa: N803
    """``torch.linalg.eigh``: ascending eigenvalues and orthonormal eigenvectors of the
    symmetric matrix whose lower (``UPLO='L'``) or upper triangle is given."""
    _square(A, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return linalg_eigh_type(*apply_op(EIGH, (A,), {"UPLO": UPLO} if UPLO != "L" else {}))


@public(
    "eigvalsh",
    ("A",),
    (Param("UPLO", "str", choices=("L", "U")),),
    namespace=LINALG,
    category="linear algebra",
    doc="eigenvalues of the symmetric matrix one triangle gives",
    method=False,
    example=Example(inputs={"A": (3, 3)}),
)
def eigvalsh(A: Any, UPLO: str = "L") -> Any:  # noqa: N803
    """``torch.linalg.eigvalsh``: the eigenvalues, from the same node as ``eigh``'s."""
    return eigh(A, UPLO)[0]


# -- svd ----------------------------------------------------------------------------------------
def _svd_fwd(xp: Any, a: Any, full_matrices: bool = True) -> tuple[Any, Any, Any]:
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return u.astype(a.dtype), s.astype(a.dtype), vh.astype(a.dtype)


def _svd_grad(ctx: Any, g_u: Any, g_s: Any = None, g_vh: Any = None) -> Any:
    """``svd_backward`` (real input), on the reduced factors (``full_matrices`` narrows
    them, as ``derivatives.yaml`` does); computed on arrays: no double backward.  The
    factors are recomputed from the saved input (the same LAPACK call, the same
    factors)."""

    def host(t: Any) -> Any:
        if t is None:
            return None
        d = data_of(ctx, t)
        xp = array_module(d)
        return d if xp is np else xp.asnumpy(d)

    a = host(ctx.saved["A"])
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    gu, gs, gvh = (host(t) for t in (g_u, g_s, g_vh))
    k = s.shape[-1]
    m, n = u.shape[0], vh.shape[-1]
    u, vh = u[:, :k], vh[:k, :]
    gu = None if gu is None else gu[:, :k]
    gvh = None if gvh is None else gvh[:k, :]
    if gu is None and gvh is None:
        out = (u * (np.zeros(k) if gs is None else gs)[None, :]) @ vh
    else:
        s2 = s * s
        e = s2[None, :] - s2[:, None]
        np.fill_diagonal(e, 1.0)
        uhgu = None if gu is None else u.T @ gu
        uhgu = None if uhgu is None else uhgu - uhgu.T
        vhgv = None if gvh is None else vh @ gvh.T
        vhgv = None if vhgv is None else vhgv - vhgv.T
        if uhgu is not None and vhgv is not None:
            ga = (uhgu * s[None, :] + s[:, None] * vhgv) / e
        elif vhgv is None:
            ga = (uhgu / e) * s[None, :]
        else:
            ga = s[:, None] * (vhgv / e)
        if gs is not None:
            ga = ga + np.diag(gs)
        if m > n and gu is not None:
            ga = u @ ga
            gu_sinv = gu / s[None, :]
            ga = (ga + gu_sinv - u @ (u.T @ gu_sinv)) @ vh
        elif m < n and gvh is not None:
            ga = ga @ vh
            sinv_gvh = gvh / s[:, None]
            ga = u @ (ga + sinv_gvh - (sinv_gvh @ vh.T) @ vh)
        else:
            ga = u @ ga @ vh
        out = ga
    ref = data_of(ctx, ctx.saved["A"])
    out = out.astype(ref.dtype)
    xp = array_module(ref)
    out = out if xp is np else xp.asarray(out)
    return out if ctx.math is ARRAY_MATH else type(ctx.saved["A"])._wrap(out)


def _svd_backward(ctx: Any, *grads: Any) -> Any:
    return _svd_grad(ctx, *grads)


SVD = declare(
    "linalg_svd",
    "LinalgSvdBackward0",
    ("A",),
    on_host(_svd_fwd),
    _svd_backward,
    dtype="same",
    outputs=3,
    every_output=True,
    save={"A": None},
    samples=(Sample(((3, 2),), {"full_matrices": False}, distinct=True),),
)


class linalg_svd_type(tuple):  # noqa: N801  (PyTorch's class name)
    """``torch.return_types.linalg_svd``: ``(U, S, Vh)``."""

    __slots__ = ()
    __module__ = "torch.return_types"

    def __new__(cls, U: Any, S: Any, Vh: Any) -> linalg_svd_type:  # noqa: N803
        return tuple.__new__(cls, (U, S, Vh))

    @property
    def U(self) -> Any:  # noqa: N802
        return self[0]

    @property
    def S(self) -> Any:  # noqa: N802
        return self[1]

    @property
    def Vh(self) -> Any:  # noqa: N802
        return self[2]

    def __repr__(self) -> str:
        return f"torch.return_types.linalg_svd(\nU={self[0]!r},\nS={self[1]!r},\nVh={self[2]!r})"


linalg_svd_type.__name__ = linalg_svd_type.__qualname__ = "linalg_svd"


@public(
    "svd",
    ("A",),
    (Param("full_matrices", "bool"),),
    namespace=LINALG,
    outputs=("U", "S", "Vh"),
    category="linear algebra",
    doc="singular value decomposition A = U diag(S) Vh",
    method=False,
    example=Example(inputs={"A": (3, 2)}, params={"full_matrices": False}),
)
def svd(A: Any, full_matrices: bool = True, *, driver: Any = None) -> Any:  # noqa: N803
    """``torch.linalg.svd`` of one matrix: ``U``, ``S`` (descending), ``Vh``."""
    if A.ndim != 2:
        if A.ndim < 2:
            raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
        raise NotImplementedError(
            "linalg.svd of a batch of matrices is not supported by the engine"
        )
    return linalg_svd_type(*apply_op(SVD, (A,), {"full_matrices": full_matrices}))


@public(
    "svdvals",
    ("A",),
    namespace=LINALG,
    category="linear algebra",
    doc="singular values, descending",
    method=False,
    example=Example(inputs={"A": (3, 2)}),
)
def svdvals(A: Any, *, driver: Any = None) -> Any:  # noqa: N803
    """``torch.linalg.svdvals``: ``S`` of the reduced SVD (the same node)."""
    return svd(A, full_matrices=False)[1]


# -- pinv -----------------------------------------------------------------------------------
def _pinv_fwd(xp: Any, a: Any) -> Any:
    rcond = np.finfo(a.dtype).eps * max(a.shape)
    return np.linalg.pinv(a, rcond=rcond).astype(a.dtype)


def _pinv_grad(ctx: Any, g: Any) -> Any:
    """``pinv_backward``, in the order that keeps the products smallest."""
    m = ctx.math
    a, pinv = ctx.saved["self"], ctx.saved["result"]
    rows, cols = a.shape
    pinv_h, g_h = _mT(m, pinv), _mT(m, g)
    if rows <= cols:
        k = m.mm(g_h, pinv)
        k_pinv_h = m.mm(k, pinv_h)
        return (
            -_mT(m, m.mm(pinv, k))
            + k_pinv_h
            - m.mm(m.mm(a, pinv), k_pinv_h)
            + m.mm(m.mm(pinv_h, pinv), g_h - m.mm(k, a))
        )
    k = m.mm(pinv, g_h)
    pinv_h_k = m.mm(pinv_h, k)
    return (
        -_mT(m, m.mm(k, pinv))
        + m.mm(m.mm(g_h - m.mm(a, k), pinv), pinv_h)
        + pinv_h_k
        - m.mm(m.mm(pinv_h_k, pinv), a)
    )


PINV = declare(
    "linalg_pinv",
    "LinalgPinvBackward0",
    ("self",),
    on_host(_pinv_fwd),
    _pinv_grad,
    dtype="same",
    save={"self": None, "result": None},
    samples=(Sample(((3, 2),), distinct=True), Sample(((2, 3),), distinct=True)),
)


@public(
    "pinv",
    ("A",),
    (
        Param("atol", "optional_number"),
        Param("rtol", "optional_number"),
        Param("hermitian", "bool"),
    ),
    namespace=LINALG,
    category="linear algebra",
    doc="Moore-Penrose pseudo-inverse",
    method=False,
    example=Example(inputs={"A": (3, 2)}),
)
def pinv(A: Any, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Any:  # noqa: N803
    """``torch.linalg.pinv`` of one matrix (default tolerance ``eps * max(m, n)``)."""
    if A.ndim != 2:
        if A.ndim < 2:
            raise RuntimeError(
                "linalg.pinv(A): The input tensor A must have at least 2 dimensions."
            )
        raise NotImplementedError(
            "linalg.pinv of a batch of matrices is not supported by the engine"
        )
    if atol is not None or rtol is not None:
        raise NotImplementedError("linalg.pinv with atol/rtol is not supported by the engine")
    return apply_op(PINV, (A,))


@public(
    "pinverse",
    ("input",),
    category="linear algebra",
    doc="Moore-Penrose pseudo-inverse",
    example=Example(inputs={"input": (3, 2)}),
)
def pinverse(input: Any, rcond: float = 1e-15) -> Any:  # noqa: A002
    """``torch.pinverse``: ``linalg.pinv`` (its default ``rcond`` is ``1e-15``)."""
    if input.ndim != 2:
        raise NotImplementedError("pinverse of a batch of matrices is not supported by the engine")
    return apply_op(PINV, (input,))


# -- lstsq ----------------------------------------------------------------------------------
def _lstsq_fwd(xp: Any, a: Any, b: Any) -> tuple[Any, Any]:
    solution = np.linalg.lstsq(a, b, rcond=None)[0].astype(np.result_type(a, b))
    return solution, np.zeros((0,), solution.dtype)


def _lstsq_grads(ctx: Any, g: Any, _g_residuals: Any = None) -> tuple[Any, Any]:
    """``linalg_lstsq_backward``: through ``pinv(A)``: ``A`` by ``pinv_backward`` of
    ``gX Bᵀ``, ``B`` by ``pinv(A)ᵀ gX``."""
    m = ctx.math
    a, b = ctx.saved["self"], ctx.saved["b"]
    pinv = m.linalg_pinv(a)
    vector = b.ndim == 1
    gx = m.unsqueeze(g, dim=1) if vector else g
    bb = m.unsqueeze(b, dim=1) if vector else b
    grad_a = grad_b = None
    if ctx.needs[0]:
        view = SimpleNamespace(saved={"self": a, "result": pinv}, math=m)
        grad_a = _pinv_grad(view, m.mm(gx, _mT(m, bb)))
    if ctx.needs[1]:
        grad_b = m.mm(_mT(m, pinv), gx)
        grad_b = m.squeeze_dim(grad_b, dim=1) if vector else grad_b
    return grad_a, grad_b


LSTSQ = declare(
    "linalg_lstsq",
    "LinalgLstsqBackward0",
    ("self", "b"),
    on_host(_lstsq_fwd),
    _lstsq_grads,
    outputs=2,
    every_output=True,
    save={"self": None, "b": None},
    samples=(Sample(((3, 2), (3, 2)), distinct=True),),
)


class linalg_lstsq_type(tuple):  # noqa: N801  (PyTorch's class name)
    """``torch.return_types.linalg_lstsq``: solution, residuals, rank, singular values."""

    __slots__ = ()
    __module__ = "torch.return_types"
    _fields = ("solution", "residuals", "rank", "singular_values")

    def __new__(cls, *parts: Any) -> linalg_lstsq_type:
        return tuple.__new__(cls, parts)

    solution = property(lambda self: self[0])
    residuals = property(lambda self: self[1])
    rank = property(lambda self: self[2])
    singular_values = property(lambda self: self[3])

    def __repr__(self) -> str:
        body = ",\n".join(f"{k}={v!r}" for k, v in zip(self._fields, self, strict=True))
        return f"torch.return_types.linalg_lstsq(\n{body})"


linalg_lstsq_type.__name__ = linalg_lstsq_type.__qualname__ = "linalg_lstsq"


@public(
    "lstsq",
    ("A", "B"),
    namespace=LINALG,
    outputs=("solution", "residuals", "rank", "singular_values"),
    category="linear algebra",
    doc="least-squares solution of A X = B",
    method=False,
    example=Example(inputs={"A": (3, 2), "B": (3, 2)}),
)
def lstsq(A: Any, B: Any, rcond: Any = None, *, driver: Any = None) -> Any:  # noqa: N803
    """``torch.linalg.lstsq`` with the CPU default driver (``gelsy``): the solution, empty
    residuals and singular values, and the rank."""

    if A.ndim != 2 or B.ndim not in (1, 2):
        raise NotImplementedError(
            "linalg.lstsq of batches of matrices is not supported by the engine"
        )
    if A.shape[0] != B.shape[0]:
        raise RuntimeError(
            "torch.linalg.lstsq: input.size(-2) should match other.size(-2)"
            if B.ndim == 2
            else "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1"
        )
    solution, residuals = apply_op(LSTSQ, (A, B))
    rank = _rank(A)  # LAPACK's, written once: version 0
    empty = Tensor._wrap(array_module(A._data).zeros((0,), A._data.dtype))
    return linalg_lstsq_type(solution, residuals, rank, empty)


# -- qr -------------------------------------------------------------------------------------
def _qr_fwd(xp: Any, a: Any, mode: str = "reduced") -> tuple[Any, Any]:
    q, r = np.linalg.qr(a, mode=mode)
    return q.astype(a.dtype), r.astype(a.dtype)


def _qr_grads(ctx: Any, g_q: Any, g_r: Any = None) -> Any:
    """``linalg_qr_backward`` for ``m >= n``: ``X = triu(gR Rᵀ - Qᵀ gQ)``, then
    ``gA = (gQ + Q (X + Xᵀ - diag X)) R^{-T}`` (computed on arrays)."""
    a = data_of(ctx, ctx.saved["A"])
    xp = array_module(a)
    host = a if xp is np else xp.asnumpy(a)
    rows, cols = host.shape
    if rows < cols or ctx.params.get("mode", "reduced") != "reduced":
        raise NotImplementedError(
            "The derivative of linalg.qr is only implemented in the engine for mode='reduced' "
            "and at least as many rows as columns"
        )
    q, r = np.linalg.qr(host)

    def arr(t: Any) -> Any:
        if t is None:
            return None
        d = data_of(ctx, t)
        return d if xp is np else xp.asnumpy(d)

    gq, gr = arr(g_q), arr(g_r)
    x = np.zeros((cols, cols)) if gr is None else gr @ r.T
    if gq is not None:
        x = x - q.T @ gq
    x = np.triu(x)
    sym = x + x.T - np.diag(np.diag(x))
    ga = q @ sym if gq is None else gq + q @ sym
    out = np.linalg.solve(r, ga.T).T.astype(host.dtype)
    out = out if xp is np else xp.asarray(out)
    return out if ctx.math is ARRAY_MATH else type(ctx.saved["A"])._wrap(out)


QR = declare(
    "linalg_qr",
    "LinalgQrBackward0",
    ("A",),
    on_host(_qr_fwd),
    _qr_grads,
    dtype="same",
    outputs=2,
    every_output=True,
    save={"A": None},
    samples=(Sample(((3, 2),), distinct=True),),
)


class linalg_qr_type(tuple):  # noqa: N801  (PyTorch's class name)
    """``torch.return_types.linalg_qr``: ``(Q, R)``."""

    __slots__ = ()
    __module__ = "torch.return_types"

    def __new__(cls, Q: Any, R: Any) -> linalg_qr_type:  # noqa: N803
        return tuple.__new__(cls, (Q, R))

    Q = property(lambda self: self[0])
    R = property(lambda self: self[1])

    def __repr__(self) -> str:
        return f"torch.return_types.linalg_qr(\nQ={self[0]!r},\nR={self[1]!r})"


linalg_qr_type.__name__ = linalg_qr_type.__qualname__ = "linalg_qr"


@public(
    "qr",
    ("A",),
    (Param("mode", "str", choices=("reduced", "complete")),),
    namespace=LINALG,
    outputs=("Q", "R"),
    category="linear algebra",
    doc="QR decomposition: orthonormal Q, upper-triangular R",
    method=False,
    example=Example(inputs={"A": (3, 2)}),
)
def qr(A: Any, mode: str = "reduced") -> Any:  # noqa: N803
    """``torch.linalg.qr`` of one matrix (``'reduced'`` or ``'complete'``)."""
    if mode not in ("reduced", "complete"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    if A.ndim != 2:
        raise NotImplementedError("linalg.qr of a batch of matrices is not supported by the engine")
    return linalg_qr_type(*apply_op(QR, (A,), {"mode": mode} if mode != "reduced" else {}))
