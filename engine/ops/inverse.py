"""``torch.linalg.inv`` (also ``torch.inverse`` and ``Tensor.inverse``) of one square matrix:
``LinalgInvExBackward0``, whose gradient is ATen's ``-inv^H (grad inv^H)``."""

from __future__ import annotations

from typing import Any

from engine.backend import to_numpy
from engine.catalog import Example, public
from engine.messages import LinAlgError
from engine.ops.core import Sample, apply_op, declare

LINALG = "torch.linalg"


def _grad(ctx: Any, g: Any) -> Any:
    m, inv = ctx.math, ctx.saved["result"]
    inner = m.mm(g, m.transpose(inv, dim0=0, dim1=1))
    return -m.mm(m.transpose(inv, dim0=0, dim1=1), inner)


INV = declare(
    "linalg_inv",
    "LinalgInvExBackward0",
    ("A",),
    lambda xp, a: xp.linalg.inv(a).astype(a.dtype),
    _grad,
    dtype="float",
    save={"result": None},
    samples=(Sample(((3, 3),), distinct=True),),
)


def check_square(A: Any, name: str) -> None:  # noqa: N803  (PyTorch's names)
    """ATen's checks of one square floating-point matrix (the engine takes no batches)."""
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
            f"{A.shape[-1]} matrices"
        )
    if A.ndim > 2:
        raise NotImplementedError(f"{name} of a batch of matrices is not supported by the engine")
    if not A.dtype.is_floating_point:
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got "
            f"{A.dtype.scalar_name}"
        )


def _check(A: Any, name: str) -> None:  # noqa: N803  (PyTorch's names)
    check_square(A, name)

    pivot = _first_zero_pivot(to_numpy(A._data))
    if pivot:
        raise LinAlgError(
            f"{name}: The diagonal element {pivot} is zero, the inversion could not be "
            "completed because the input matrix is singular."
        )


def _first_zero_pivot(a: Any) -> int:
    """LAPACK ``getrf``'s ``info``: the 1-based column of the first exactly zero pivot of
    an LU factorisation with partial pivoting, 0 when there is none."""
    import numpy as np

    u = np.array(a, copy=True)
    n = u.shape[0]
    for k in range(n):
        p = k + int(np.abs(u[k:, k]).argmax())
        if u[p, k] == 0:
            return k + 1
        if p != k:
            u[[k, p]] = u[[p, k]]
        u[k + 1 :, k:] -= np.outer(u[k + 1 :, k] / u[k, k], u[k, k:])
    return 0


@public(
    "inv",
    ("A",),
    namespace=LINALG,
    category="linear algebra",
    doc="inverse of an invertible square matrix",
    method=False,
    example=Example(inputs={"A": (3, 3)}),
)
def inv(A: Any) -> Any:  # noqa: N803
    """The inverse of an invertible square matrix (no batches)."""
    _check(A, "linalg.inv")
    return apply_op(INV, (A,))


@public(
    "inverse",
    ("input",),
    category="linear algebra",
    doc="the matrix inverse",
    example=Example(inputs={"input": (3, 3)}),
)
def inverse(input: Any) -> Any:  # noqa: A002
    _check(input, "linalg.inv")
    return apply_op(INV, (input,))
