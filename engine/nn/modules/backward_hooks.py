"""Module backward hooks, as PyTorch wires them.

Full hooks (``register_full_backward_hook`` / ``..._pre_hook``) route the module's
tensor inputs and outputs through an identity ``BackwardHookFunction``, so the
module's outputs carry ``BackwardHookFunctionBackward`` nodes and the hooks see the
gradients with respect to the module's inputs and outputs.  The output side stores
``grad_output`` (after pre-hooks may replace it); the input side calls the hooks
with ``grad_input`` and may replace it.  The legacy ``register_backward_hook`` hooks
the output's ``grad_fn`` instead, with PyTorch's deprecation warnings.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from engine.autograd.function import Function
from engine.grad_mode import is_grad_enabled
from engine.tensor import Tensor

_NO_INPUT_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See "
    "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details."
)


class BackwardHookFunction(Function):
    """Identity on tensors; its node is where a module's gradients are observed."""

    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        side = ctx.__dict__.get("_hook_side")
        return side(grads) if side is not None else grads


def _pack(indices: list[int], values: tuple[Any, ...], size: int) -> tuple[Any, ...]:
    out: list[Any] = [None] * size
    for i, v in zip(indices, values):
        out[i] = v
    return tuple(out)


class BackwardHook:
    """The per-call state linking the output side to the input side of one module call."""

    def __init__(
        self, module: Any, hooks: list[Callable[..., Any]], pre_hooks: list[Callable[..., Any]]
    ) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs: tuple[Any, ...] | None = None
        self.n_inputs = 0
        self.n_outputs = 0
        self.input_index: list[int] | None = None
        self.output_index: list[int] | None = None

    def _wrap(self, args: tuple[Any, ...], side: Callable[[tuple[Any, ...]], Any]) -> Any:
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        if not tensors:
            raise RuntimeError(
                "Cannot set Module backward hook for a Module with no input Tensors."
            )
        wrapped = BackwardHookFunction.apply(*tensors)
        node = next(t.grad_fn for t in wrapped if t.grad_fn is not None)
        node._hook_side = side
        out = list(args)
        for i, t in zip(index, wrapped):
            out[i] = t
        return tuple(out), index

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        self.n_inputs = len(args)
        result, self.input_index = self._wrap(args, self._on_inputs)
        return result

    def setup_output_hook(self, result: Any) -> Any:
        single = not isinstance(result, tuple)
        args = (result,) if single else result
        self.n_outputs = len(args)
        wrapped, self.output_index = self._wrap(args, self._on_outputs)
        return wrapped[0] if single else wrapped

    def _on_outputs(self, grads: tuple[Any, ...]) -> tuple[Any, ...]:
        assert self.output_index is not None
        self.grad_outputs = _pack(self.output_index, grads, self.n_outputs)
        for pre in self.pre_hooks:
            replaced = pre(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(self.grad_outputs):
                raise RuntimeError(
                    "Backward pre hook returned an invalid number of grad_output, got "
                    f"{len(replaced)}, but expected {len(self.grad_outputs)}"
                )
            self.grad_outputs = tuple(replaced)
        local = self.grad_outputs
        if self.input_index is None:
            warnings.warn(_NO_INPUT_GRAD, UserWarning, stacklevel=2)
            grad_inputs = _pack([], (), self.n_inputs)
            for hook in self.hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should "
                        "always return None or None for all gradients."
                    )
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_index)

    def _on_inputs(self, grads: tuple[Any, ...]) -> tuple[Any, ...]:
        assert self.input_index is not None
        if self.grad_outputs is None:
            return grads  # the gradient did not pass through the module's output
        res = _pack(self.input_index, grads, self.n_inputs)
        for hook in self.hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError(
                    "Backward hook returned an invalid number of grad_input, got "
                    f"{len(out)}, but expected {len(res)}"
                )
            res = tuple(out)
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_index)


_NON_FULL = {
    "nested": "Using a non-full backward hook when outputs are nested in python data structure "
    "is deprecated and will be removed in future versions. This hook will be missing some "
    "grad_output.",
    "many": "Using a non-full backward hook when outputs are generated by different autograd "
    "Nodes is deprecated and will be removed in future versions. This hook will be missing some "
    "grad_output. Please use register_full_backward_hook to get the documented behavior.",
    "inner": "Using a non-full backward hook when the forward contains multiple autograd Nodes "
    "is deprecated and will be removed in future versions. This hook will be missing some "
    "grad_input. Please use register_full_backward_hook to get the documented behavior.",
}


def attach_legacy_hooks(
    module: Any, hooks: list[Callable[..., Any]], args: Any, result: Any
) -> None:
    """``register_backward_hook``: hook the output's ``grad_fn`` (grad_input is that node's)."""
    var = result
    while not isinstance(var, Tensor):
        var = (
            next(v for v in var.values() if isinstance(v, Tensor))
            if isinstance(var, dict)
            else var[0]
        )
    node = var.grad_fn
    if node is None:
        return
    for hook in hooks:
        node.register_hook(
            lambda grad_inputs, grad_outputs, hook=hook: hook(module, grad_inputs, grad_outputs)
        )
    outputs = (result,) if isinstance(result, Tensor) else result
    inputs = (args,) if isinstance(args, Tensor) else args
    out_nodes = {o.grad_fn for o in outputs if isinstance(o, Tensor) and o.grad_fn is not None}
    if not out_nodes or (len(out_nodes) == 1 and node not in out_nodes):
        warnings.warn(_NON_FULL["nested"], FutureWarning, stacklevel=3)
    elif len(out_nodes) > 1:
        warnings.warn(_NON_FULL["many"], FutureWarning, stacklevel=3)
    else:
        in_nodes = {i.grad_fn for i in inputs if isinstance(i, Tensor) and i.grad_fn is not None}
        if in_nodes != {n for n, _ in node.next_functions}:
            warnings.warn(_NON_FULL["inner"], FutureWarning, stacklevel=3)
