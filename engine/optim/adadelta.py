"""``optim.Adadelta``: the optimizer of PyTorch's MNIST example."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.creation import zeros_like
from engine.optim import _kernels as k
from engine.optim.optimizer import Optimizer
from engine.tensor import Tensor


class Adadelta(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(
        self, p: Tensor, grad: Tensor, group: dict[str, Any], state: dict[str, Any]
    ) -> None:
        if not state:
            state["step"] = k.step_tensor()
            state["square_avg"] = zeros_like(p)
            state["acc_delta"] = zeros_like(p)
        rho, eps = group["rho"], group["eps"]
        k.bump_step(state["step"])
        g = -grad._data if group["maximize"] else grad._data
        if group["weight_decay"] != 0:
            g = k.add(g, p._data, group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        k.write(square_avg, k.addcmul(square_avg._data * k.c(rho, g), g, g, 1 - rho), 2)
        std = k.sqrt(square_avg._data + k.c(eps, g))
        delta = k.sqrt(acc_delta._data + k.c(eps, g)) / std * g
        k.write(acc_delta, k.addcmul(acc_delta._data * k.c(rho, g), delta, delta, 1 - rho), 2)
        k.write(p, k.add(p._data, delta, -group["lr"]))
