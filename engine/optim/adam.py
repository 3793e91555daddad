"""``optim.Adam`` and ``optim.AdamW`` (decoupled weight decay), with ``amsgrad``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.creation import zeros_like
from engine.optim import _kernels as k
from engine.optim.optimizer import Optimizer, check_adam_family
from engine.tensor import Tensor


class Adam(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        check_adam_family(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _update(
        self, p: Tensor, grad: Tensor, group: dict[str, Any], state: dict[str, Any]
    ) -> None:
        if not state:
            state["step"] = k.step_tensor()
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(p)
        step = k.bump_step(state["step"])
        best = state.get("max_exp_avg_sq") if group["amsgrad"] else None
        tensors = [p, grad, state["exp_avg"], state["exp_avg_sq"]]
        arrays = [t._data for t in tensors] + ([best._data] if best is not None else [])
        for block in k.blocks(arrays):
            _adam_math(*block[:4], block[4] if best is not None else None, group, step)
        decoupled = group["weight_decay"] != 0 and group["decoupled_weight_decay"]
        k.bump(p, 2 if decoupled else 1)
        k.bump(state["exp_avg"])
        k.bump(state["exp_avg_sq"], 2)
        if best is not None:
            k.bump(best)


def _adam_math(
    p: Any, grad: Any, exp_avg: Any, exp_avg_sq: Any, best: Any, group: dict[str, Any], step: float
) -> None:
    """``_single_tensor_adam``'s in-place ops on (a block of) one parameter's arrays."""
    beta1, beta2 = group["betas"]
    lr, wd = group["lr"], group["weight_decay"]
    g = -grad if group["maximize"] else grad
    if wd != 0:
        if group["decoupled_weight_decay"]:
            p[...] = p * k.c(1 - lr * wd, p)
        else:
            g = k.add(g, p, wd)
    exp_avg[...] = k.lerp(exp_avg, g, 1 - beta1)
    exp_avg_sq[...] = k.addcmul(exp_avg_sq * k.c(beta2, g), g, g, 1 - beta2)
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    step_size = lr / bias_correction1
    second = exp_avg_sq
    if best is not None:
        best[...] = k.maximum(best, second)
        second = best
    denom = k.sqrt(second) / k.c(bias_correction2**0.5, g) + k.c(group["eps"], g)
    p[...] = k.addcdiv(p, exp_avg, denom, -step_size)


class AdamW(Adam):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
