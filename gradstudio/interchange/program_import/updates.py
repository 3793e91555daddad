"""Parameter updates recorded as the ops that make them (runs in the child, with the recorder).

A program reads ``p.grad`` and updates ``p`` under ``no_grad``; an optimizer does the
same inside ``step()``.  Both become nodes: ``p.grad`` is the catalogue's ``Tensor.grad``
node, and ``SGD.step()`` runs PyTorch's single-tensor rule as recorded public ops
(``p.add_(p.grad, alpha=-lr)``, the momentum buffer's ``mul_``/``add_``, weight decay,
Nesterov, ``maximize``), and ``Adam.step()``/``AdamW.step()`` PyTorch's
``_single_tensor_adam`` (the moments' ``lerp_`` and ``addcmul_``, ``amsgrad``'s
maximum, ``p.addcdiv_``; the bias corrections are Python numbers there too), so the
document reads ``lr``, the moments and the gradient: editing them, or the data, changes
the run; RMSprop and Adagrad likewise.  Optimizers whose rule the engine computes in
its kernels only (Adadelta, NAdam and the others) still record each step as a copy of
the values it wrote.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any

from gradstudio.interchange.program_import.recorder import Recorder


def _package_dirs() -> tuple[str, ...]:
    import engine
    import gradstudio

    return tuple(os.path.dirname(m.__file__ or "") + os.sep for m in (engine, gradstudio))


def read_grad(recorder: Recorder, tensor: Any) -> Any:
    """``tensor.grad`` as a ``Tensor.grad`` node (a new key each read: backward may
    have written it since)."""
    grad = tensor.grad
    if grad is None or id(tensor) not in recorder.keys:
        return grad
    recorder.events.append(
        {
            "kind": "call",
            "function": "Tensor.grad",
            "args": [{"tensor": recorder.key(tensor)}],
            "kwargs": {},
            "line": recorder.line(),
            "no_grad": not recorder.grad_enabled(),
            "out": [recorder.fresh(grad)],
        }
    )
    return grad


#: Engine functions a program calls to work on its gradients: their reads of ``.grad``
#: are the program's (``clip_grad_norm_`` scales each ``p.grad`` in place), so each is a
#: ``Tensor.grad`` node rather than a copy of the values it held.
GRAD_COMPOSITES = (os.path.join("engine", "nn", "utils", "clip_grad.py"),)


def _grad_reads(recorder: Recorder, tensor_type: type) -> None:
    """The program's own reads of ``.grad`` (not the engine's, not the recorder's)."""
    prop = tensor_type.grad
    inside = _package_dirs()

    def get(self: Any) -> Any:
        grad = prop.fget(self)
        if grad is None or recorder.depth or id(self) not in recorder.keys:
            return grad
        reader = sys._getframe(1).f_code.co_filename
        if reader.startswith(inside) and not reader.endswith(GRAD_COMPOSITES):
            return grad
        recorder.depth += 1  # the read below is this one
        try:
            recorder.events.append(
                {
                    "kind": "call",
                    "function": "Tensor.grad",
                    "args": [{"tensor": recorder.key(self)}],
                    "kwargs": {},
                    "line": recorder.line(),
                    "no_grad": not recorder.grad_enabled(),
                    "out": [recorder.fresh(grad)],
                }
            )
        finally:
            recorder.depth -= 1
        return grad

    tensor_type.grad = property(get, prop.fset, prop.fdel)


def _recorded_sgd(optimizer: Any) -> bool:
    """Whether ``optimizer`` is plain ``SGD`` with float hyperparameters: its rule can
    run as the recorded ops of PyTorch's ``_single_tensor_sgd``."""
    from engine.optim.sgd import SGD

    return type(optimizer) is SGD and all(
        isinstance(g[name], int | float) and not isinstance(g[name], bool)
        for g in optimizer.param_groups
        for name in ("lr", "momentum", "dampening", "weight_decay")
    )


def _sgd_step(recorder: Recorder, optimizer: Any) -> None:
    """One ``SGD.step()`` as PyTorch's single-tensor rule, each op recorded."""
    import engine

    with engine.no_grad():
        for group in optimizer.param_groups:
            lr, momentum = group["lr"], group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = read_grad(recorder, p)
                if group["maximize"]:
                    grad = -grad
                if group["weight_decay"] != 0:
                    grad = grad.add(p, alpha=group["weight_decay"])
                if momentum != 0:
                    state = optimizer.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = engine.clone(grad).detach()
                        state["momentum_buffer"] = buf
                    else:
                        buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
                    grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
                p.add_(grad, alpha=-lr)


def _numbers(group: dict[str, Any], names: tuple[str, ...]) -> bool:
    return all(
        isinstance(group[name], int | float) and not isinstance(group[name], bool) for name in names
    )


def _recorded_adam(optimizer: Any) -> bool:
    """Whether ``optimizer`` is ``Adam`` or ``AdamW`` with float hyperparameters."""
    from engine.optim.adam import Adam, AdamW

    return type(optimizer) in (Adam, AdamW) and all(
        _numbers(g, ("lr", "eps", "weight_decay"))
        and len(g["betas"]) == 2
        and all(isinstance(b, int | float) for b in g["betas"])
        for g in optimizer.param_groups
    )


def _adam_step(recorder: Recorder, optimizer: Any) -> None:
    """One ``Adam.step()`` as PyTorch's ``_single_tensor_adam``, each op recorded."""
    import engine
    from engine.optim import _kernels

    with engine.no_grad():
        for group in optimizer.param_groups:
            beta1, beta2 = group["betas"]
            lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = read_grad(recorder, p)
                if group["maximize"]:
                    grad = -grad
                state = optimizer.state[p]
                if not state:
                    state["step"] = _kernels.step_tensor()
                    state["exp_avg"] = engine.zeros_like(p)
                    state["exp_avg_sq"] = engine.zeros_like(p)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = engine.zeros_like(p)
                step = _kernels.bump_step(state["step"])
                if wd != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * wd)
                    else:
                        grad = grad.add(p, alpha=wd)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                step_size = lr / (1 - beta1**step)
                bias_correction2_sqrt = math.sqrt(1 - beta2**step)
                second = exp_avg_sq
                if group["amsgrad"]:
                    second = state["max_exp_avg_sq"]
                    engine.maximum(second, exp_avg_sq, out=second)
                denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
                p.addcdiv_(exp_avg, denom, value=-step_size)


def _recorded_rule(optimizer: Any) -> Any:
    """The recorded form of ``optimizer``'s step (``_sgd_step``, ...), or None where its
    rule is not recorded as ops (then each step is a copy of the values it wrote)."""
    from engine.optim.adagrad import Adagrad
    from engine.optim.rmsprop import RMSprop

    if _recorded_sgd(optimizer):
        return _sgd_step
    if _recorded_adam(optimizer):
        return _adam_step
    groups = optimizer.param_groups
    if type(optimizer) is RMSprop and all(
        _numbers(g, ("lr", "alpha", "eps", "weight_decay", "momentum")) for g in groups
    ):
        return _rmsprop_step
    if type(optimizer) is Adagrad and all(
        _numbers(g, ("lr", "lr_decay", "eps", "weight_decay")) for g in groups
    ):
        return _adagrad_step
    return None


def _rmsprop_step(recorder: Recorder, optimizer: Any) -> None:
    """One ``RMSprop.step()`` as PyTorch's ``_single_tensor_rmsprop``, each op recorded."""
    import engine
    from engine.optim import _kernels

    with engine.no_grad():
        for group in optimizer.param_groups:
            lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = read_grad(recorder, p)
                if group["maximize"]:
                    grad = -grad
                state = optimizer.state[p]
                if not state:
                    state["step"] = _kernels.step_tensor()
                    state["square_avg"] = engine.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = engine.zeros_like(p)
                    if group["centered"]:
                        state["grad_avg"] = engine.zeros_like(p)
                _kernels.bump_step(state["step"])
                if group["weight_decay"] != 0:
                    grad = grad.add(p, alpha=group["weight_decay"])
                square_avg = state["square_avg"]
                square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                if group["centered"]:
                    grad_avg = state["grad_avg"]
                    grad_avg.lerp_(grad, 1 - alpha)
                    avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).addcdiv_(grad, avg)
                    p.add_(buf, alpha=-lr)
                else:
                    p.addcdiv_(grad, avg, value=-lr)


def _adagrad_step(recorder: Recorder, optimizer: Any) -> None:
    """One ``Adagrad.step()`` as PyTorch's ``_single_tensor_adagrad``, each op recorded."""
    import engine
    from engine.optim import _kernels

    with engine.no_grad():
        for group in optimizer.param_groups:
            lr, eps = group["lr"], group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = read_grad(recorder, p)
                state = optimizer.state[p]
                step = _kernels.bump_step(state["step"])
                if group["maximize"]:
                    grad = -grad
                if group["weight_decay"] != 0:
                    grad = grad.add(p, alpha=group["weight_decay"])
                clr = lr / (1 + (step - 1) * group["lr_decay"])
                state_sum = state["sum"]
                state_sum.addcmul_(grad, grad, value=1)
                std = state_sum.sqrt().add_(eps)
                p.addcdiv_(grad, std, value=-clr)


def record_optimizer_steps(recorder: Recorder, tensor_type: type) -> None:
    """SGD's, Adam's, RMSprop's and Adagrad's steps as recorded ops; any other's step
    becomes, per updated parameter, a copy of its new value (under ``no_grad``, one
    version bump, as the update rule's in-place op)."""
    from engine.optim.optimizer import Optimizer

    _grad_reads(recorder, tensor_type)
    step = Optimizer.step

    def recorded_step(self: Any, closure: Any = None) -> Any:
        if recorder.depth:
            return step(self, closure)
        rule = _recorded_rule(self) if closure is None else None
        if rule is not None:
            rule(recorder, self)
            return None
        params = [p for g in self.param_groups for p in g["params"] if p.grad is not None]
        recorder.depth += 1
        try:
            loss = step(self, closure)
        finally:
            recorder.depth -= 1
        line = recorder.line()
        for p in params:
            recorder.set_value(p, line)
        return loss

    Optimizer.step = recorded_step  # type: ignore[method-assign]
