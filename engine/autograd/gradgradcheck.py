"""``autograd.gradgradcheck``: gradcheck of the gradient itself (second derivatives).

The function checked is ``(inputs, grad_outputs) -> autograd.grad(func(inputs), inputs,
grad_outputs, create_graph=True)``, so every backward formula used must itself be
differentiable, as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.autograd.functional import grad
from engine.autograd.gradcheck import gradcheck
from engine.creation import empty
from engine.dtypes import float64
from engine.tensor import Tensor


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return (
        value if isinstance(value, tuple) else tuple(value) if isinstance(value, list) else (value,)
    )


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    fast_mode: bool = False,
    **_unused: Any,
) -> bool:
    """``gradcheck`` of ``(inputs, grad_outputs) -> grad(func(inputs), inputs,
    grad_outputs)``; absent ``grad_outputs`` are drawn as PyTorch's ``make_tensor`` draws
    them, uniform in ``[-1, 1)`` from the global generator."""
    ins = _as_tuple(inputs)
    outs = [o for o in _as_tuple(func(*ins)) if isinstance(o, Tensor) and o.requires_grad]
    if grad_outputs is None:
        gos = tuple(
            empty(
                tuple(o.shape),
                dtype=o.dtype if o.dtype.is_floating_point else float64,
                device=o.device,
            )
            .uniform_(-1, 1)
            .requires_grad_()
            for o in outs
        )
    else:
        gos = _as_tuple(grad_outputs)
    n = len(ins)
    diff = [i for i, x in enumerate(ins) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivative(*args: Any) -> tuple[Any, ...]:
        now = [o for o in _as_tuple(func(*args[:n])) if isinstance(o, Tensor) and o.requires_grad]
        grads = grad(
            now, [args[i] for i in diff], list(args[n:]), create_graph=True, allow_unused=True
        )
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivative,
        (*ins, *gos),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        fast_mode=fast_mode,
    )
