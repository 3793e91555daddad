"""``optim.Rprop``: per-element step sizes grown or shrunk by the sign of successive gradients."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from engine.backend import array_module
from engine.creation import full_like, zeros_like
from engine.optim import _kernels as k
from engine.optim.optimizer import Optimizer
from engine.tensor import Tensor


class Rprop(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
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
            state["prev"] = zeros_like(p)
            state["step_size"] = full_like(grad, group["lr"])
        etaminus, etaplus = group["etas"]
        low, high = group["step_sizes"]
        g = -grad._data if group["maximize"] else grad._data
        k.bump_step(state["step"])
        prev, step_size = state["prev"], state["step_size"]
        xp = np if type(g) is np.ndarray else _module(g)
        sign = xp.sign(g * prev._data)
        # PyTorch assigns through masks in this order; the factors keep NaN signs as NaN
        factor = xp.where(sign > 0, k.c(etaplus, g), sign)
        factor = xp.where(factor < 0, k.c(etaminus, g), factor)
        factor = xp.where(factor == 0, k.c(1, g), factor)
        sizes = xp.minimum(xp.maximum(step_size._data * factor, k.c(low, g)), k.c(high, g))
        k.write(step_size, sizes, 2)
        g = xp.where(factor == k.c(etaminus, g), k.c(0, g), g)
        k.write(p, k.addcmul(p._data, xp.sign(g), step_size._data, -1))
        k.write(prev, g)


def _module(arr: Any) -> Any:
    return array_module(arr)
