"""``optim.SGD``: with momentum, dampening, Nesterov, weight decay and ``maximize``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

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
        momentum = group["momentum"]
        buf = state.get("momentum_buffer") if momentum != 0 else None
        if momentum != 0 and buf is None:  # the first step clones the gradient
            g = -grad._data if group["maximize"] else grad._data
            if group["weight_decay"] != 0:
                g = k.add(g, p._data, group["weight_decay"])
            buf = Tensor._wrap(np.array(g) if isinstance(g, np.generic) else g.copy())
            state["momentum_buffer"] = buf
            g = k.add(g, buf._data, momentum) if group["nesterov"] else buf._data
            k.write(p, k.add(p._data, g, -group["lr"]))
            return
        arrays = [p._data, grad._data] if buf is None else [p._data, grad._data, buf._data]
        if _plain(arrays, group):
            wide = np.empty(min(arrays[0].size, k.BLOCK), np.float64)
            for block in k.blocks(arrays):
                _plain_math(*block, wide[: block[0].size].reshape(block[0].shape), group)
        else:
            for block in k.blocks(arrays):
                _sgd_math(block[0], block[1], None if buf is None else block[2], group)
        if buf is not None:
            k.bump(buf, 2)
        k.bump(p)


def _sgd_math(p: Any, grad: Any, buf: Any, group: dict[str, Any]) -> None:
    """``_single_tensor_sgd``'s in-place ops on (a block of) one parameter's arrays,
    the momentum buffer's included: a block stays in cache between the ops."""
    g = -grad if group["maximize"] else grad
    if group["weight_decay"] != 0:
        g = k.add(g, p, group["weight_decay"])
    if buf is not None:
        momentum = group["momentum"]
        buf[...] = k.add(buf * k.c(momentum, g), g, 1 - group["dampening"])
        g = k.add(g, buf, momentum) if group["nesterov"] else buf
    p[...] = k.add(p, g, -group["lr"])


def _plain(arrays: list[Any], group: dict[str, Any]) -> bool:
    """The common configuration on float32 NumPy arrays of one shape, whose ops can
    run in place with one float64 scratch block (the same values as ``_sgd_math``)."""
    return (
        not group["maximize"]
        and group["weight_decay"] == 0
        and group["dampening"] == 0
        and not group["nesterov"]
        and all(
            type(a) is np.ndarray and a.dtype == np.float32 and a.shape == arrays[0].shape
            for a in arrays
        )
    )


def _plain_math(p: Any, grad: Any, *rest: Any) -> None:
    """``buf.mul_(momentum).add_(grad)`` (with momentum), then
    ``p.add_(buf or grad, alpha=-lr)``, whose fused multiply-add is the float64
    product and sum of ``_kernels.add``, rounded once to float32 as it is stored."""
    *bufs, wide, group = rest
    g = grad
    if bufs:
        buf = bufs[0]
        np.multiply(buf, k.c(group["momentum"], buf), out=buf)
        np.add(buf, grad, out=buf)
        g = buf
    np.multiply(g, k.c(-group["lr"], p), out=wide, dtype=np.float64)
    np.add(wide, p, out=wide)
    np.copyto(p, wide, casting="same_kind")
