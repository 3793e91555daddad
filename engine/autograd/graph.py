"""The backward graph: nodes, edges, saved tensors and the backward observer.

A node is what ``tensor.grad_fn`` returns.  Its ``next_functions`` are the
edges PyTorch shows, leaves are reached through ``AccumulateGrad`` nodes, and
each node remembers the shape/dtype/device of its forward outputs so the
backward engine can check (and un-broadcast) every gradient in one place.

The graph sits below ``Tensor`` and imports nothing above it.  What runs a node needs
the backward engine (``engine.autograd.engine_run``), so calling a node
(``grad_fn(g)``, ``Node.__call__``) and an ``AccumulateGrad``'s ``apply`` are defined
there and bound onto these classes by ``engine._methods``; a tensor saved for backward
unpacks into a ``Tensor``, so ``SavedTensor`` is in ``engine.autograd.saved_tensor``.
"""

from __future__ import annotations

import itertools
import re
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.autograd.anomaly_mode import ANOMALY, store_stack
from engine.backend import CPU, device_of
from engine.dtypes import FROM_NP, legacy_name
from engine.messages import fmt_shape

if TYPE_CHECKING:
    from engine.tensor import Tensor

#: The version counter a node records for an output it saves that has none yet: an
#: output is new, at version 0, and most are never changed in place, so no list is made
#: for it.  The tensor's ``_counter()``, which every in-place change goes through, hands
#: the node the real counter when it makes one (``Node._count_output``).
UNCOUNTED = (0,)
SEQ = itertools.count()  # creation order of nodes (``new_seq``)
MAX_SEQ = 2**63


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` takes the hook out again."""

    __slots__ = ("_hooks", "_key")

    def __init__(self, hooks: dict[int, Any], key: int) -> None:
        self._hooks = hooks
        self._key = key

    def remove(self) -> None:
        self._hooks.pop(self._key, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


_HOOK_IDS = itertools.count()


def add_hook(hooks: dict[int, Any], fn: Any) -> RemovableHandle:
    key = next(_HOOK_IDS)
    hooks[key] = fn
    return RemovableHandle(hooks, key)


#: Public-looking names of the engine's node classes that PyTorch's nodes do not have.
_ENGINE_ONLY = frozenset(
    {
        "apply",
        "math",
        "params",
        "saved",
        "shapes",
        "needs",
        "metadata_",
        "release_variables",
        "saved_names",
    }
)
#: Private names PyTorch's ``dir(grad_fn)`` shows that the engine's nodes have too.
_SHOWN_PRIVATE = frozenset({"_forward_cls"})


class Node:
    """A backward function (``grad_fn``) in the graph."""

    # Slots for what every node sets; hooks and metadata are rare, so they are
    # class-level defaults that an instance overrides (in its __dict__) on first use.
    # ``next_functions`` is kept as two tuples, the nodes (``_fns``) and their output
    # numbers (``_nrs``, usually a shared ``(0,)`` or ``(0, 0)``): no tuple per edge for
    # the collector of a wide graph to count and scan.
    __slots__ = ("__dict__", "__weakref__", "_fns", "_nrs", "_out_meta", "_seq")
    _name = "Node"
    #: The version PyTorch's backward leaves on the gradients it makes (``OpDef``).
    _grad_version = 0
    _tensor_hooks: dict[int, dict[int, Any]] | None = None
    _retain_hooks: dict[int, Any] | None = None
    _pre_hooks: dict[int, Any] | None = None
    _post_hooks: dict[int, Any] | None = None
    metadata_: dict[str, Any] | None = None

    def __init__(self) -> None:
        self._seq = next(SEQ)
        self._fns: tuple[Node | None, ...] = ()
        self._nrs: tuple[int, ...] = ()
        self._out_meta: list[tuple[tuple[int, ...], Any, Any]] = []
        if ANOMALY.enabled:
            store_stack(self)

    def name(self) -> str:
        return self._name

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        """The edges as PyTorch shows them, ``(node, output_nr)`` pairs, built on each
        access (as PyTorch's are) from ``_fns`` and ``_nrs``."""
        return tuple(zip(self._fns, self._nrs, strict=True))

    @next_functions.setter
    def next_functions(self, edges: Any) -> None:
        self._fns = tuple([fn for fn, _ in edges])
        self._nrs = output_nrs(*[nr for _, nr in edges])

    @property
    def metadata(self) -> dict[str, Any]:
        if self.metadata_ is None:
            self.metadata_ = {}
        return self.metadata_

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """PyTorch's node classes are C++ types without a module (``<class 'MulBackward0'>``),
        so the engine's print the same; a custom Function's node sets its own module."""
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("engine."):
            cls.__module__ = "builtins"

    def __repr__(self) -> str:
        kind = type(self)
        module = "" if kind.__module__ == "builtins" else kind.__module__ + "."
        return f"<{module}{kind.__qualname__} object at {id(self):#x}>"

    # -- hooks ------------------------------------------------------------
    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` after the node ran."""
        if self._post_hooks is None:
            self._post_hooks = {}
        return add_hook(self._post_hooks, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_outputs)`` before the node runs; may return replacements."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return add_hook(self._pre_hooks, fn)

    def _add_tensor_hook(self, output_nr: int, fn: Callable[..., Any]) -> RemovableHandle:
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        return add_hook(self._tensor_hooks.setdefault(output_nr, {}), fn)

    # -- what the backward engine calls ----------------------------------
    def apply(self, grads: tuple[Any, ...], tensor_mode: bool) -> tuple[Any, ...]:
        raise NotImplementedError

    def release_variables(self) -> None:
        """Drop saved tensors (after backward without ``retain_graph``)."""

    def saved_names(self) -> tuple[str, ...]:
        return ()

    def _count_output(self, output_nr: int, vc: list[int]) -> None:
        """Output ``output_nr`` was given its version counter ``vc`` (see ``UNCOUNTED``)."""

    def __dir__(self) -> list[str]:
        """What PyTorch's ``dir(grad_fn)`` lists, as far as the engine has it: the public
        names and every ``_saved_*`` the node answers, not the engine's own records
        (``_saved``, ``_fns``, the formula's ``math``/``params``/``saved``), which a
        learner filtering ``dir()`` for ``_saved`` would otherwise mistake for PyTorch's."""
        shown = {
            n
            for n in object.__dir__(self)
            if (n.startswith("__") or not n.startswith("_") or n in _SHOWN_PRIVATE)
            and n not in _ENGINE_ONLY
        }
        return sorted({*shown, *(f"_saved_{n}" for n in self._saved_attr_names())})

    def _saved_attr_names(self) -> tuple[str, ...]:
        """The names ``_saved_<name>`` answers for; those saved, unless a node knows more."""
        return self.saved_names()

    def _unpack_saved(self, name: str) -> Any:
        """``_saved_<name>``: an op's node class has a property per name it answers."""
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '_saved_{name}'")


class AccumulateGrad(Node):
    """The sink of a leaf: adds the incoming gradient into ``variable.grad`` (the backward
    loop does so itself; ``apply``, for a direct call, is ``engine_run.accumulate_grad``)."""

    __slots__ = ("variable",)
    _name = "torch::autograd::AccumulateGrad"
    #: The rule as a formula (``engine.ops.formula``): ``old`` is ``.grad`` before this
    #: backward (0 when None), ``grad`` the sum of the gradients arriving.
    formula = "old + grad"

    def __init__(self, variable: Tensor) -> None:
        # made anew for every leaf on every forward: ``Node.__init__`` spelled out, with
        # no sequence number taken (PyTorch's is UINT64_MAX: it runs after every node)
        self._seq = MAX_SEQ
        self._fns = ()
        self._nrs = ()
        self.variable = variable
        data = variable._data  # (its shape a plain tuple: ``variable.shape`` builds a Size)
        device = CPU if type(data) is np.ndarray else device_of(data)
        self._out_meta = output_meta(data.shape, data.dtype, device)
        if ANOMALY.enabled:
            store_stack(self)


class _SavedHooks(threading.local):
    """The ``saved_tensors_hooks`` in force (innermost last), per thread."""

    stack: list[tuple[Callable[[Any], Any], Callable[[Any], Any]]] | None = None


SAVED_HOOKS = _SavedHooks()


class saved_tensors_hooks:  # noqa: N801  (PyTorch's name)
    """Inside the block, each tensor saved for backward is stored as ``pack_hook(t)``
    and handed to backward as ``unpack_hook(packed)`` (no in-place version check)."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        SAVED_HOOKS.stack = [*(SAVED_HOOKS.stack or ()), (self.pack_hook, self.unpack_hook)]
        return self

    def __exit__(self, *exc: object) -> None:
        stack = SAVED_HOOKS.stack or []
        SAVED_HOOKS.stack = stack[:-1] or None


def modified_message(
    node: Node,
    arr: Any,
    now: int,
    version: int,
    output_nr: int,
    is_output: bool,
    tensor: Tensor | None,
) -> str:
    """PyTorch's error for a saved tensor changed in place since it was saved (at
    ``version``, now at ``now``): a ``SavedTensor``'s or a node's compact record's."""
    kind = legacy_name(FROM_NP[arr.dtype], device_of(arr).type == "cuda")
    sizes = fmt_shape(arr.shape)
    # PyTorch names the op without "Backward" and its overload number 0 ("Exp" for
    # ExpBackward0, "Elu1" for EluBackward1): the owning node for a saved output, the
    # tensor's current grad_fn for a saved input.
    fn = node if is_output else (tensor.grad_fn if tensor is not None else None)
    of = ""
    if fn is not None:
        short = re.sub(
            r"Backward(\d*)$",
            lambda m: "" if m.group(1) in ("", "0") else m.group(1),
            fn.name().rsplit("::", 1)[-1],
        )
        of = f", which is output {output_nr} of {short},"
    hint = (
        "Hint: the backtrace further above shows the operation that failed to compute its "
        "gradient. The variable in question was changed in there or anywhere later. Good luck!"
        if ANOMALY.enabled
        else "Hint: enable anomaly detection to find the operation that failed to compute "
        "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{kind} {sizes}]{of} is at version {now}; expected "
        f"version {version} instead. {hint}"
    )


# -- observing backward ------------------------------------------------------
@dataclass(frozen=True)
class NodeExecution:
    """One node run during backward: gradients in (per output) and out (per edge)."""

    node: Node
    incoming: tuple[Any, ...]
    outgoing: tuple[Any, ...]


class BackwardTrace:
    """Collects ``NodeExecution`` records in the order the engine ran the nodes."""

    def __init__(self) -> None:
        self.executions: list[NodeExecution] = []


class _Observers(threading.local):
    active: list[BackwardTrace] | None = None


OBSERVERS = _Observers()


@contextmanager
def observe_backward() -> Iterator[BackwardTrace]:
    """Record every node the backward engine runs inside the ``with`` block."""
    trace = BackwardTrace()
    prev = OBSERVERS.active
    OBSERVERS.active = [*(prev or ()), trace]
    try:
        yield trace
    finally:
        OBSERVERS.active = prev


#: Shared, never mutated: a node's ``_out_meta`` for one output, one tuple per layout
#: (per dtype, the first ``LAYOUT_LIMIT`` shapes), rather than new tuples per node for a
#: wide graph's collector to scan.  Keyed by dtype, then shape: ``_META`` for an op's
#: node (no device check), ``_CPU_META`` for a CPU leaf's ``AccumulateGrad``.
_META: dict[Any, dict[tuple[int, ...], Any]] = {}
_CPU_META: dict[Any, dict[tuple[int, ...], Any]] = {}
LAYOUT_LIMIT = 4096


def output_meta(shape: tuple[int, ...], dtype: Any, device: Any = None) -> Any:
    """A node's ``_out_meta`` for its one output: ``((shape, dtype, device),)``, with
    ``device`` None where backward does not check the gradient's device (an op's node),
    a leaf's device for its ``AccumulateGrad``."""
    if device is None:
        tables = _META
    elif device is CPU:
        tables = _CPU_META
    else:
        return ((shape, dtype, device),)
    by_shape = tables.get(dtype)
    if by_shape is None:
        by_shape = tables[dtype] = {}
    meta = by_shape.get(shape)
    if meta is None:
        meta = ((shape, dtype, device),)
        if len(by_shape) < LAYOUT_LIMIT:
            by_shape[shape] = meta
    return meta


#: The usual ``_nrs``, shared: every input the first output of its node (or no edge).
NRS = ((), (0,), (0, 0), (0, 0, 0))


def output_nrs(*nrs: int) -> tuple[int, ...]:
    """A node's ``_nrs``: a shared tuple when every number is 0."""
    if len(nrs) < 4 and not any(nrs):
        return NRS[len(nrs)]
    return nrs


def new_seq() -> int:
    """The next sequence number (newer nodes run first among ready ones)."""
    return next(SEQ)


def edge_of(t: Tensor) -> tuple[Node | None, int]:
    """The edge a consumer of ``t`` records: its grad_fn, its leaf's AccumulateGrad,
    or none (no grad needed, or a view made under ``no_grad``)."""
    fn = t.grad_fn
    if fn is not None:
        return fn, t._output_nr
    if t._requires_grad and not t._nograd_view:
        return grad_accumulator(t), 0
    return None, 0


def grad_accumulator(t: Tensor) -> AccumulateGrad:
    """The leaf's ``AccumulateGrad`` node, the same object while it is alive."""
    ref = t._grad_acc
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._grad_acc = weakref.ref(acc)
    return acc
