"""``engine.cuda``: whether CUDA tensors can be used here, and why not."""

from engine.backend import cuda_available, cuda_unavailable_reason


def is_available() -> bool:
    return cuda_available()


def unavailable_reason() -> str:
    """Plain words for a UI tooltip when ``is_available()`` is False."""
    return cuda_unavailable_reason()


def device_count() -> int:
    return 1 if cuda_available() else 0


__all__ = ["device_count", "is_available", "unavailable_reason"]
