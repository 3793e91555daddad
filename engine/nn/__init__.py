"""``engine.nn``: layers, parameters, containers and losses, as ``torch.nn`` has them."""

from engine.nn import functional, init, utils
from engine.nn.modules import *  # noqa: F403
from engine.nn.modules import __all__ as _modules_all
from engine.nn.parameter import Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    "Parameter",
    "UninitializedBuffer",
    "UninitializedParameter",
    "functional",
    "init",
    "utils",
    *_modules_all,
]

#: Layers of ``torch.nn`` that real programs use and the engine does not implement: asking
#: for one says so by name (still an ``AttributeError``, so ``hasattr`` answers False).
_UNSUPPORTED = {
    **dict.fromkeys(("BatchNorm3d", "Conv3d"), "these layers"),
    **dict.fromkeys(("AdaptiveMaxPool2d",), "these layers"),
}


def __getattr__(name: str) -> object:
    if name in _UNSUPPORTED:
        raise AttributeError(
            f"module 'engine.nn' has no attribute '{name}': torch.nn.{name} "
            f"({_UNSUPPORTED[name]}) is not supported by the engine"
        )
    raise AttributeError(f"module 'engine.nn' has no attribute '{name}'")
