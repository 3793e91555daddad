"""``optim.Adagrad``: its accumulator exists from construction, as in PyTorch."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.creation import full_like
from engine.optim import _kernels as k
from engine.optim.optimizer import Optimizer
from engine.tensor import Tensor


class Adagrad(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not lr_decay >= 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not initial_accumulator_value >= 0.0:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["step"] = k.step_tensor()
                self.state[p]["sum"] = full_like(p, initial_accumulator_value)

    def _update(
        self, p: Tensor, grad: Tensor, group: dict[str, Any], state: dict[str, Any]
    ) -> None:
        g = -grad._data if group["maximize"] else grad._data
        step = k.bump_step(state["step"])
        if group["weight_decay"] != 0:
            g = k.add(g, p._data, group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        total = state["sum"]
        k.write(total, k.addcmul(total._data, g, g, 1))
        std = k.sqrt(total._data) + k.c(group["eps"], g)
        k.write(p, k.addcdiv(p._data, g, std, -clr))
