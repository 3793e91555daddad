"""``optim.Adamax``: Adam with the infinity norm in place of the second moment."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.creation import zeros_like
from engine.optim import _kernels as k
from engine.optim.optimizer import Optimizer, check_adam_family
from engine.tensor import Tensor


class Adamax(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_adam_family(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(
        self, p: Tensor, grad: Tensor, group: dict[str, Any], state: dict[str, Any]
    ) -> None:
        if not state:
            state["step"] = k.step_tensor()
            state["exp_avg"] = zeros_like(p)
            state["exp_inf"] = zeros_like(p)
        beta1, beta2 = group["betas"]
        g = -grad._data if group["maximize"] else grad._data
        step = k.bump_step(state["step"])
        if group["weight_decay"] != 0:
            g = k.add(g, p._data, group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        k.write(exp_avg, k.lerp(exp_avg._data, g, 1 - beta1))
        # mul_ then maximum(out=exp_inf): two writes
        norm = abs(g) + k.c(group["eps"], g)
        k.write(exp_inf, k.maximum(exp_inf._data * k.c(beta2, g), norm), 2)
        clr = group["lr"] / (1 - beta1**step)
        k.write(p, k.addcdiv(p._data, exp_avg._data, exp_inf._data, -clr))
