"""``torch.backends.mps``: Apple's Metal backend, which the engine has not (``device =
"mps" if torch.backends.mps.is_available() else "cpu"`` picks the CPU, as PyTorch on Linux)."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False


__all__ = ["is_available", "is_built"]
