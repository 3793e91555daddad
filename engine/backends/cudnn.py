"""``torch.backends.cudnn`` as a build without cuDNN has it: the flags at their defaults,
settable, and ``is_available()`` false, as the engine's CUDA path uses CuPy, not cuDNN."""

enabled: bool = True
benchmark: bool = False
deterministic: bool = False
allow_tf32: bool = True
benchmark_limit: int = 10


def is_available() -> bool:
    return False


def version() -> None:
    """The cuDNN version, which a build without it reports as ``None``."""
    return None


__all__ = [
    "allow_tf32",
    "benchmark",
    "benchmark_limit",
    "deterministic",
    "enabled",
    "is_available",
    "version",
]
