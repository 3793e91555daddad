"""Vector norms: ``linalg.vector_norm``, and ``norm`` / ``Tensor.norm`` /
``linalg.norm`` for vectors, which PyTorch routes to it (``LinalgVectorNormBackward0``).
"""

from __future__ import annotations

import math
from typing import Any

from engine.catalog import Param, public
from engine.ops.core import ARRAY_MATH, Sample, apply_op, declare
from engine.ops.reduce import _norm_dims

LINALG = "torch.linalg"

INF = math.inf


def _vector_norm_fwd(
    xp: Any, a: Any, ord: float = 2.0, dims: Any = None, keepdim: bool = False
) -> Any:  # noqa: A002
    axis = dims
    x = xp.abs(a)
    if ord == INF:
        return xp.amax(x, axis=axis, keepdims=keepdim)
    if ord == -INF:
        return xp.amin(x, axis=axis, keepdims=keepdim)
    if ord == 0:
        return xp.sum(x != 0, axis=axis, keepdims=keepdim).astype(a.dtype)
    if ord == 1:
        return xp.sum(x, axis=axis, keepdims=keepdim)
    if ord == 2:
        return xp.sqrt(xp.sum(x * x, axis=axis, keepdims=keepdim))
    return xp.sum(x**ord, axis=axis, keepdims=keepdim) ** (1.0 / ord)


def _vector_norm_grad(ctx: Any, g: Any) -> Any:
    """``norm_backward``, branch by branch, so ``create_graph`` records PyTorch's nodes:
    zero where the norm is zero, ties share the gradient for the inf norms."""
    x, norm = ctx.saved["self"], ctx.saved["result"]
    ord = ctx.params.get("ord", 2.0)  # noqa: A001
    m = ctx.math
    dims, keepdim = ctx.params.get("dims"), ctx.params.get("keepdim", False)
    if dims is not None and not keepdim:
        for d in sorted(dims):
            g = m.unsqueeze(g, dim=d)
            norm = m.unsqueeze(norm, dim=d)
    if ord == 0:
        return x * 0
    if ord == 1:
        return m.sgn(x) * g
    if ord in (INF, -INF):
        ax = m.abs(x)
        mask = m.logical_or(m.eq(ax, norm), m.isnan(ax))
        count = (
            m.sum_dim(mask, dims=dims if dims is not None else tuple(range(x.ndim)), keepdim=True)
            if x.ndim
            else 1
        )
        return m.sgn(x) * ((g / count) * mask)
    norm_zero = (norm if m is ARRAY_MATH else norm._data) == 0
    if ord == 2:
        return g * m.masked_fill(x / norm, mask=norm_zero, value=0)
    if ord < 1:
        x_zero = (x if m is ARRAY_MATH else x._data) == 0
        scaled = m.sgn(x) * m.masked_fill(m.pow(m.abs(x), exponent=ord - 1), mask=x_zero, value=0)
        return scaled * g * m.pow(norm, exponent=1 - ord)
    if ord < 2:
        scaled = m.sgn(x) * m.pow(m.abs(x), exponent=ord - 1)
    else:
        scaled = x * m.pow(m.abs(x), exponent=ord - 2)
    return scaled * m.masked_fill(g / m.pow(norm, exponent=ord - 1), mask=norm_zero, value=0)


VECTOR_NORM = declare(
    "linalg_vector_norm",
    "LinalgVectorNormBackward0",
    ("self",),
    _vector_norm_fwd,
    _vector_norm_grad,
    dtype="same",
    save={"self": None, "result": None},
    samples=(
        Sample(((2, 3),), distinct=True),
        Sample(((2, 3),), {"ord": 1.0}, distinct=True),
        Sample(((2, 3),), {"ord": 3.0, "dims": (1,)}, distinct=True),
        Sample(((2, 3),), {"ord": INF}, distinct=True),
        Sample(((2, 3),), {"dims": (0,), "keepdim": True}, distinct=True),
    ),
    quiet=True,
)


@public(
    "vector_norm",
    ("x",),
    (Param("ord", "number"), Param("dim", "dims"), Param("keepdim", "bool")),
    namespace=LINALG,
    category="linear algebra",
    doc="the ord-norm of the elements, over all or along dim",
    method=False,
)
def vector_norm(
    x: Any,
    ord: float = 2,  # noqa: A002
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Any:
    if dtype is not None:
        x = x.to(dtype)
    if not x.dtype.is_floating_point:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {x.dtype.scalar_name}"
        )
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord}")
    params: dict[str, Any] = {"ord": float(ord), "keepdim": keepdim}
    if dim is not None:
        params["dims"] = _norm_dims(dim, x.ndim)
    elif keepdim:
        params["dims"] = tuple(range(x.ndim))
    if x.numel() == 0 and float(ord) < 0:
        raise RuntimeError(
            "linalg.vector_norm cannot compute the "
            f"{ord} norm on an empty tensor because the operation does not have an identity"
        )
    return apply_op(VECTOR_NORM, (x,), params)


@public(
    "norm",
    ("input",),
    (
        Param("p", "optional_number", 2.0),
        Param("dim", "dims"),
        Param("keepdim", "bool"),
    ),
    category="reduction",
    doc="vector norm (2-norm by default)",
)
def norm(
    input: Any, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None
) -> Any:  # noqa: A002
    """``torch.norm``: Frobenius and numeric p-norms are vector norms over ``dim``."""
    if p == "nuc":
        raise NotImplementedError("norm(p='nuc') (nuclear norm) is not supported")
    if p is None or p == "fro":
        p = 2
        if dim is not None and not isinstance(dim, int) and len(dim) > 2:
            raise RuntimeError(
                f"linalg.matrix_norm: dim must be a 2-tuple. Got {', '.join(map(str, dim))}"
            )
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


@public(
    "norm",
    ("input",),
    (Param("ord", "optional_number"), Param("dim", "dims"), Param("keepdim", "bool")),
    namespace=LINALG,
    category="linear algebra",
    doc="the vector 2-norm (or ord-norm) of the elements, Frobenius for matrices",
    method=False,
)
def linalg_norm(
    input: Any,  # noqa: A002
    ord: Any = None,  # noqa: A002
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Any:
    """``torch.linalg.norm`` for vectors (and the Frobenius norm of matrices)."""
    if ord is None or ord == "fro":
        return vector_norm(input, 2, dim, keepdim, dtype=dtype)
    if input.ndim == 1 or (dim is not None and (isinstance(dim, int) or len(dim) == 1)):
        return vector_norm(input, ord, dim, keepdim, dtype=dtype)
    raise NotImplementedError(
        f"linalg.norm(ord={ord!r}) of a matrix (a matrix norm) is not supported"
    )
