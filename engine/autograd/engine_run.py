"""The backward engine: dependency counting and a ready queue, no recursion.

As in PyTorch, the graph is first walked (iteratively) to count how many edges
reach each node; a node runs once all its gradients have arrived, and among
ready nodes the most recently created runs first.  Gradients travel as raw
arrays unless ``create_graph`` asks for a differentiable backward graph, in
which case the very same formulas run on tensors.
"""

from __future__ import annotations

import heapq
import sys
import warnings
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import grad_mode, warn_site
from engine.autograd import anomaly_mode
from engine.autograd.collector import collector_paused
from engine.autograd.graph import OBSERVERS, AccumulateGrad, Node, NodeExecution, grad_accumulator
from engine.backend import CPU, array_module, device_of, is_writeable
from engine.cascade_sum import reduce_sum, rows_sum
from engine.dtypes import FROM_NP
from engine.messages import CREATE_GRAPH_CYCLE, fmt_shape
from engine.quiet import restore, silence
from engine.tensor import Tensor

#: Whether ``sys.getrefcount`` counts every reference, as PyTorch's use counts do.
#: Deciding "nobody else holds this gradient" from it (to steal it or add in place,
#: which PyTorch shows as version numbers) is exact on CPython up to 3.13; 3.14
#: may omit borrowed references, so there the engine always copies (safe, and only
#: ``.grad._version`` can then differ from PyTorch).
REFCOUNTS = sys.implementation.name == "cpython" and sys.version_info < (3, 14)


def _sole_holder_count() -> int:
    """What ``sys.getrefcount`` reports in this module for an object that one list slot
    and one local hold: 3 interpreted (the call's own argument counts), 2 when Cython
    compiled the module (it passes the local without a new reference)."""
    slot = [object()]
    held = slot[0]
    return sys.getrefcount(held)


#: The refcount of an object nobody else holds (see REFCOUNTS).
SOLE_HOLDER = _sole_holder_count()


#: ``id(array)`` -> (the in-place writes the array received: input-buffer additions, or
#: its formula's own (``OpDef.grad_version``); a weak reference to it).
#: The reference tells a later array at a reused address from the one counted, and
#: being weak it leaves the refcounts that decide stealing (see REFCOUNTS) untouched.
Bumps = dict[int, tuple[int, Any]]


def _ref(array: Any) -> Any:
    try:
        return weakref.ref(array)
    except TypeError:  # an array type without weak references: trust the id alone
        return None


def _bumped(bumps: Bumps, array: Any) -> int:
    """The version ``array`` has from this backward's in-place writes: its own, or its
    base's (a view shares its base's version counter, as in PyTorch)."""
    for owner in (array, getattr(array, "base", None)):
        entry = bumps.get(id(owner)) if owner is not None else None
        if entry is not None and (entry[1] is None or entry[1]() is owner):
            return entry[0]
    return 0


def sum_to(g: Any, shape: tuple[int, ...], tensor_mode: bool) -> Any:
    """Undo broadcasting: sum ``g`` down to ``shape`` (the one central place)."""
    gshape = tuple(g.shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    if lead == 1 and len(shape) == 1 and gshape[1] == shape[0] and not tensor_mode:
        exact = rows_sum(g)  # a bias's gradient over a batch: the common case, direct
        if exact is not None:
            return _dropped_leading(exact, lead, shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1
    )
    if tensor_mode:
        if axes:
            g = g.sum(axes, keepdim=True)
        return g.reshape(shape) if tuple(g.shape) != shape else g
    xp = array_module(g)
    if xp is np and (len(axes) == 1 or len(axes) == len(gshape)):
        # PyTorch's sum_to is one ``sum(dims, keepdim=True)``: in its order of additions
        exact = reduce_sum(g, axes, True)
        if exact is not None:
            return _dropped_leading(exact.reshape(shape), lead, shape)
    lead_axes = tuple(range(lead))
    ones = tuple(a - lead for a in axes if a >= lead)
    if lead_axes:
        g = xp.sum(g, axis=lead_axes)
    if ones:
        g = xp.sum(g, axis=ones, keepdims=True)
    return _dropped_leading(g, lead, shape)


def _dropped_leading(fresh: Any, lead: int, shape: tuple[int, ...]) -> Any:
    """PyTorch's ``sum_to`` returns a view of its keepdim sum when it drops leading
    dimensions: AccumulateGrad still steals it, but an input buffer does not add into it
    in place (its storage has two owners), which ``.grad._version`` shows.  ``fresh``
    owns its memory (or is a view of memory nobody else holds); the result is a view of
    it, as there."""
    return fresh.reshape((1,) * lead + shape).reshape(shape) if lead else fresh


def _expandable(gshape: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    if len(shape) > len(gshape):
        return False
    lead = len(gshape) - len(shape)
    return all(s == 1 or s == gshape[i + lead] for i, s in enumerate(shape))


def validate_grad(node: Node, index: int, g: Any, meta: tuple[Any, Any, Any], tm: bool) -> Any:
    """Check one gradient against its input's metadata, un-broadcast and cast it."""
    shape, np_dtype, want_device = meta
    gshape = tuple(g.shape)
    if gshape != shape:
        if not _expandable(gshape, shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"{fmt_shape(gshape)} but expected shape compatible with {fmt_shape(shape)}"
            )
        g = sum_to(g, shape, tm)
    if tm:
        if g._data.dtype != np_dtype:
            g = g.to(FROM_NP[np_dtype])
    elif g.dtype != np_dtype:
        g = g.astype(np_dtype)
    if want_device is not None and not (
        want_device is CPU and type(g._data if tm else g) is np.ndarray
    ):
        got = device_of(g._data if tm else g)
        if got != want_device:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - "
                f"expected device {want_device} but got {got}"
            )
    return g


def accumulate_into(
    t: Tensor, g: Any, tensor_mode: bool, steal: bool = False, version: int = 0
) -> None:
    """``AccumulateGrad``: store or add ``g`` into ``t.grad`` like PyTorch does.

    A first gradient that nobody else holds (and that is a plain contiguous
    array) is stolen, keeping its version; otherwise PyTorch copies it into a
    new tensor with ``copy_``, which shows as version 1 (and, under
    ``create_graph``, as a ``CopyBackwards`` node).  Later gradients are added
    in place (a version bump) unless grad mode is on.
    """
    Tensor = type(t)  # noqa: N806  (no import on the hot path)
    old = t._grad
    if tensor_mode:
        if old is None:
            fresh = Tensor._wrap(array_module(g._data).zeros_like(g._data))
            t._grad = fresh.copy_(g)  # ``engine.ops.convert.copy_``, the method
        elif grad_mode.STATE.enabled:
            t._grad = old + g
        else:
            old._data += g._data
            old._counter()[0] += 1
        return
    if old is None:
        if isinstance(g, np.generic):
            g, steal = np.asarray(g), False
        if steal and g.flags.c_contiguous and is_writeable(g) and _owns(g):
            new = Tensor._wrap(g)
            if version:
                new._vc = [version]
        else:
            new = Tensor._wrap(g.copy())  # PyTorch: empty_like(...).copy_(g)
            new._vc = [1]
        t._grad = new
    else:
        old._data += g
        old._counter()[0] += 1


def _owns(g: Any) -> bool:
    """No one else can see ``g``'s memory: it is no view, or a view of an array
    that nothing but this view holds (PyTorch's storage use count of one)."""
    base = g.base
    return base is None or (
        sys.getrefcount(base) <= SOLE_HOLDER and base.base is None
    )  # see REFCOUNTS


def _run_tensor_hooks(node: Node, grads: list[Any], tensor_mode: bool) -> None:
    """Tensor hooks (``register_hook``), then ``retain_grad``, per output."""
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
    hooks = node.variable._hooks
    if not hooks or grads[0] is None:
        return
    g = grads[0] if tensor_mode else Tensor._wrap(grads[0])
    for fn in list(hooks.values()):
        out = fn(g)
        if out is not None:
            g = out
    grads[0] = g if tensor_mode else g._data


def _post_accumulate_hooks(t: Tensor) -> None:
    """PyTorch's ``_call_hooks`` for post-accumulate hooks: each hook gets the leaf
    (or what the previous hook returned); returning another tensor is an error at the end."""
    arg, returned = t, False
    for fn in list((t._post_accumulate_grad_hooks or {}).values()):
        out = fn(arg)
        if out is None or out is arg:
            continue
        if not isinstance(out, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(out).__name__}'")
        arg, returned = out, True
    if returned:
        raise RuntimeError("Tensor post accumulate grad hooks should return None.")


_NO_GRADS: list[Any] = []  # what a node that did not run hands over (never written)


def _add(a: Any, b: Any) -> Any:
    return b if a is None else a + b


def _root_edge(t: Tensor, i: int) -> tuple[Node, int]:
    if t.grad_fn is not None:
        return t.grad_fn, t._output_nr
    if t._requires_grad:
        return grad_accumulator(t), 0
    raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


@collector_paused
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
    tm = create_graph
    roots = [_root_edge(t, i) for i, t in enumerate(tensors)]
    root_grads = [(g if tm else g._data) if isinstance(g, Tensor) else g for g in grad_tensors]

    # Count dependencies (edges into each node) over the reachable graph.
    deps: dict[Node, int] = {}
    for n, _ in roots:
        deps[n] = deps.get(n, 0) + 1
    # ``deps`` doubles as the visited set: a node is pushed when first reached.
    stack = list(deps)
    order: list[Node] = []
    keep_order = inputs is not None
    while stack:
        n = stack.pop()
        if keep_order:
            order.append(n)
        for nxt in n._fns:
            if nxt is not None:
                if nxt in deps:
                    deps[nxt] += 1
                else:
                    deps[nxt] = 1
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
    captured_versions: list[int] = [0] * len(captured)

    buffers: dict[Node, list[Any]] = {}
    bumps: Bumps = {}
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
    warned = False
    prev_mode = grad_mode.STATE.enabled
    grad_mode.STATE.enabled = create_graph
    anomaly = anomaly_mode.ANOMALY.enabled
    nan_check = anomaly and anomaly_mode.ANOMALY.check_nan
    prev_evaluating = anomaly_mode.EVALUATING.node
    # Without post hooks, NaN checks or observers nothing looks at a node's gradients
    # between its return and their hand-over, so each is validated as it is handed over.
    late_check = not observers and not nan_check
    node: Node | None = None
    quiet = silence()  # PyTorch gives inf/nan silently, so must we
    try:
        heappop, heappush = heapq.heappop, heapq.heappush
        # A node made ready that would be the next out of the heap anyway (its sequence
        # number beats every queued one) runs next without a trip through the heap,
        # its gradients with it: a chain (most of a graph) never touches either.
        follow: Node | None = None
        follow_grads: list[Any] | None = None
        while True:
            if follow is not None:
                node, grads, follow, follow_grads = follow, follow_grads, None, None
            elif ready:
                node = heappop(ready)[2]
                grads = buffers.pop(node, None) or [None]
            else:
                break
            if anomaly:
                anomaly_mode.EVALUATING.node = node
            is_acc = type(node) is AccumulateGrad
            if is_acc:
                if node.variable._hooks:  # type: ignore[attr-defined]
                    _leaf_hooks(node, grads, tm)  # type: ignore[arg-type]
            else:
                if node._tensor_hooks or node._retain_hooks:
                    _run_tensor_hooks(node, grads, tm)
                if node._pre_hooks and (needed is None or node in needed):
                    grads = _run_pre_hooks(node, grads, tm)
            if captures:
                for nr, g in enumerate(grads):
                    k = captures.get((node, nr))
                    if k is not None and g is not None:
                        captured[k] = _add(captured[k], g)
                        captured_versions[k] = _bumped(bumps, g)
            if needed is not None and node not in needed:
                run = False
            elif is_acc:
                run = accumulate and (needed is None or (node, 0) in captures)
            else:
                run = True
            outs: list[Any] = _NO_GRADS
            unchecked = False
            if run and is_acc:
                if node._pre_hooks:  # hooks on the AccumulateGrad node itself
                    grads = _run_pre_hooks(node, grads, tm)
                if tm and not warned:
                    warned = True
                    warnings.warn(
                        CREATE_GRAPH_CYCLE,
                        UserWarning,
                        stacklevel=warn_site.outside_engine(),
                    )
                g0 = grads[0]
                if g0 is not None:
                    # as AccumulateGrad::apply: a leaf frozen after the forward gets no
                    # gradient, but its post-accumulate hooks still run
                    if node.variable.requires_grad:
                        # Refcount 2 (the list slot and the argument): no one else holds
                        # it, so PyTorch would steal it rather than copy.
                        unique = REFCOUNTS and not tm and sys.getrefcount(g0) <= SOLE_HOLDER
                        accumulate_into(node.variable, g0, tm, unique, _bumped(bumps, g0))
                    if node.variable._post_accumulate_grad_hooks:
                        _post_accumulate_hooks(node.variable)
                if node._post_hooks:
                    _run_post_hooks(node, grads, (), tm)
            elif run and (grads[0] is not None or any(g is not None for g in grads)):
                outs = node.apply(grads, tm)
                if type(outs) is not list:
                    outs = list(outs)
                if needed is not None:
                    _drop_unneeded(node, outs, needed)
                if late_check and not node._post_hooks:
                    unchecked = True
                else:
                    _validate_outputs(node, outs, tm)
                    if node._post_hooks:
                        outs = _run_post_hooks(node, grads, outs, tm)
                    if nan_check:
                        anomaly_mode.check_nan(node, outs, tm)
            if observers and run:  # PyTorch never runs a node off the path to the inputs
                _observe(observers, node, grads, outs, tm)
            n_outs = len(outs)
            i = -1
            for nxt in node._fns:
                i += 1
                if nxt is None:
                    continue
                nr = node._nrs[i]
                d = deps[nxt] - 1
                g = None
                if i < n_outs:
                    g = outs[i]
                    outs[i] = None  # hand over, like PyTorch's move into the buffer
                if g is not None:
                    if unchecked:
                        meta = nxt._out_meta[nr]
                        if (
                            type(g) is not np.ndarray
                            or g.shape != meta[0]
                            or (g.dtype is not meta[1] and g.dtype != meta[1])
                            or (meta[2] is not None and meta[2] is not CPU)
                        ):
                            g = validate_grad(node, i, g, meta, tm)
                    if node._grad_version and not tm:
                        bumps[id(g)] = (node._grad_version, _ref(g))
                    buf = buffers.get(nxt) if d else buffers.pop(nxt, None)
                    if buf is None:
                        buf = [None] * len(nxt._out_meta)
                        buf[nr] = g
                        if d:
                            buffers[nxt] = buf
                    elif buf[nr] is None:
                        buf[nr] = g
                    else:
                        _accumulate(buf, nr, g, tm, bumps)
                elif d:
                    buf = None
                else:
                    buf = buffers.pop(nxt, None) or [None]
                if d:
                    deps[nxt] = d
                    continue
                # ``nxt`` is ready, with its gradients in ``buf``.
                seq = nxt._seq
                top = -ready[0][0] if ready else -1
                if follow is None:
                    if seq > top:
                        follow, follow_grads = nxt, buf
                        continue
                elif seq > follow._seq and seq > top:
                    nxt, follow, buf, follow_grads = follow, nxt, follow_grads, buf
                elif not (follow._seq > seq and follow._seq > top):
                    buffers[follow] = follow_grads  # type: ignore[assignment]
                    heappush(ready, (-follow._seq, tie, follow))
                    tie += 1
                    follow = follow_grads = None
                buffers[nxt] = buf
                heappush(ready, (-nxt._seq, tie, nxt))
                tie += 1
            g = buf = None  # drop the last handed-over gradient: PyTorch holds no extra reference
            if not keep_graph and not is_acc and outs is not _NO_GRADS:
                node.release_variables()
    except Exception:
        if anomaly and node is not None:
            anomaly_mode.print_stack(node)
        raise
    finally:
        restore(quiet)
        grad_mode.STATE.enabled = prev_mode
        if anomaly:
            anomaly_mode.EVALUATING.node = prev_evaluating

    if inputs is None or accumulate:
        return None
    return [
        None if g is None else _as_tensor(g, tm, v)
        for g, v in zip(captured, captured_versions, strict=True)
    ]


def _validate_outputs(node: Node, outs: list[Any], tm: bool) -> None:
    """PyTorch's ``validate_outputs``: each gradient is summed back to its input's shape
    and cast to its dtype as soon as the node returns, so post-hooks, the recorded
    trace and the next node all see what the next node receives."""
    for i, (nxt, nr, g) in enumerate(zip(node._fns, node._nrs, outs)):
        if g is None or nxt is None:
            continue
        meta = nxt._out_meta[nr]
        if (
            g.shape != meta[0]
            or (g._data.dtype if tm else g.dtype) != meta[1]
            or (meta[2] is not None and device_of(g._data if tm else g) != meta[2])
        ):
            outs[i] = validate_grad(node, i, g, meta, tm)


def _as_tensor(g: Any, tm: bool, version: int) -> Any:
    if tm:
        return g
    t = Tensor._wrap(np.asarray(g) if isinstance(g, np.generic) else g)
    if version:
        t._vc = [version]
    return t


def _accumulate(buf: list[Any], nr: int, g: Any, tm: bool, bumps: Bumps) -> None:
    """Sum a second gradient into a buffer slot, in place when PyTorch would.

    PyTorch adds in place when the buffered tensor is uniquely owned (use count
    1) and not a view; the in-place add shows as a version bump on the gradient
    the user finally sees.  Python's refcount is the same notion.  It never adds into
    the incoming gradient instead (``accumulate`` in ``input_buffer.cpp`` does that for a
    sparse buffered one only).  ``g``'s refcount would not tell it either way: the
    caller's and this frame's references read as one holder's interpreted (at
    SOLE_HOLDER), as two compiled.
    """
    old = buf[nr]
    if (
        REFCOUNTS
        and not tm
        and sys.getrefcount(old) <= SOLE_HOLDER
        and (
            old.base is None and old.flags.writeable
            if type(old) is np.ndarray
            else type(old) is not np.generic
            and getattr(old, "base", 0) is None
            and is_writeable(old)
        )
        and (old.shape == g.shape or old.shape == np.broadcast_shapes(old.shape, g.shape))
        and (old.dtype == g.dtype or old.dtype == np.result_type(old, g))
    ):
        old += g
        bumps[id(old)] = (_bumped(bumps, old) + 1, _ref(old))
        return
    new = old + g
    buf[nr] = np.asarray(new) if isinstance(new, np.generic) else new


def _drop_unneeded(node: Node, outs: list[Any], needed: set[Node]) -> None:
    """No gradient for an edge off the path to the inputs: PyTorch's formulas compute only
    the outputs ``should_compute_output`` asks for, so hooks and the graph see None there
    (a TensorList's elements are asked for together)."""
    op = getattr(node, "_op", None)
    if op is not None and op.tensor_list:
        return
    for i, nxt in enumerate(node._fns):
        if i < len(outs) and nxt is not None and nxt not in needed:
            outs[i] = None


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
            if any(nxt in needed for nxt in n._fns if nxt is not None):
                needed.add(n)
                changed = True
    return needed


def _run_pre_hooks(node: Node, grads: list[Any], tm: bool) -> list[Any]:
    wrapped = tuple(g if tm or g is None else Tensor._wrap(g) for g in grads)
    for fn in list((node._pre_hooks or {}).values()):
        out = fn(wrapped)
        if out is not None:
            wrapped = tuple(out)
    return [g if tm or g is None else g._data for g in wrapped]


def _run_post_hooks(node: Node, grads: list[Any], outs: Sequence[Any], tm: bool) -> list[Any]:
    """Runs ``fn(grad_inputs, grad_outputs)``; a hook's non-None return replaces the
    grad_inputs the node passes on, as in PyTorch's ``call_post_hooks``."""

    def wrap(seq: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(g if tm or g is None else Tensor._wrap(g) for g in seq)

    outs = list(outs)
    for fn in list((node._post_hooks or {}).values()):
        result = fn(wrap(outs), wrap(grads))
        if result is not None:
            replaced = list(result) if isinstance(result, tuple | list) else [result]
            if len(replaced) != len(outs):
                raise RuntimeError(
                    f"hook '{getattr(fn, '__name__', 'hook')}' has returned an incorrect number "
                    f"of values (got {len(replaced)}, but expected {len(outs)})"
                )
            outs = [g if tm or g is None else g._data for g in replaced]
    return outs


def _observe(
    observers: list[Any], node: Node, grads: list[Any], outs: tuple[Any, ...], tm: bool
) -> None:
    def snap(g: Any) -> Any:
        if g is None:
            return None
        arr = g._data if tm else g
        return Tensor._wrap(arr.copy())

    n_edges = len(node._fns)
    out_list = list(outs) + [None] * (n_edges - len(outs))
    record = NodeExecution(node, tuple(snap(g) for g in grads), tuple(snap(g) for g in out_list))
    for obs in observers:
        obs.executions.append(record)


def call_node(node: Node, grads: tuple[Any, ...]) -> Any:
    """``grad_fn(grad)`` called directly by the user, as PyTorch allows (``Node.__call__``,
    bound by ``engine._methods``: running a node is the backward engine's work)."""
    arrays = tuple(g._data if isinstance(g, Tensor) else g for g in grads)
    with grad_mode.no_grad():
        outs = node.apply(arrays, False)
    res = tuple(None if g is None else Tensor._wrap(g) for g in outs)
    return res[0] if len(res) == 1 else res


def accumulate_grad(
    node: AccumulateGrad, grads: tuple[Any, ...], tensor_mode: bool
) -> tuple[Any, ...]:
    """``AccumulateGrad.apply`` (bound by ``engine._methods``), for a direct call of a
    leaf's node; the backward loop accumulates itself, with its stealing and versions."""
    if grads[0] is not None:
        # as AccumulateGrad::apply: a leaf frozen after the forward gets no gradient,
        # but its post-accumulate hooks still run
        if node.variable.requires_grad:
            accumulate_into(node.variable, grads[0], tensor_mode)
        if node.variable._post_accumulate_grad_hooks:
            _post_accumulate_hooks(node.variable)
    return ()
