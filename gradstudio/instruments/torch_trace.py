"""A backward observer for real PyTorch, shaped like ``engine.autograd.graph``'s.

PyTorch has no public "record every node backward runs" hook, so while the
``observe_backward`` block is open, ``torch.autograd.backward`` and
``torch.autograd.grad`` are wrapped: before the real call, a post-hook is put on
every node reachable from the roots; a node's hook fires right after it ran, so
the records come out in execution order with its gradients in (``grad_outputs``)
and out (``grad_inputs``, one per ``next_functions`` edge).  Used only in the
verify child process, which owns its ``torch`` module.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TorchExecution:
    node: Any
    incoming: tuple[Any, ...]
    outgoing: tuple[Any, ...]


@dataclass
class TorchBackwardTrace:
    executions: list[TorchExecution] = field(default_factory=list)


def _copy(g: Any) -> Any:
    return None if g is None else g.detach().clone()


def _roots(tensors: Any) -> list[Any]:
    items = [tensors] if hasattr(tensors, "grad_fn") else list(tensors or ())
    return [t.grad_fn for t in items if getattr(t, "grad_fn", None) is not None]


def _hook_graph(roots: list[Any], trace: TorchBackwardTrace) -> list[Any]:
    handles = []
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))

        def post(grad_inputs: Any, grad_outputs: Any, node: Any = node) -> None:
            trace.executions.append(
                TorchExecution(
                    node,
                    tuple(_copy(g) for g in grad_outputs),
                    tuple(_copy(g) for g in grad_inputs),
                )
            )

        handles.append(node.register_hook(post))
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return handles


def install(torch: Any) -> None:
    """Give ``torch.autograd.graph`` an ``observe_backward`` like the engine's."""
    real_backward = torch.autograd.backward
    real_grad = torch.autograd.grad

    @contextmanager
    def observe_backward() -> Iterator[TorchBackwardTrace]:
        trace = TorchBackwardTrace()
        handles: list[Any] = []

        def backward(tensors: Any, *args: Any, **kwargs: Any) -> Any:
            handles.extend(_hook_graph(_roots(tensors), trace))
            return real_backward(tensors, *args, **kwargs)

        def grad(outputs: Any, *args: Any, **kwargs: Any) -> Any:
            handles.extend(_hook_graph(_roots(outputs), trace))
            return real_grad(outputs, *args, **kwargs)

        torch.autograd.backward = backward
        torch.autograd.grad = grad
        try:
            yield trace
        finally:
            torch.autograd.backward = real_backward
            torch.autograd.grad = real_grad
            for handle in handles:
                handle.remove()

    torch.autograd.graph.observe_backward = observe_backward
