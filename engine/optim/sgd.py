"""``optim.SGD``: with momentum, dampening, Nesterov, weight decay and ``maximize``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.optim import _kernels as k
from engine.optim.optimizer import Optimizer
from engine.tensor import Tensor


class SGD(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        super().add_param_group(param_group)
        param_group.setdefault("nesterov", False)
        param_group.setdefault("maximize", False)

    def _update(
        self, p: Tensor, grad: Tensor, group: dict[str, Any], state: dict[str, Any]
    ) -> None:
        g = -grad._data if group["maximize"] else grad._data
        if group["weight_decay"] != 0:
            g = k.add(g, p._data, group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = Tensor._wrap(g.copy())
                state["momentum_buffer"] = buf
            else:
                k.write(buf, k.add(buf._data * k.c(momentum, g), g, 1 - group["dampening"]), 2)
            g = k.add(g, buf._data, momentum) if group["nesterov"] else buf._data
        k.write(p, k.add(p._data, g, -group["lr"]))
