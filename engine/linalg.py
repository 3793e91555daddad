"""``engine.linalg``: the vector norms of ``torch.linalg``, ``solve``, ``inv`` and the
error they raise on a singular matrix, ``LinAlgError``."""

from engine.messages import LinAlgError
from engine.ops.inverse import inv
from engine.ops.matrix_functions import (
    cholesky,
    det,
    eigh,
    eigvalsh,
    lstsq,
    matrix_norm,
    matrix_power,
    matrix_rank,
    multi_dot,
    pinv,
    qr,
    slogdet,
    svd,
    svdvals,
    vecdot,
)
from engine.ops.norms import linalg_norm as norm
from engine.ops.norms import vector_norm
from engine.ops.products import linalg_cross as cross
from engine.ops.solve import solve

__all__ = [
    "LinAlgError",
    "cholesky",
    "cross",
    "det",
    "eigh",
    "eigvalsh",
    "inv",
    "lstsq",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "vecdot",
    "vector_norm",
]
