"""The backward engine: dependency counting and a ready queue, no recursion.

As in PyTorch, the graph is first walked (iteratively) to count how many edges
reach each node; a node runs once all its gradients have arrived, and among
ready nodes the most recently created runs first.  Gradients travel as raw
arrays unless ``create_graph`` asks for a differentiable backward graph, in
which case the very same formulas run on tensors.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine import grad_mode
from engine.autograd.graph import OBSERVERS, AccumulateGrad, Node, NodeExecution, grad_accumulator
from engine.backend import array_module

if TYPE_CHECKING:
    from engine.tensor import Tensor


def _shape_str(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def sum_to(g: Any, shape: tuple[int, ...], tensor_mode: bool) -> Any:
    """Undo broadcasting: sum ``g`` down to ``shape`` (the one central place)."""
    gshape = tuple(g.shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1
    )
    if tensor_mode:
        if axes:
            g = g.sum(axes, keepdim=True)
        return g.reshape(shape) if tuple(g.shape) != shape else g
    xp = array_module(g)
    if axes:
        g = xp.sum(g, axis=axes, keepdims=True)
    return g.reshape(shape)


def _expandable(gshape: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    if len(shape) > len(gshape):
        return False
    lead = len(gshape) - len(shape)
    return all(s == 1 or s == gshape[i + lead] for i, s in enumerate(shape))


def validate_grad(node: Node, index: int, g: Any, meta: tuple[Any, Any, Any], tm: bool) -> Any:
    """Check one gradient against its input's metadata, un-broadcast and cast it."""
    shape, np_dtype, _device = meta
    gshape = tuple(g.shape)
    if gshape != shape:
        if not _expandable(gshape, shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"{_shape_str(gshape)} but expected shape compatible with {_shape_str(shape)}"
            )
        g = sum_to(g, shape, tm)
    if tm:
        if g._data.dtype != np_dtype:
            from engine.dtypes import FROM_NP

            g = g.to(FROM_NP[np_dtype])
    elif g.dtype != np_dtype:
        g = g.astype(np_dtype)
    return g


def accumulate_into(t: Tensor, g: Any, tensor_mode: bool) -> None:
    """``AccumulateGrad``: store or add ``g`` into ``t.grad`` like PyTorch does."""
    from engine.tensor import Tensor

    old = t._grad
    if tensor_mode:
        if old is None:
            t._grad = g if g.grad_fn is not None else Tensor._wrap(g._data.copy())
        elif grad_mode.STATE.enabled:
            t._grad = old + g
        else:
            old._data += g._data
            old._counter()[0] += 1
        return
    if old is None:
        t._grad = Tensor._wrap(g.copy())
    else:
        old._data += g
        old._counter()[0] += 1


def _run_tensor_hooks(node: Node, grads: list[Any], tensor_mode: bool) -> None:
    """Tensor hooks (``register_hook``), then ``retain_grad``, per output."""
    from engine.tensor import Tensor

    for nr, hooks in (node._tensor_hooks or {}).items():
        if not hooks or grads[nr] is None:
            continue
        g = grads[nr] if tensor_mode else Tensor._wrap(grads[nr])
        for fn in list(hooks.values()):
            out = fn(g)
            if out is not None:
                g = out
        grads[nr] = g if tensor_mode else g._data
    for nr, fn in (node._retain_hooks or {}).items():
        if grads[nr] is not None:
            fn(grads[nr], tensor_mode)


def _leaf_hooks(node: AccumulateGrad, grads: list[Any], tensor_mode: bool) -> None:
    from engine.tensor import Tensor

    hooks = node.variable._hooks
    if not hooks or grads[0] is None:
        return
    g = grads[0] if tensor_mode else Tensor._wrap(grads[0])
    for fn in list(hooks.values()):
        out = fn(g)
        if out is not None:
            g = out
    grads[0] = g if tensor_mode else g._data


def _add(a: Any, b: Any) -> Any:
    return b if a is None else a + b


def _root_edge(t: Tensor, i: int) -> tuple[Node, int]:
    if t.grad_fn is not None:
        return t.grad_fn, t._output_nr
    if t._requires_grad:
        return grad_accumulator(t), 0
    raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def run_backward(
    tensors: Sequence[Tensor],
    grad_tensors: Sequence[Any],
    keep_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor] | None = None,
    accumulate: bool = True,
) -> list[Any] | None:
    """Run backward from ``tensors``.

    With ``accumulate`` the leaves' ``.grad`` (or only those of ``inputs``)
    receive gradients; without it (``autograd.grad``) the gradients of
    ``inputs`` are returned instead and no ``.grad`` changes.
    """
    from engine.tensor import Tensor

    tm = create_graph
    roots = [_root_edge(t, i) for i, t in enumerate(tensors)]
    root_grads = [(g if tm else g._data) if isinstance(g, Tensor) else g for g in grad_tensors]

    # Count dependencies (edges into each node) over the reachable graph.
    deps: dict[Node, int] = {}
    for n, _ in roots:
        deps[n] = deps.get(n, 0) + 1
    stack = list(dict.fromkeys(n for n, _ in roots))
    seen = set(stack)
    order: list[Node] = []
    while stack:
        n = stack.pop()
        order.append(n)
        for nxt, _ in n.next_functions:
            if nxt is not None:
                if nxt in deps:
                    deps[nxt] += 1
                else:
                    deps[nxt] = 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)

    # Where gradients are captured (autograd.grad / backward(inputs=...)).
    captures: dict[tuple[Node, int], int] = {}
    needed: set[Node] | None = None
    if inputs is not None:
        for k, t in enumerate(inputs):
            if t.grad_fn is not None:
                captures[(t.grad_fn, t._output_nr)] = k
            elif t._requires_grad:
                captures[(grad_accumulator(t), 0)] = k
            else:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
        targets = {n for n, _ in captures}
        needed = _needed_nodes(order, targets)
    captured: list[Any] = [None] * (len(inputs) if inputs is not None else 0)

    buffers: dict[Node, list[Any]] = {}
    for (n, nr), g in zip(roots, root_grads, strict=True):
        buf = buffers.get(n)
        if buf is None:
            buf = buffers[n] = [None] * len(n._out_meta)
        buf[nr] = _add(buf[nr], g)

    ready: list[tuple[int, int, Node]] = []
    tie = 0
    for n, _ in roots:
        deps[n] -= 1
    for n in dict.fromkeys(n for n, _ in roots):
        if deps[n] == 0:
            heapq.heappush(ready, (-n._seq, tie, n))
            tie += 1

    observers = OBSERVERS.active
    prev_mode = grad_mode.STATE.enabled
    grad_mode.STATE.enabled = create_graph
    try:
        heappop, heappush = heapq.heappop, heapq.heappush
        while ready:
            node = heappop(ready)[2]
            grads = buffers.pop(node, None) or [None]
            is_acc = type(node) is AccumulateGrad
            if is_acc:
                _leaf_hooks(node, grads, tm)  # type: ignore[arg-type]
            else:
                if node._tensor_hooks or node._retain_hooks:
                    _run_tensor_hooks(node, grads, tm)
                if node._pre_hooks:
                    grads = _run_pre_hooks(node, grads, tm)
            if captures:
                for nr, g in enumerate(grads):
                    k = captures.get((node, nr))
                    if k is not None and g is not None:
                        captured[k] = _add(captured[k], g)
            if needed is not None and node not in needed:
                run = False
            elif is_acc:
                run = accumulate and (needed is None or (node, 0) in captures)
            else:
                run = True
            outs: tuple[Any, ...] = ()
            if run and (grads[0] is not None or any(g is not None for g in grads)):
                outs = node.apply(tuple(grads), tm)
                if not keep_graph:
                    node.release_variables()
                if node._post_hooks:
                    _run_post_hooks(node, grads, outs, tm)
            if observers:
                _observe(observers, node, grads, outs, tm)
            n_outs = len(outs)
            for i, (nxt, nr) in enumerate(node.next_functions):
                if nxt is None:
                    continue
                g = outs[i] if i < n_outs else None
                if g is not None:
                    meta = nxt._out_meta[nr]
                    if g.shape != meta[0] or (g._data.dtype if tm else g.dtype) != meta[1]:
                        g = validate_grad(node, i, g, meta, tm)
                    buf = buffers.get(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] * len(nxt._out_meta)
                    old = buf[nr]
                    buf[nr] = g if old is None else old + g
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    heappush(ready, (-nxt._seq, tie, nxt))
                    tie += 1
    finally:
        grad_mode.STATE.enabled = prev_mode

    if inputs is None:
        return None
    if accumulate:
        # backward(inputs=[non_leaf]) fills the non-leaf's .grad as well.
        for k, t in enumerate(inputs):
            if t.grad_fn is not None and captured[k] is not None:
                _store_nonleaf_grad(t, captured[k], tm)
        return None
    return captured


def _needed_nodes(order: list[Node], targets: set[Node]) -> set[Node]:
    """Nodes from which a target is reachable (PyTorch's ``exec_info``)."""
    needed: set[Node] = set(targets)
    # ``order`` is a DFS pre-order; iterate to a fixed point in reverse.
    changed = True
    while changed:
        changed = False
        for n in reversed(order):
            if n in needed:
                continue
            if any(nxt in needed for nxt, _ in n.next_functions if nxt is not None):
                needed.add(n)
                changed = True
    return needed


def _store_nonleaf_grad(t: Tensor, g: Any, tm: bool) -> None:
    from engine.tensor import Tensor

    if t._grad is None:
        t._grad = g if tm else Tensor._wrap(g.copy())
    else:
        t._grad = t._grad + (g if tm else Tensor._wrap(g))


def _run_pre_hooks(node: Node, grads: list[Any], tm: bool) -> list[Any]:
    from engine.tensor import Tensor

    wrapped = tuple(g if tm or g is None else Tensor._wrap(g) for g in grads)
    for fn in list((node._pre_hooks or {}).values()):
        out = fn(wrapped)
        if out is not None:
            wrapped = tuple(out)
    return [g if tm or g is None else g._data for g in wrapped]


def _run_post_hooks(node: Node, grads: list[Any], outs: tuple[Any, ...], tm: bool) -> None:
    from engine.tensor import Tensor

    def wrap(seq: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(g if tm or g is None else Tensor._wrap(g) for g in seq)

    for fn in list((node._post_hooks or {}).values()):
        fn(wrap(outs), wrap(grads))


def _observe(
    observers: list[Any], node: Node, grads: list[Any], outs: tuple[Any, ...], tm: bool
) -> None:
    from engine.tensor import Tensor

    def snap(g: Any) -> Any:
        if g is None:
            return None
        arr = g._data if tm else g
        return Tensor._wrap(arr.copy())

    n_edges = len(node.next_functions)
    out_list = list(outs) + [None] * (n_edges - len(outs))
    record = NodeExecution(node, tuple(snap(g) for g in grads), tuple(snap(g) for g in out_list))
    for obs in observers:
        obs.executions.append(record)


def call_node(node: Node, grads: tuple[Any, ...]) -> tuple[Any, ...]:
    """``grad_fn(grad)`` called directly by the user, as PyTorch allows."""
    from engine.tensor import Tensor

    arrays = tuple(g._data if isinstance(g, Tensor) else g for g in grads)
    with grad_mode.no_grad():
        outs = node.apply(arrays, False)
    res = tuple(None if g is None else Tensor._wrap(g) for g in outs)
    return res[0] if len(res) == 1 else res
