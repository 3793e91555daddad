"""``autograd.backward`` and ``autograd.grad``: argument checks, then the engine."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.autograd.engine_run import run_backward
from engine.backend import array_module
from engine.messages import SCALAR_ONLY, fmt_shape
from engine.tensor import Tensor


def _as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    if isinstance(x, Tensor):
        return [x]
    return list(x)


def _make_grads(outputs: list[Any], grads: list[Any]) -> list[Any]:
    out = []
    for i, (t, g) in enumerate(zip(outputs, grads, strict=True)):
        if g is None:
            if t.requires_grad and t.numel() != 1:
                raise RuntimeError(SCALAR_ONLY)
            if t.requires_grad and not t.dtype.is_floating_point:
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {t.dtype}"
                )
            out.append(Tensor._wrap(array_module(t._data).ones_like(t._data)))
        else:
            if not isinstance(g, Tensor):
                raise TypeError(
                    f"gradients can be either Tensors or None, but got {type(g).__name__}"
                )
            if tuple(g.shape) != tuple(t.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of torch.Size("
                    f"{fmt_shape(g.shape)}) and output[{i}] has a shape of torch.Size("
                    f"{fmt_shape(t.shape)})."
                )
            if g.dtype.is_floating_point != t.dtype.is_floating_point:
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have the "
                    f"same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and "
                    f"output[{i}] has a dtype of {t.dtype}."
                )
            if g.device != t.device:
                raise RuntimeError(
                    f"invalid gradient at index {i} - expected device {t.device} but got {g.device}"
                )
            out.append(g)
    return out


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    if (
        grad_tensors is None
        and inputs is None
        and not retain_graph
        and not create_graph
        and isinstance(tensors, Tensor)
        and (tensors.grad_fn is not None or tensors._requires_grad)
        and tensors._data.size == 1
        and tensors._data.dtype.kind == "f"
    ):
        # ``loss.backward()``: every check below would pass
        data = tensors._data
        if type(data) is np.ndarray:  # (``np.ones`` is a Python function, these two are not)
            seed = np.empty(data.shape, data.dtype)
            seed.fill(1)
        else:
            seed = array_module(data).ones_like(data)
        run_backward([tensors], [seed], False, False, None)
        return
    outputs = _as_list(tensors)
    grads = _as_list(grad_tensors) if grad_tensors is not None else [None] * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(
            "grad can be implicitly created only for scalar outputs"
            if not grads
            else f"got {len(grads)} gradients for {len(outputs)} outputs"
        )
    for i, t in enumerate(outputs):
        if not t.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    grads = _make_grads(outputs, grads)
    if retain_graph is None:
        retain_graph = create_graph
    ins = _as_list(inputs) if inputs is not None else None
    if ins is not None and not ins:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    for t in ins or ():
        if t.grad_fn is not None:
            t.retain_grad()  # PyTorch fills a non-leaf input's .grad via retain_grad
    run_backward(outputs, grads, bool(retain_graph), bool(create_graph), ins, accumulate=True)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Any, ...]:
    outs = _as_list(outputs)
    ins = _as_list(inputs)
    if not outs:
        raise RuntimeError("grad requires non-empty inputs.")
    if not ins:
        raise RuntimeError("grad requires non-empty inputs.")
    gos = _as_list(grad_outputs) if grad_outputs is not None else [None] * len(outs)
    for i, t in enumerate(outs):
        if not t.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    gos = _make_grads(outs, gos)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    result = run_backward(outs, gos, bool(retain_graph), bool(create_graph), ins, accumulate=False)
    assert result is not None
    final: list[Any] = []
    for i, (t, g) in enumerate(zip(ins, result, strict=True)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            final.append(
                Tensor._wrap(array_module(t._data).zeros_like(t._data))
                if materialize_grads
                else None
            )
        else:
            final.append(g)
    return tuple(final)


# ``torch.autograd.functional`` is this module in PyTorch's layout: its Jacobian tools.
from engine.autograd.jacobians import hessian, hvp, jacobian, jvp, vhp, vjp  # noqa: E402, F401
