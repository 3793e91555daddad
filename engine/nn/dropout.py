"""``F.dropout`` as PyTorch's CPU path computes it (``_dropout_impl``): a noise
tensor from ``bernoulli_(1 - p)`` scaled by ``1 / (1 - p)``, multiplied in, so the
output's ``grad_fn`` is ``MulBackward0`` and the mask uses the generator."""

from __future__ import annotations

from typing import Any

from engine.creation import empty_like, zeros
from engine.ops import random as fills


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:  # noqa: A002
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        noise = zeros((), dtype=input.dtype, device=input.device)
    else:
        noise = fills.bernoulli_(empty_like(input), 1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise
