"""Matrix products: mm, mv, dot, bmm, addmm, and ``matmul`` composed from them.

``matmul`` is written the way ATen composes it, so the ``grad_fn`` a learner
sees (``MmBackward0``, ``UnsafeViewBackward0``, ``SqueezeBackward4`` ...) is
the one PyTorch would show.
"""

from __future__ import annotations

from typing import Any

from engine.catalog import Param, Port, public
from engine.ops.core import Sample, apply_op, declare


def _t(m: Any, x: Any) -> Any:
    return m.transpose(x, dim0=-1, dim1=-2)


def _check_mm(xp: Any, a: Any, b: Any) -> Any:
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


MM = declare(
    "mm",
    "MmBackward0",
    ("self", "mat2"),
    _check_mm,
    lambda c, g: (
        c.m.mm(g, _t(c.m, c.s["mat2"])) if c.needs[0] else None,
        c.m.mm(_t(c.m, c.s["self"]), g) if c.needs[1] else None,
    ),
    save={"self": ("mat2",), "mat2": ("self",)},
    samples=(Sample(((2, 3), (3, 4))),),
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
    lambda c, g: (
        c.m.mm(c.m.unsqueeze(g, dim=1), c.m.unsqueeze(c.s["vec"], dim=0)) if c.needs[0] else None,
        c.m.mv(_t(c.m, c.s["self"]), g) if c.needs[1] else None,
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
    lambda c, g: (
        g * c.s["tensor"] if c.needs[0] else None,
        g * c.s["self"] if c.needs[1] else None,
    ),
    save={"self": ("tensor",), "tensor": ("self",)},
    samples=(Sample(((3,), (3,))),),
)
BMM = declare(
    "bmm",
    "BmmBackward0",
    ("self", "mat2"),
    lambda xp, a, b: xp.matmul(a, b),
    lambda c, g: (
        c.m.bmm(g, _t(c.m, c.s["mat2"])) if c.needs[0] else None,
        c.m.bmm(_t(c.m, c.s["self"]), g) if c.needs[1] else None,
    ),
    save={"self": ("mat2",), "mat2": ("self",)},
    samples=(Sample(((2, 2, 3), (2, 3, 4))),),
)


def _addmm_fwd(xp: Any, bias: Any, a: Any, b: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    out = _check_mm(xp, a, b)
    if alpha != 1:
        out = out * alpha
    return out + bias if beta == 1 else out + beta * bias


ADDMM = declare(
    "addmm",
    "AddmmBackward0",
    ("self", "mat1", "mat2"),
    _addmm_fwd,
    lambda c, g: (
        (g if c.p.get("beta", 1) == 1 else g * c.p["beta"]) if c.needs[0] else None,
        _scale(c.m.mm(g, _t(c.m, c.s["mat2"])), c.p.get("alpha", 1)) if c.needs[1] else None,
        _scale(c.m.mm(_t(c.m, c.s["mat1"]), g), c.p.get("alpha", 1)) if c.needs[2] else None,
    ),
    save={"mat1": ("mat2",), "mat2": ("mat1",)},
    samples=(Sample(((4,), (2, 3), (3, 4))), Sample(((2, 4), (2, 3), (3, 4)))),
)


def _scale(x: Any, a: Any) -> Any:
    return x if a == 1 else x * a


@public("mm", ("input", "mat2"), category="linear algebra", doc="matrix product of two 2-D tensors")
def mm(input: Any, mat2: Any) -> Any:  # noqa: A002
    return apply_op(MM, (input, mat2))


@public("mv", ("input", "vec"), category="linear algebra", doc="matrix-vector product")
def mv(input: Any, vec: Any) -> Any:  # noqa: A002
    return apply_op(MV, (input, vec))


@public("dot", ("input", "tensor"), category="linear algebra", doc="dot product of 1-D tensors")
def dot(input: Any, tensor: Any) -> Any:  # noqa: A002
    return apply_op(DOT, (input, tensor))


@public("bmm", ("input", "mat2"), category="linear algebra", doc="batched matrix product (3-D)")
def bmm(input: Any, mat2: Any) -> Any:  # noqa: A002
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    return apply_op(BMM, (input, mat2))


@public(
    "addmm",
    (Port("input"), "mat1", "mat2"),
    (Param("beta", "number", 1), Param("alpha", "number", 1)),
    category="linear algebra",
    doc="beta * input + alpha * (mat1 @ mat2)",
)
def addmm(input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:  # noqa: A002
    params = {} if beta == 1 and alpha == 1 else {"beta": beta, "alpha": alpha}
    return apply_op(ADDMM, (input, mat1, mat2), params)


@public(
    "matmul", ("input", "other"), category="linear algebra", doc="matrix product with broadcasting"
)
def matmul(input: Any, other: Any) -> Any:  # noqa: A002
    from engine.ops import shape as sh

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
        return sh.squeeze(mm(sh.unsqueeze(a, 0), b), (0,))
    if da == 2 and db == 2:
        return mm(a, b)
    if da >= 3 and db in (1, 2):
        # Fold the batch into rows: one mm (or mv), then an unsafe view back.
        lead = tuple(a.shape[:-1])
        folded = sh.reshape(a, (-1, a.shape[-1]))
        out = mv(folded, b) if db == 1 else mm(folded, b)
        return sh.unsafe_view(out, lead if db == 1 else (*lead, b.shape[-1]))
    if da in (1, 2) and db >= 3 and da == 1:
        lead = tuple(b.shape[:-2])
        bt = sh.transpose(b, -1, -2)
        folded = sh.reshape(bt, (-1, bt.shape[-1]))
        out = mv(folded, a)
        return sh.unsafe_view(out, (*lead, b.shape[-1]))
    if da == 2 and db >= 3:
        # ATen computes (b^T @ a^T)^T and makes it contiguous.
        return sh.contiguous(sh.transpose(matmul(sh.transpose(b, -1, -2), sh.t(a)), -1, -2))
    # Both batched: broadcast batch dims, bmm, unsafe view back.
    import numpy as np

    n, m_, p = a.shape[-2], a.shape[-1], b.shape[-1]
    if b.shape[-2] != m_:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{int(np.prod(b.shape[:-2]))}, {m_}] but got: [{int(np.prod(b.shape[:-2]))}, "
            f"{b.shape[-2]}]."
        )
    batch = tuple(np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2])))
    ea = a if tuple(a.shape[:-2]) == batch else sh.expand(a, (*batch, n, m_))
    eb = b if tuple(b.shape[:-2]) == batch else sh.expand(b, (*batch, m_, p))
    bsz = int(np.prod(batch))
    ra = ea if ea.ndim == 3 and ea.shape[0] == bsz else sh.reshape(ea, (bsz, n, m_))
    rb = eb if eb.ndim == 3 and eb.shape[0] == bsz else sh.reshape(eb, (bsz, m_, p))
    out = bmm(ra, rb)
    return sh.unsafe_view(out, (*batch, n, p))
