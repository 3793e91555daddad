"""Process-wide defaults: the dtype of new floating-point tensors (and of Python
floats mixed with integer tensors) and the device of new tensors."""

from __future__ import annotations

from typing import Any

from engine import backend, dtypes


def set_default_dtype(d: Any) -> None:
    dt = dtypes.as_dtype(d)
    if dt not in (dtypes.float32, dtypes.float64, dtypes.float16):
        raise TypeError("only floating-point types are supported as the default type")
    dtypes.DEFAULT_FLOAT = dt


def get_default_dtype() -> dtypes.dtype:
    return dtypes.DEFAULT_FLOAT


def set_default_device(device: Any) -> None:
    """New tensors go to ``device`` (``None`` restores the CPU)."""
    backend.DEFAULT_DEVICE = backend.CPU if device is None else backend.to_device(device)


def get_default_device() -> backend.device:
    return backend.DEFAULT_DEVICE
