"""``tensordot``: ATen's composite (no node of its own), so its graph is PyTorch's: each
operand permuted (contracted dimensions last for the first, first for the second), reshaped
to a matrix, one ``mm``, and the product reshaped to the free dimensions."""

from __future__ import annotations

import math
from typing import Any

from engine.catalog import Param, public


def _dims_lists(a: Any, b: Any, dims: Any) -> tuple[list[int], list[int]]:
    """``dims=n`` (the last n of ``a`` with the first n of ``b``), a pair of lists or ints,
    or a tensor of either, as ``torch.functional.tensordot`` reads them."""
    if hasattr(dims, "_data"):
        dims = dims.tolist()
    if isinstance(dims, list | tuple):
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of dimension lists")
        dims_a, dims_b = dims
        return (
            [dims_a] if isinstance(dims_a, int) else list(dims_a),
            [dims_b] if isinstance(dims_b, int) else list(dims_b),
        )
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    raise RuntimeError(f"tensordot expects dims to be an int or a pair of lists, got {dims!r}")


@public(
    "tensordot",
    ("a", "b"),
    (Param("dims", "int"),),
    category="linear algebra",
    doc="sum of products over the paired dimensions",
    method=False,
)
def tensordot(a: Any, b: Any, dims: Any = 2) -> Any:
    """``at::tensordot``: a size-1 contracted dimension against a larger one is summed
    first, the sizes must otherwise match, and the permutation keeps the dims as given
    (``dims=2`` permutes by ``(0, -2, -1)``, which the node's ``_saved_dims`` shows)."""
    dims_a, dims_b = _dims_lists(a, b, dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    t1, t2 = a, b
    csize = 1
    for d1, d2 in zip(dims_a, dims_b, strict=True):
        s1, s2 = a.shape[d1], b.shape[d2]
        if s2 == 1:
            t1 = t1.sum(d1, True)
        elif s1 == 1:
            t2 = t2.sum(d2, True)
        elif s1 != s2:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {s1} in dim {d1} "
                f"and second has size {s2} in dim {d2}"
            )
        csize *= t1.shape[d1]
    contracted_a = {d % a.dim() for d in dims_a}
    contracted_b = {d % b.dim() for d in dims_b}
    free_a = [i for i in range(a.dim()) if i not in contracted_a]
    free_b = [i for i in range(b.dim()) if i not in contracted_b]
    rsizes = [t1.shape[i] for i in free_a] + [t2.shape[i] for i in free_b]
    size1 = math.prod(t1.shape[i] for i in free_a)
    size2 = math.prod(t2.shape[i] for i in free_b)
    if not free_a and not free_b:  # a full contraction: ATen's one dot of two vectors
        v1 = t1.permute(*dims_a).reshape(csize)
        return v1.dot(t2.permute(*dims_b).reshape(csize)).reshape(rsizes)
    m1 = t1.permute(*free_a, *dims_a).reshape(size1, csize)
    m2 = t2.permute(*dims_b, *free_b).reshape(csize, size2)
    return m1.mm(m2).reshape(rsizes)
