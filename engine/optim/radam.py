"""``optim.RAdam``: Adam whose adaptive step is rectified while its variance estimate is young."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.creation import zeros_like
from engine.optim import _kernels as k
from engine.optim.optimizer import Optimizer, check_adam_family
from engine.tensor import Tensor


class RAdam(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_adam_family(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(
        self, p: Tensor, grad: Tensor, group: dict[str, Any], state: dict[str, Any]
    ) -> None:
        if not state:
            state["step"] = k.step_tensor()
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
        beta1, beta2 = group["betas"]
        lr, wd = group["lr"], group["weight_decay"]
        g = -grad._data if group["maximize"] else grad._data
        step = k.bump_step(state["step"])
        decoupled = wd != 0 and group["decoupled_weight_decay"]
        if decoupled:
            k.write(p, p._data * k.c(1 - lr * wd, p._data))
        elif wd != 0:
            g = k.add(g, p._data, wd)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        k.write(exp_avg, k.lerp(exp_avg._data, g, 1 - beta1))
        k.write(exp_avg_sq, k.addcmul(exp_avg_sq._data * k.c(beta2, g), g, g, 1 - beta2), 2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        update = exp_avg._data / k.c(bias_correction1, g) * k.c(lr, g)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            # ``scalar / tensor`` is ``tensor.reciprocal() * scalar`` in PyTorch
            adaptive = k.c(1, g) / (k.sqrt(exp_avg_sq._data) + k.c(group["eps"], g))
            adaptive = adaptive * k.c(bias_correction2**0.5, g)
            update = update * adaptive * k.c(rect, g)
        k.write(p, p._data - update)
