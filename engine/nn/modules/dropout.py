"""``Dropout`` (elements) and ``Dropout1d``/``Dropout2d`` (whole channels): zeroed with
probability ``p`` in training mode only."""

from __future__ import annotations

from engine.nn import functional as F
from engine.nn.modules.module import Module
from engine.tensor import Tensor


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    """Zeroes whole channels of ``(N, C, L)`` inputs (``F.dropout1d``)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zeroes whole channels of ``(N, C, H, W)`` inputs (``F.dropout2d``)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout2d(input, self.p, self.training, self.inplace)
