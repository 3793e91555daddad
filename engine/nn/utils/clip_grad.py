"""Gradient clipping as PyTorch 2.x does it on the CPU: the norm of the per-gradient
norms, a clip coefficient clamped to 1 and always applied (so every ``.grad`` is
written once, and its version advances, even when nothing was too large)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from typing import Any

from engine.creation import tensor
from engine.grad_mode import no_grad
from engine.ops.norms import vector_norm
from engine.ops.shape import stack
from engine.tensor import Tensor


def _grads(parameters: Any) -> list[Tensor]:
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in params if p.grad is not None]


def clip_grad_norm_(
    parameters: Iterable[Tensor] | Tensor,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    grads = _grads(parameters)
    norm_type = float(norm_type)
    if not grads:
        return tensor(0.0)
    with no_grad():
        norms = [vector_norm(g, norm_type) for g in grads]
        total = vector_norm(stack(norms), norm_type)
        if error_if_nonfinite and not math.isfinite(float(total)):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
            )
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.device))
    return total


def clip_grad_value_(
    parameters: Iterable[Tensor] | Tensor, clip_value: float, foreach: bool | None = None
) -> None:
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value)
            g.clamp_(max=clip_value)


def clip_grad_norm(
    parameters: Iterable[Tensor] | Tensor,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The old name of ``clip_grad_norm_``, which PyTorch still accepts with a FutureWarning."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)
