"""``torch.linalg.solve`` for one square system (``LinalgSolveExBackward0``)."""

from __future__ import annotations

from typing import Any

from engine.backend import to_numpy
from engine.catalog import Example, Param, public
from engine.messages import LinAlgError
from engine.ops.core import Sample, apply_op, declare

LINALG = "torch.linalg"


def _forward(xp: Any, a: Any, b: Any) -> Any:
    return xp.linalg.solve(a, b).astype(a.dtype)


def _grads(ctx: Any, g: Any) -> tuple[Any, Any]:
    """``gB = A^-T g`` and ``gA = -gB X^T``; a vector B is solved as one column, so the
    graph has PyTorch's unsqueeze/squeeze nodes."""
    m = ctx.math
    a_t = m.transpose(ctx.saved["A"], dim0=0, dim1=1)
    x = ctx.saved["result"]
    vector = x.ndim == 1
    g_b = m.linalg_solve(a_t, m.unsqueeze(g, dim=1) if vector else g)
    col = m.unsqueeze(x, dim=1) if vector else x
    g_a = -m.mm(g_b, m.transpose(col, dim0=0, dim1=1)) if ctx.needs[0] else None
    if vector and ctx.needs[1]:
        g_b = m.squeeze_dim(g_b, dim=1)
    return (g_a, g_b if ctx.needs[1] else None)


SOLVE = declare(
    "linalg_solve",
    "LinalgSolveExBackward0",
    ("A", "B"),
    _forward,
    _grads,
    dtype="float",
    save={"A": None, "result": None},
    samples=(Sample(((3, 3), (3,)), distinct=True), Sample(((2, 2), (2, 3)), distinct=True)),
)


@public(
    "solve",
    ("A", "B"),
    (Param("left", "bool"),),
    namespace=LINALG,
    category="linear algebra",
    doc="the solution X of A X = B",
    method=False,
    example=Example(inputs={"A": (3, 3), "B": (3, 2)}),
)
def solve(A: Any, B: Any, *, left: bool = True) -> Any:  # noqa: N803  (PyTorch's names)
    """The solution X of ``A X = B`` for a square, invertible ``A`` (no batches)."""
    if not left:
        raise NotImplementedError("linalg.solve(left=False) is not supported")
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise RuntimeError(
            "linalg.solve: A must be batches of square matrices, "
            f"but they are {A.shape[-2] if A.ndim > 1 else 1} by {A.shape[-1]} matrices"
        )
    if B.ndim not in (1, 2) or B.shape[0] != A.shape[0]:
        raise RuntimeError("linalg.solve: Incompatible shapes of A and B for the equation AX = B")
    import numpy as np

    if np.linalg.matrix_rank(to_numpy(A._data)) < A.shape[0]:
        raise LinAlgError(
            "torch.linalg.solve: The solver failed because the input matrix is singular."
        )
    return apply_op(SOLVE, (A, B))
