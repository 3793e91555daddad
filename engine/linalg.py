"""``engine.linalg``: the vector norms of ``torch.linalg``."""

from engine.ops.norms import linalg_norm as norm
from engine.ops.norms import vector_norm

__all__ = ["norm", "vector_norm"]
