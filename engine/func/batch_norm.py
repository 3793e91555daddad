"""``replace_all_batch_norm_modules_``: batch norms that keep no running statistics, so a
model can run under ``vmap`` (each slice would otherwise update the same buffers)."""

from __future__ import annotations

from typing import Any

from engine.nn.modules.instancenorm import _InstanceNorm
from engine.nn.modules.normalization import _BatchNorm


def _without_running_stats(module: Any) -> None:
    # PyTorch's instance norms are not ``_BatchNorm``s (the engine's derive from it)
    if (
        isinstance(module, _BatchNorm)
        and not isinstance(module, _InstanceNorm)
        and module.track_running_stats
    ):
        module.running_mean = None
        module.running_var = None
        module.num_batches_tracked = None
        module.track_running_stats = False


def replace_all_batch_norm_modules_(root: Any) -> Any:
    """Every batch norm in ``root`` (itself included) stops tracking running statistics."""
    _without_running_stats(root)
    for module in root.modules():
        _without_running_stats(module)
    return root
