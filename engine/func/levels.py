"""Transform levels on top of ordinary autograd.

A transform (``grad``, ``vjp``, ``jvp``...) differentiates with respect to fresh aliases of its
inputs: a new leaf where the input needs no gradient, else a view that leads back to it.  The
derivatives are taken with ``create_graph`` so that an enclosing transform can differentiate
them again; a result whose history reaches no leaf except this level's own is then detached,
so that, as in PyTorch, ``grad(f)(x)`` carries no ``grad_fn`` unless something outside the
transform (an input or a closed-over tensor) requires grad.
"""

from __future__ import annotations

from typing import Any

from engine.autograd.functional import grad as autograd_grad
from engine.backend import array_module
from engine.func import pytree
from engine.tensor import Tensor


class Level:
    """The leaves one transform made; results depending on nothing else are detached."""

    def __init__(self) -> None:
        self.own: set[int] = set()

    def alias(self, x: Any) -> Tensor:
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if x.requires_grad:
            return x.view_as(x)
        leaf = x.detach()
        leaf.requires_grad_()
        self.own.add(id(leaf))
        return leaf

    def mark(self, t: Tensor) -> Tensor:
        """Count ``t`` (a seed leaf made here) as this level's own."""
        self.own.add(id(t))
        return t

    def lower(self, tree: Any) -> Any:
        """Every tensor in ``tree``, detached where only this level's leaves lie behind it."""
        return pytree.tree_map(self._lower_one, tree)

    def _lower_one(self, x: Any) -> Any:
        if not isinstance(x, Tensor) or not x.requires_grad:
            return x
        if x.grad_fn is None:
            return x.detach() if id(x) in self.own else x
        if self._reaches_outside(x.grad_fn):
            return x
        return x.detach()

    def _reaches_outside(self, root: Any) -> bool:
        seen: set[int] = set()
        stack = [root]
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            variable = getattr(node, "variable", None)
            if variable is not None and node.name() == "torch::autograd::AccumulateGrad":
                if id(variable) not in self.own:
                    return True
                continue
            stack.extend(fn for fn, _ in node.next_functions)
        return False


def vjp_of(
    outputs: list[Tensor], inputs: list[Tensor], cotangents: list[Any] | None
) -> tuple[Tensor, ...]:
    """``autograd.grad`` as the transforms use it: graphs kept, zeros for unused inputs and
    for outputs that need no gradient."""
    if cotangents is None:
        pairs = [(o, None) for o in outputs if o.requires_grad]
    else:
        pairs = [(o, c) for o, c in zip(outputs, cotangents, strict=True) if o.requires_grad]
    if not pairs:
        return tuple(_zeros_like(x) for x in inputs)
    outs = [o for o, _ in pairs]
    cots = None if cotangents is None else [c for _, c in pairs]
    grads = autograd_grad(outs, inputs, cots, create_graph=True, allow_unused=True)
    return tuple(_zeros_like(x) if g is None else g for g, x in zip(grads, inputs, strict=True))


def _zeros_like(x: Tensor) -> Tensor:
    return Tensor._wrap(array_module(x._data).zeros_like(x._data))
