"""``optim.NAdam``: Adam with Nesterov momentum, its momentum schedule kept in ``mu_product``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.creation import tensor, zeros_like
from engine.optim import _kernels as k
from engine.optim.optimizer import Optimizer, check_adam_family
from engine.tensor import Tensor


class NAdam(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_adam_family(lr, eps, betas, weight_decay)
        if not momentum_decay >= 0.0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(
        self, p: Tensor, grad: Tensor, group: dict[str, Any], state: dict[str, Any]
    ) -> None:
        if not state:
            state["step"] = k.step_tensor()
            state["mu_product"] = tensor(1.0)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
        beta1, beta2 = group["betas"]
        lr, wd, decay = group["lr"], group["weight_decay"], group["momentum_decay"]
        g = -grad._data if group["maximize"] else grad._data
        step = k.bump_step(state["step"])
        bias_correction2 = 1 - beta2**step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                k.write(p, p._data * k.c(1 - lr * wd, p._data))
            else:
                g = k.add(g, p._data, wd)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
        mu_product = state["mu_product"]
        k.write(mu_product, mu_product._data * k.c(mu, mu_product._data))
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        k.write(exp_avg, k.lerp(exp_avg._data, g, 1 - beta1))
        k.write(exp_avg_sq, k.addcmul(exp_avg_sq._data * k.c(beta2, g), g, g, 1 - beta2), 2)
        denom = k.sqrt(exp_avg_sq._data / k.c(bias_correction2, g)) + k.c(group["eps"], g)
        product = float(mu_product._data)
        product_next = product * mu_next
        out = k.addcdiv(p._data, g, denom, -lr * (1.0 - mu) / (1.0 - product))
        k.write(p, k.addcdiv(out, exp_avg._data, denom, (-lr * mu_next) / (1.0 - product_next)), 2)
