"""The padding layers over ``F.pad``: constant (and zero), reflection and replication,
for 1, 2 and 3 padded dimensions, with PyTorch's reprs (``padding`` kept as the tuple
of ``2 * n`` sizes an int expands to)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.nn import functional as F
from engine.nn.modules.module import Module
from engine.tensor import Tensor


def _ntuple(padding: Any, n: int) -> tuple[int, ...]:
    """``torch.nn.modules.utils._ntuple``: an iterable as given, else ``n`` copies."""
    return tuple(padding) if isinstance(padding, Iterable) else (padding,) * n


class _ConstantPadNd(Module):
    _sides = 2

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__()
        self.value = value
        self.padding = _ntuple(padding, self._sides)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _sides = 2


class ConstantPad2d(_ConstantPadNd):
    _sides = 4


class ConstantPad3d(_ConstantPadNd):
    _sides = 6


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ModePadNd(Module):
    _sides = 2
    _mode = "reflect"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, self._sides)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ModePadNd):
    _sides = 2


class ReflectionPad2d(_ModePadNd):
    _sides = 4


class ReflectionPad3d(_ModePadNd):
    _sides = 6


class ReplicationPad1d(_ModePadNd):
    _sides = 2
    _mode = "replicate"


class ReplicationPad2d(_ModePadNd):
    _sides = 4
    _mode = "replicate"


class ReplicationPad3d(_ModePadNd):
    _sides = 6
    _mode = "replicate"
