"""``engine.cuda`` (``torch.cuda``): whether CUDA tensors can be used here, and why not.

One device at most (``cuda:0``): the engine runs CUDA tensors on CuPy's current device.
"""

from engine.backend import cuda_available, cuda_unavailable_reason, cupy_module
from engine.random import cuda_generator


def is_available() -> bool:
    return cuda_available()


def unavailable_reason() -> str:
    """Plain words for a UI tooltip when ``is_available()`` is False."""
    return cuda_unavailable_reason()


def device_count() -> int:
    return 1 if cuda_available() else 0


def current_device() -> int:
    """The index of the current device; PyTorch's error when there is none."""
    cupy_module()
    return 0


def synchronize(device: object = None) -> None:
    """Wait for every kernel queued on the GPU (CuPy runs them asynchronously)."""
    cupy_module().cuda.Device(0).synchronize()


def manual_seed_all(seed: int) -> None:
    """Seed the CUDA generator (the CPU's stream is left alone, as in PyTorch).

    Like PyTorch this is lazy and never fails, even without a GPU.
    """

    cuda_generator.manual_seed(seed)


manual_seed = manual_seed_all

__all__ = [
    "current_device",
    "device_count",
    "is_available",
    "manual_seed",
    "manual_seed_all",
    "synchronize",
    "unavailable_reason",
]
