"""Parameter updates recorded as the ops that make them (runs in the child, with the recorder).

A program reads ``p.grad`` and updates ``p`` under ``no_grad``; an optimizer does the
same inside ``step()``.  Both become nodes: ``p.grad`` is the catalogue's ``Tensor.grad``
node, and the step of each optimizer in ``RULES`` runs PyTorch's single-tensor rule as
recorded public ops: ``SGD``'s ``p.add_(p.grad, alpha=-lr)``, with the momentum
buffer's ``mul_``/``add_``, weight decay, Nesterov and ``maximize``; ``Adam``'s and
``AdamW``'s ``_single_tensor_adam`` (the moments' ``lerp_`` and ``addcmul_``,
``amsgrad``'s maximum, ``p.addcdiv_``; the bias corrections are Python numbers there
too); ``RMSprop`` and ``Adagrad`` likewise.  So the document reads ``lr``, the moments
and the gradient: editing them, or the data, changes the run.  Optimizers whose rule the
engine computes in its kernels only (Adadelta, NAdam and the others) still record each
step as a copy of the values it wrote.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from typing import Any

import engine
import gradstudio
from engine.optim import _kernels
from engine.optim.adagrad import Adagrad
from engine.optim.adam import Adam, AdamW
from engine.optim.optimizer import Optimizer
from engine.optim.rmsprop import RMSprop
from engine.optim.sgd import SGD
from gradstudio.interchange.program_import.frames import untraced
from gradstudio.interchange.program_import.recorder import Recorder

#: One parameter's update: ``(optimizer, group, parameter, gradient)``, the gradient
#: already read as a node and negated where the group maximizes.
Update = Callable[[Any, dict[str, Any], Any, Any], None]


def _package_dirs() -> tuple[str, ...]:
    return tuple(os.path.dirname(m.__file__ or "") + os.sep for m in (engine, gradstudio))


def _record_grad_read(recorder: Recorder, tensor: Any, grad: Any) -> None:
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


def read_grad(recorder: Recorder, tensor: Any) -> Any:
    """``tensor.grad`` as a ``Tensor.grad`` node (a new key each read: backward may
    have written it since)."""
    grad = tensor.grad
    if grad is None or id(tensor) not in recorder.keys:
        return grad
    _record_grad_read(recorder, tensor, grad)
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
            _record_grad_read(recorder, self, grad)
        finally:
            recorder.depth -= 1
        return grad

    tensor_type.grad = property(get, prop.fset, prop.fdel)


def _sgd(optimizer: Any, group: dict[str, Any], p: Any, grad: Any) -> None:
    """PyTorch's ``_single_tensor_sgd`` for one parameter."""
    momentum = group["momentum"]
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
    p.add_(grad, alpha=-group["lr"])


def _adam(optimizer: Any, group: dict[str, Any], p: Any, grad: Any) -> None:
    """PyTorch's ``_single_tensor_adam`` for one parameter (``AdamW``'s too)."""
    beta1, beta2 = group["betas"]
    lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
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


def _rmsprop(optimizer: Any, group: dict[str, Any], p: Any, grad: Any) -> None:
    """PyTorch's ``_single_tensor_rmsprop`` for one parameter."""
    lr, alpha, eps, momentum = group["lr"], group["alpha"], group["eps"], group["momentum"]
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


def _adagrad(optimizer: Any, group: dict[str, Any], p: Any, grad: Any) -> None:
    """PyTorch's ``_single_tensor_adagrad`` for one parameter (its state is made by
    the optimizer's constructor)."""
    state = optimizer.state[p]
    step = _kernels.bump_step(state["step"])
    if group["weight_decay"] != 0:
        grad = grad.add(p, alpha=group["weight_decay"])
    clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
    state_sum = state["sum"]
    state_sum.addcmul_(grad, grad, value=1)
    std = state_sum.sqrt().add_(group["eps"])
    p.addcdiv_(grad, std, value=-clr)


#: The optimizers whose step is recorded as ops (each its exact class): the
#: hyperparameters that must be Python numbers for that, and the rule for one parameter.
#: Recording another optimizer is one entry here.
RULES: dict[type, tuple[tuple[str, ...], Update]] = {
    SGD: (("lr", "momentum", "dampening", "weight_decay"), _sgd),
    Adam: (("lr", "betas", "eps", "weight_decay"), _adam),
    AdamW: (("lr", "betas", "eps", "weight_decay"), _adam),
    RMSprop: (("lr", "alpha", "eps", "weight_decay", "momentum"), _rmsprop),
    Adagrad: (("lr", "lr_decay", "eps", "weight_decay"), _adagrad),
}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _numbers(group: dict[str, Any], names: tuple[str, ...]) -> bool:
    """Whether each named hyperparameter of ``group`` is a Python number, or a pair of
    them (Adam's ``betas``): PyTorch's single-tensor rules do their arithmetic on those
    as Python floats, so the tensors' ops are all there is to record."""
    return all(
        _number(value)
        or (isinstance(value, tuple | list) and len(value) == 2 and all(map(_number, value)))
        for value in (group[name] for name in names)
    )


def _recorded_rule(optimizer: Any) -> Update | None:
    """The recorded form of ``optimizer``'s step for one parameter, or None where its
    rule is not recorded as ops (then each step is a copy of the values it wrote)."""
    rule = RULES.get(type(optimizer))
    if rule is None:
        return None
    numbers, update = rule
    return update if all(_numbers(g, numbers) for g in optimizer.param_groups) else None


def _recorded_step(recorder: Recorder, optimizer: Any, update: Update) -> None:
    """One ``step()``: ``update`` for each parameter that has a gradient, in PyTorch's
    order and under ``no_grad``, given the gradient read as a node (negated where the
    group maximizes, as each of PyTorch's single-tensor rules does first)."""
    with engine.no_grad():
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = read_grad(recorder, p)
                if group["maximize"]:
                    grad = -grad
                update(optimizer, group, p, grad)


def _library_steps() -> list[type]:
    """``Optimizer`` and each of the engine's optimizers that overrides ``step`` (LBFGS):
    the step of each is PyTorch's, not the program's, so it is recorded, never traced
    op by op (a program's own optimizer class is the program's code, and records so)."""
    found: list[type] = [Optimizer]
    stack = list(Optimizer.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if "step" in vars(cls) and cls.__module__.split(".")[0] == "engine":
            found.append(cls)
    return found


def record_optimizer_steps(recorder: Recorder, tensor_type: type) -> None:
    """The steps of the optimizers in ``RULES`` as recorded ops; any other's step
    becomes, per updated parameter, a copy of its new value (under ``no_grad``, one
    version bump, as the update rule's in-place op).  A step that runs a closure
    (LBFGS's always does) computes the gradients itself, so the parameters it updated
    are also those whose version it moved, not only those that had a gradient before;
    and the ``.grad`` its closure's last pass left is set as a copy."""
    _grad_reads(recorder, tensor_type)
    for owner in _library_steps():
        owner.step = _recorded_step_of(recorder, vars(owner)["step"])  # type: ignore[attr-defined]


def _recorded_step_of(recorder: Recorder, step: Callable[..., Any]) -> Callable[..., Any]:
    def recorded_step(self: Any, closure: Any = None) -> Any:
        if recorder.depth:
            return step(self, closure)
        tracer = untraced()  # a closure records nothing: it runs quietly
        try:
            return recording(self, closure)
        finally:
            if tracer is not None:
                sys.settrace(tracer)

    def recording(self: Any, closure: Any) -> Any:
        update = _recorded_rule(self) if closure is None else None
        if update is not None:
            _recorded_step(recorder, self, update)
            return None
        params = [p for g in self.param_groups for p in g["params"]]
        before = [(p.grad is not None, p._version) for p in params]
        loss = recorder.quiet(step, self, closure)
        line = recorder.line()
        for p, (had_grad, version) in zip(params, before, strict=True):
            if had_grad or p._version != version:
                recorder.set_value(p, line)
            if closure is not None:  # the gradients its last pass left, as PyTorch has them
                recorder.set_grad(p, line)
        return loss

    return recorded_step
