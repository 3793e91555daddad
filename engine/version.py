"""``torch.version``: what the build is. The engine is no CUDA or ROCm build of PyTorch (its
GPU path is CuPy), so ``torch.version.cuda`` is None, as on PyTorch's CPU wheels."""

from __future__ import annotations

__version__ = "2.13.0+engine"
cuda: str | None = None
hip: str | None = None
debug = False

__all__ = ["cuda", "debug", "hip"]
