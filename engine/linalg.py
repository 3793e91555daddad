"""``engine.linalg``: the vector norms of ``torch.linalg`` and ``solve``."""

from engine.ops.norms import linalg_norm as norm
from engine.ops.norms import vector_norm
from engine.ops.solve import solve

__all__ = ["norm", "solve", "vector_norm"]
