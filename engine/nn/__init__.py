"""``engine.nn``: layers, parameters, containers and losses, as ``torch.nn`` has them."""

from engine.nn import functional, init, utils
from engine.nn.modules import *  # noqa: F403
from engine.nn.modules import __all__ as _modules_all
from engine.nn.parameter import Parameter

__all__ = ["Parameter", "functional", "init", "utils", *_modules_all]
