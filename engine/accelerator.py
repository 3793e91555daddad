"""``torch.accelerator``: the device-neutral way recent programs pick their device,
``torch.accelerator.current_accelerator() if torch.accelerator.is_available() else "cpu"``.

The engine's one accelerator is CUDA through CuPy, so the answers follow ``engine.cuda``:
none here without a GPU, as PyTorch's CPU build answers.
"""

from __future__ import annotations

from engine import cuda
from engine.backend import device

_NONE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    return cuda.is_available()


def device_count() -> int:
    return cuda.device_count()


def current_accelerator(check_available: bool = False) -> device | None:
    """``device(type='cuda')`` where CUDA can be used, else ``None``."""
    return device("cuda") if cuda.is_available() else None


def current_device_index() -> int:
    if not cuda.is_available():
        raise RuntimeError(_NONE)
    return cuda.current_device()


def synchronize(device: object = None) -> None:
    if not cuda.is_available():
        raise RuntimeError(_NONE)
    cuda.synchronize(device)


__all__ = [
    "current_accelerator",
    "current_device_index",
    "device_count",
    "is_available",
    "synchronize",
]
