"""``torch.distributions.utils``: parameters broadcast together, and probabilities and
logits turned into each other exactly as PyTorch composes it (clamped to ``eps``)."""

from __future__ import annotations

from numbers import Number
from typing import Any

import engine
from engine.tensor import Tensor


def broadcast_all(*values: Any) -> tuple[Any, ...]:
    """Tensors broadcast together; numbers become tensors of the first tensor's dtype."""
    if not all(isinstance(v, Tensor | Number) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, "
            "torch.Tensor or objects implementing __torch_function__."
        )
    if not all(isinstance(v, Tensor) for v in values):
        options: dict[str, Any] = {"dtype": engine.get_default_dtype()}
        for value in values:
            if isinstance(value, Tensor):
                options = {"dtype": value.dtype, "device": value.device}
                break
        values = tuple(v if isinstance(v, Tensor) else engine.tensor(v, **options) for v in values)
    return tuple(engine.broadcast_tensors(*values))


def clamp_probs(probs: Any) -> Any:
    eps = engine.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Any, is_binary: bool = False) -> Any:
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return engine.log(ps_clamped) - engine.log1p(-ps_clamped)
    return engine.log(ps_clamped)


def logits_to_probs(logits: Any, is_binary: bool = False) -> Any:
    if is_binary:
        return engine.sigmoid(logits)
    return engine.nn.functional.softmax(logits, dim=-1)


class lazy_property:  # noqa: N801  (PyTorch's name)
    """Computed on first use and then kept on the instance, as PyTorch's ``probs`` and
    ``logits`` are: the one not given is derived from the other only when asked for."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.name = wrapped.__name__

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        with engine.enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.name] = value
        return value
