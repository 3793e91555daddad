"""``engine.linalg``: the vector norms of ``torch.linalg``, ``solve`` and ``inv``."""

from engine.ops.inverse import inv
from engine.ops.norms import linalg_norm as norm
from engine.ops.norms import vector_norm
from engine.ops.solve import solve

__all__ = ["inv", "norm", "solve", "vector_norm"]
