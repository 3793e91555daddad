"""``optim.ASGD``: SGD that also keeps a running average of the parameters (``ax``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.creation import tensor, zeros_like
from engine.optim import _kernels as k
from engine.optim.optimizer import Optimizer
from engine.tensor import Tensor


class ASGD(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
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
            # unlike the other rules' counters, ASGD's live on the parameter's device
            state["step"] = tensor(0.0, device=p.device)
            state["eta"] = tensor(float(group["lr"]), device=p.device)
            state["mu"] = tensor(1.0, device=p.device)
            state["ax"] = zeros_like(p)
        lr, lambd = group["lr"], group["lambd"]
        g = -grad._data if group["maximize"] else grad._data
        step = k.bump_step(state["step"])
        if group["weight_decay"] != 0:
            g = k.add(g, p._data, group["weight_decay"])
        eta_value = float(state["eta"]._data)
        k.write(p, k.add(p._data * k.c(1 - lambd * eta_value, g), g, -eta_value), 2)
        ax, mu = state["ax"], state["mu"]
        if float(mu._data) != 1:
            k.write(ax, ax._data + (p._data - ax._data) * k.c(float(mu._data), g))
        else:
            k.write(ax, p._data)
        # new values are made as default-dtype tensors, then copied into the state's own
        k.write(state["eta"], tensor(lr / ((1 + lambd * lr * step) ** group["alpha"])).item())
        k.write(mu, tensor(1 / max(1, step - group["t0"])).item())
