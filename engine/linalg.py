"""``engine.linalg``: the vector norms of ``torch.linalg``, ``solve``, ``inv`` and the
error they raise on a singular matrix, ``LinAlgError``."""

from engine.messages import LinAlgError
from engine.ops.inverse import inv
from engine.ops.norms import linalg_norm as norm
from engine.ops.norms import vector_norm
from engine.ops.products import linalg_cross as cross
from engine.ops.solve import solve

__all__ = ["LinAlgError", "cross", "inv", "norm", "solve", "vector_norm"]
