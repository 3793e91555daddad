"""``optim.RMSprop``: with momentum, ``centered`` and weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.creation import zeros_like
from engine.optim import _kernels as k
from engine.optim.optimizer import Optimizer
from engine.tensor import Tensor


class RMSprop(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not momentum >= 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not alpha >= 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(
        self, p: Tensor, grad: Tensor, group: dict[str, Any], state: dict[str, Any]
    ) -> None:
        if not state:
            state["step"] = k.step_tensor()
            state["square_avg"] = zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = zeros_like(p)
        alpha = group["alpha"]
        g = -grad._data if group["maximize"] else grad._data
        k.bump_step(state["step"])
        if group["weight_decay"] != 0:
            g = k.add(g, p._data, group["weight_decay"])
        square_avg = state["square_avg"]
        k.write(square_avg, k.addcmul(square_avg._data * k.c(alpha, g), g, g, 1 - alpha), 2)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            k.write(grad_avg, k.lerp(grad_avg._data, g, 1 - alpha))
            avg = k.sqrt(k.addcmul(square_avg._data, grad_avg._data, grad_avg._data, -1))
        else:
            avg = k.sqrt(square_avg._data)
        avg = avg + k.c(group["eps"], g)
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            k.write(buf, k.addcdiv(buf._data * k.c(group["momentum"], g), g, avg), 2)
            k.write(p, k.add(p._data, buf._data, -group["lr"]))
        else:
            k.write(p, k.addcdiv(p._data, g, avg, -group["lr"]))
