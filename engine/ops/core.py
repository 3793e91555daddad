"""Op declarations and the one dispatcher that runs them.

Each op is declared once as an ``OpDef``: name, tensor inputs, forward written
against an array module ``xp`` (NumPy or CuPy), backward formula, ``grad_fn``
name, which values it saves, how its result dtype follows PyTorch's promotion,
and sample inputs for the test matrix.  ``apply_op`` does everything else for
every op: device checks, dtype casting, building the node and its edges.

Backward formulas receive the node as ``ctx`` and the incoming gradient ``g``.  They
read the saved values from ``ctx.saved``, the call's parameters from ``ctx.params`` and
use operators and ``ctx.math.<op>(...)``, where ``ctx.math`` runs ops either on raw
arrays (ordinary backward) or on tensors (``create_graph=True``), so a single
formula serves both first and higher derivatives.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine import dtypes, grad_mode
from engine.autograd.anomaly_mode import ANOMALY, store_stack
from engine.autograd.dual_state import DUAL
from engine.autograd.graph import (
    LAYOUT_LIMIT,
    NRS,
    SAVED_HOOKS,
    SEQ,
    UNCOUNTED,
    Node,
    edge_of,
    modified_message,
    output_meta,
    output_nrs,
)
from engine.autograd.saved_attributes import PYTORCH_SAVED
from engine.autograd.saved_tensor import SavedTensor
from engine.backend import array_module
from engine.grad_mode import is_inference_mode_enabled
from engine.messages import (
    BACKWARD_TWICE,
    INFERENCE_INPLACE_ERROR,
    LEAF_INPLACE,
    NOGRAD_VIEW_INPLACE,
    VIEW_LEAF_INPLACE,
    fmt_shape,
)
from engine.ops.kernel_dtypes import NUMBER_OPERANDS, number_operand
from engine.quiet import quietly
from engine.tensor import Tensor

Forward = Callable[..., Any]
Backward = Callable[..., Any]


@dataclass(frozen=True)
class Sample:
    """Inputs for the test matrix: shapes (or values) of tensor inputs, and params."""

    inputs: tuple[Any, ...]
    params: dict[str, Any] = field(default_factory=dict)
    positive: bool = False  # inputs must be > 0 (log, sqrt, pow)
    distinct: bool = False  # avoid ties (max, abs at 0, relu at 0)
    unit: bool = False  # inputs in (0, 1): probabilities, asin, acos
    zeros: bool = False  # some inputs exactly 0 (cumprod's special case)


@dataclass(eq=False, slots=True)
class OpDef:
    """One op, declared once (``declare``): what every reader of the catalogue takes.
    Slotted: ``apply_op`` reads a dozen of its fields on every call."""

    name: str
    grad_fn: str | None
    inputs: tuple[str, ...]
    forward: Forward
    backward: Backward | None = None
    #: The result's dtype: ``"promote"`` (PyTorch's promotion of the inputs), ``"float"``
    #: (promoted, then a float), ``"same"`` (the first input's), ``"sum"`` (a floating
    #: input's own, any other int64; a ``dtype`` param wins), ``"bool"``, or a function
    #: of the inputs and params.
    dtype: str | Callable[..., dtypes.dtype] = "promote"
    save: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    saved_params: tuple[str, ...] = ()  # params PyTorch saves as tensors (freed after backward)
    #: Saved params kept under the engine's own name (``index``'s raw key, where PyTorch
    #: saves a tuple ``_saved_indices``): neither listed by ``dir()`` nor read as ``_saved_*``.
    unlisted: tuple[str, ...] = ()
    quiet: bool = False  # may hit FP edge cases (log 0, x/0): keep NumPy from warning
    #: The forward on bfloat16 inputs as they are, where ATen's kernel for it rounds
    #: inside (``log_softmax``'s last-dim kernel); None: widened to float32, rounded once.
    bf16_forward: Forward | None = None
    ufunc: str | None = None  # NumPy ufunc name: lets in-place calls write with ``out=``
    view: bool = False
    outputs: int = 1
    #: Every output carries the node, not only the first (``std_mean``, ``aminmax``;
    #: where the others are indices, as ``max(dim)``'s, they carry none).
    every_output: bool = False
    #: Outputs are a tuple of any length, every one a view carrying the node (split, unbind).
    split: bool = False
    samples: tuple[Sample, ...] = ()
    #: Each input's local rule as text over the operand names (``engine.ops.formula``):
    #: what the studio shows a learner, tested against ``backward``.
    formula: dict[str, str] = field(default_factory=dict)
    #: ``.grad._version`` PyTorch's backward leaves on each input gradient it makes: its
    #: formula writes into a fresh tensor in place (``index_backward``'s ``index_put_``,
    #: ``value_selecting_reduction_backward``'s ``zeros`` and ``scatter_``, ``maximum``'s
    #: ``masked_fill_``), and a stolen gradient keeps the count.
    grad_version: int = 0
    #: The inputs are one TensorList (``cat``, ``stack``): PyTorch computes every element's
    #: gradient once any is needed (``should_compute_output`` of the list's range), the
    #: elements without an edge included, as a node hook sees them.
    tensor_list: bool = False
    node_cls: type[OpNode] = field(init=False)
    #: ``save`` as ``(key, input index or -1/-2, indices of the inputs it is saved for)``.
    save_plan: tuple[tuple[str, int, tuple[int, ...] | None], ...] = field(init=False)
    multi: bool = field(init=False)  # backward takes one gradient per output
    #: What ``apply_op`` reads on every call, in one tuple (one attribute read, not a
    #: dozen): ``forward, dtype, view, ufunc, quiet, split, outputs, grad_fn, save_plan``.
    dispatch: tuple[Any, ...] = field(init=False)

    def __post_init__(self) -> None:
        plan = []
        for key, when in self.save.items():
            idx = -1 if key == "result" else -2 if key == "indices" else self.inputs.index(key)
            w = None if when is None else tuple(self.inputs.index(n) for n in when)
            plan.append((key, idx, w))
        self.save_plan = tuple(plan)
        self.multi = self.outputs > 1 or self.split
        self.dispatch = (
            self.forward,
            self.dtype,
            self.view,
            self.ufunc,
            self.quiet,
            self.split,
            self.outputs,
            self.grad_fn,
            self.save_plan,
        )
        name = self.grad_fn or f"{self.name}NoGrad"
        cls_name = name.rsplit("::", 1)[-1]
        if name == "NotImplemented":  # ATen's node for ops without a derivative
            name = "torch::autograd::NotImplemented"
        self.node_cls = type(
            cls_name,
            (OpNode,),
            {
                "__slots__": (),
                "_name": name,
                "_op": self,
                "_grad_version": self.grad_version,
                **saved_properties(self),
            },
        )


OPS: dict[str, OpDef] = {}


def declare(
    name: str,
    grad_fn: str | None,
    inputs: tuple[str, ...],
    forward: Forward,
    backward: Backward | None = None,
    **kw: Any,
) -> OpDef:
    op = OpDef(name, grad_fn, inputs, forward, backward, **kw)
    if name in OPS:
        raise ValueError(f"op {name} declared twice")
    OPS[name] = op
    return op


class OpNode(Node):
    """A node whose backward is an ``OpDef``'s formula."""

    # Slots, each set wherever a node is made, so that neither saving nor backward
    # gives a node a ``__dict__`` (for the collector to scan, and to allocate).
    # ``_needs`` is set where it differs from the edges (an in-place op on a view,
    # whose first edge moves to ``CopySlices``) or is known anyway; otherwise None,
    # and derived on first use in backward.
    __slots__ = ("_needs", "_released", "_saved", "math", "params", "saved", "shapes")
    _op: OpDef

    @property
    def needs(self) -> list[bool] | tuple[bool, ...]:
        """Which inputs receive a gradient: those with an edge."""
        needs = self._needs
        if needs is None:
            # kept: formulas ask once per input, and the edges never change once made
            # (an in-place op that moves its first edge sets ``needs`` before it does)
            needs = self._needs = tuple([fn is not None for fn in self._fns])
        return needs

    @needs.setter
    def needs(self, value: list[bool] | tuple[bool, ...]) -> None:
        self._needs = value

    def apply(self, grads: tuple[Any, ...], tensor_mode: bool) -> tuple[Any, ...]:
        op = self._op
        records = self._saved
        if self._released:
            raise RuntimeError(BACKWARD_TWICE)
        if records:
            saved = {}
            for record in records:
                name, value, counter, version, output_nr, source = record
                if counter is None:
                    saved[name] = (
                        value.unpack(self, tensor_mode) if type(value) is SavedTensor else value
                    )
                    continue
                if counter[0] != version:
                    raise RuntimeError(_modified(self, record))
                if tensor_mode:
                    value = Tensor._wrap(value, self, output_nr) if source is None else source
                saved[name] = value
            self.saved = saved
        self.math = TENSOR_MATH if tensor_mode else ARRAY_MATH
        try:
            assert op.backward is not None
            if op.multi:
                out = op.backward(self, *grads)
            else:
                out = op.backward(self, grads[0])
        finally:
            self.saved = None
            self.math = None
        needs = self._needs
        fns = self._fns
        if type(out) is not tuple:
            # one input: the common case, without the general zip below
            if (
                type(out) is np.ndarray
                and len(fns) == 1
                and (fns[0] is not None if needs is None else needs[0])
            ):
                return [out]
            out = (out,)
        if needs is None:
            needs = self.needs
        if op.tensor_list:
            needs = (True,) * len(fns)
        count = len(out)
        if count != len(fns):
            raise RuntimeError(_wrong_count(self, count))
        res = []
        for i in range(count):  # (by index: a zip costs more than the loop)
            g = out[i]
            res.append(
                None
                if not needs[i]
                else g
                if type(g) is np.ndarray or (hasattr(g, "shape") and not isinstance(g, np.generic))
                else _arr(g)
            )
        return res

    def release_variables(self) -> None:
        records = self._saved
        if records:
            self._released = True
            self._saved = tuple([_released(record) for record in records])
        elif self._op.saved_params:
            self._released = True

    def saved_names(self) -> tuple[str, ...]:
        return tuple([Saved._make(record).name for record in self._saved]) if self._saved else ()

    def _saved_attr_names(self) -> tuple[str, ...]:
        """The ``_saved_*`` names of PyTorch's class of this name that the node answers:
        every tensor the op may save (``_saved_self`` of ``x * 2.0`` is None, as PyTorch's
        class has the attribute whether or not this call saved it) and the scalars
        ``_saved_scalar`` knows; PyTorch's ``*_sym_strides`` and the like are left out."""
        op = self._op
        own = {n: None for n in (*self.saved_names(), *op.save, *op.saved_params)}
        for n in op.unlisted:
            own.pop(n, None)
        pytorch = PYTORCH_SAVED.get(self._op.grad_fn or "")
        if pytorch is None:
            return tuple(own)
        return tuple(n for n in pytorch if n in own or self._saved_scalar(n) is not _ABSENT)

    def _saved_scalar(self, name: str) -> Any:
        """A scalar PyTorch's class of this name saves, where the engine reads it back as
        PyTorch does: an input's ``*_sym_sizes`` (a tuple of ints), ``reduction`` as
        ATen's enum, ``keepdim``, and ``alpha``/``beta`` (their default when the call
        left them out); ``_ABSENT`` otherwise.  The op's other params are not listed:
        the engine keeps some normalised (a negative ``dim``, a slice's open ``end``)
        where PyTorch keeps what the call gave."""
        pytorch = PYTORCH_SAVED.get(self._op.grad_fn or "")
        if pytorch is None or name not in pytorch:
            return _ABSENT
        p = self.params or {}
        if name.endswith("_sym_sizes"):
            inputs = self._op.inputs
            base = name[: -len("_sym_sizes")]
            if base in inputs and self.shapes is not None:
                return tuple(int(n) for n in self.shapes[inputs.index(base)])
            return _ABSENT
        if name == "reduction" and isinstance(p.get("reduction"), str):
            return _REDUCTIONS[p["reduction"]]
        if name == "keepdim" and type(p.get("keepdim")) is bool:
            return p["keepdim"]
        if name in _SAVED_DEFAULTS:
            return p.get(name, _SAVED_DEFAULTS[name])
        return _ABSENT

    def _count_output(self, output_nr: int, vc: list[int]) -> None:
        records = getattr(self, "_saved", None)  # unset while its own records are made
        if records:
            counted = []
            for record in records:
                r = Saved._make(record)
                if r.counter is UNCOUNTED and r.output_nr == output_nr and r.source is None:
                    record = tuple(r._replace(counter=vc))
                counted.append(record)
            self._saved = tuple(counted)

    def _unpack_saved(self, name: str) -> Any:
        records = self._saved or ()
        names = [Saved._make(record).name for record in records]
        if name not in names:
            p = self.params or {}
            if name in self._op.unlisted:
                raise AttributeError(
                    f"'{type(self).__name__}' object has no attribute '_saved_{name}'"
                )
            if name in self._op.saved_params:
                # saved by PyTorch as a tensor: one to read, freed by backward
                if self._released:
                    raise RuntimeError(BACKWARD_TWICE)
                return None if p.get(name) is None else wrapped_tensor(p[name])
            if name in self._op.save:
                return p.get(name)
            value = self._saved_scalar(name)
            if value is not _ABSENT:
                return value
            if name in p:
                return p[name]
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '_saved_{name}'")
        record = records[names.index(name)]
        _, value, counter, version, output_nr, source = record
        if counter is None:
            if source is WRAPPED:
                if value is None:
                    raise RuntimeError(BACKWARD_TWICE)
                return wrapped_tensor(value)
            return value.unpack(self, True) if type(value) is SavedTensor else value
        if value is None:
            raise RuntimeError(BACKWARD_TWICE)
        if counter[0] != version:
            raise RuntimeError(_modified(self, record))
        return Tensor._wrap(value, self, output_nr) if source is None else source


#: Half precision overflows at 65504: its ops run with NumPy's warnings off, as
#: PyTorch gives ``inf`` without a word (float32 and float64 keep the fast path).
_F16 = np.dtype(np.float16)
#: bfloat16 (``ml_dtypes``): an op's forward runs on its inputs widened to float32 and
#: its result rounds once, as ATen's CPU kernels compute through ``opmath_type``.
_BF16 = dtypes.BF16_NP

#: What ``OpNode._saved_scalar`` answers where the engine holds no such fact.
_ABSENT = object()
#: Scalars PyTorch saves with their default when a call leaves them out (``x + w``).
_SAVED_DEFAULTS = {"alpha": 1, "beta": 1}
#: ``reduction`` as PyTorch's nodes save it: ATen's ``Reduction`` enum.
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}

#: One value a node saved for backward (a node's ``_saved`` is a tuple of them):
#:
#: - ``name``: the formula's key in ``ctx.saved`` (an input's name, ``result``, ``indices``);
#: - ``value``: for a tensor its array (None once backward released it); otherwise the
#:   value itself: a number, indices, a ``SavedTensor`` under ``saved_tensors_hooks``;
#: - ``counter``: a tensor's version counter (None for anything else), ``version`` the
#:   version it was saved at, so backward sees an in-place change since;
#: - ``output_nr``: which output of its node the tensor is (for the in-place message);
#: - ``source``: an input tensor itself; None for the op's own result (which would keep
#:   itself alive), rebuilt from the array on unpack; ``WRAPPED`` for a raw value.
#:
#: ``Saved`` names the fields; a record itself is a plain tuple of them, made by
#: ``saved_record`` and read either by unpacking all six names (backward, which reads
#: every field) or through ``Saved._make(record)``.  Not the named tuple itself: the
#: collector never stops tracking an instance of a tuple subclass, where it stops
#: tracking a plain tuple of untracked values (an output's array, its version, None),
#: so a wide graph's records would be two more objects per node for every collection
#: to scan, and collections would come more often.
Saved = namedtuple("Saved", ("name", "value", "counter", "version", "output_nr", "source"))
SavedRecord = tuple[Any, ...]


def saved_properties(op: OpDef) -> dict[str, property]:
    """The ``_saved_<name>`` attributes of ``op``'s node class, one property each (as
    PyTorch's generated node classes have one getter each): what it saves, the params
    PyTorch saves as tensors, the names PyTorch's class of this name has, and the
    forward's own params.  Properties rather than a ``__getattr__`` on every node: a
    class with ``__getattr__`` takes a slower path for every attribute read, and the
    backward loop reads a dozen per node."""
    names = {
        *op.save,
        *op.saved_params,
        *PYTORCH_SAVED.get(op.grad_fn or "", ()),
        *_forward_params(op),
    }
    return {
        f"_saved_{n}": _saved_property(n)
        for n in sorted(names)
        if n not in op.unlisted or n in op.save
    }


def _forward_params(op: OpDef) -> tuple[str, ...]:
    """The names of the params ``op``'s forward takes (after ``xp`` and the inputs)."""
    code = getattr(op.forward, "__code__", None)
    if code is None:
        return ()
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return tuple(names[1 + len(op.inputs) :])


def _saved_property(name: str) -> property:
    def read(node: OpNode) -> Any:
        return node._unpack_saved(name)

    read.__name__ = f"_saved_{name}"
    return property(read, doc=f"``_saved_{name}``, as PyTorch's node answers it.")


def saved_record(
    name: str, value: Any, counter: Any, version: int, output_nr: int, source: Any
) -> SavedRecord:
    """One ``Saved`` record, as the plain tuple a node keeps (see ``Saved``)."""
    return (name, value, counter, version, output_nr, source)


#: The ``source`` of a record whose value PyTorch saves as a tensor though the engine
#: keeps it raw: a Python number in a tensor's place (a "wrapped number", as in
#: ``x * 2.0``) or an op's indices.  Read as ``_saved_*`` it is a tensor; backward
#: frees it, as PyTorch's ``SavedVariable``.
WRAPPED = object()


def _released(record: SavedRecord) -> SavedRecord:
    """``record`` after backward without ``retain_graph``: a tensor's (or a wrapped
    value's) array goes, the record stays to say "a second time" on unpack; a
    ``SavedTensor`` frees its own; other values stay."""
    name, value, counter, version, output_nr, source = record
    if counter is not None:
        return saved_record(name, None, counter, version, output_nr, None)
    if source is WRAPPED:
        return saved_record(name, None, None, 0, 0, WRAPPED)
    if type(value) is SavedTensor:
        value.release()
    return record


def wrapped_tensor(v: Any) -> Any:
    """``v`` as PyTorch shows a saved non-tensor: a Python number as the 0-d tensor it
    wraps it in (double, long, bool or complex double), an array as a tensor."""
    if isinstance(v, bool | np.bool_):
        data = np.asarray(v, np.bool_)
    elif isinstance(v, int | np.integer):
        data = np.asarray(v, np.int64)
    elif isinstance(v, float | np.floating):
        data = np.asarray(v, np.float64)
    elif isinstance(v, complex | np.complexfloating):
        data = np.asarray(v, np.complex128)
    else:
        data = v
    return Tensor._wrap(data)


def _modified(node: OpNode, record: SavedRecord) -> str:
    """The in-place error for a saved tensor changed since it was saved."""
    _, value, counter, version, output_nr, source = record
    return modified_message(node, value, counter[0], version, output_nr, source is None, source)


def _wrong_count(node: OpNode, count: int) -> str:
    """The internal error for a backward formula that gave ``count`` gradients."""
    inputs = len(node._fns)
    return (
        f"internal error in the engine: the backward formula of {node._op.name} "
        f"({node.name()}) returned {count} gradient{'s' if count != 1 else ''} for "
        f"{inputs} input{'s' if inputs != 1 else ''}"
    )


# -- the two math namespaces that backward formulas run on -------------------
def _arr(g: Any) -> Any:
    """A gradient as an array (NumPy turns 0-d results into scalars)."""
    return None if g is None else np.asarray(g) if isinstance(g, np.generic | float | int) else g


class _ArrayMath:
    """``ctx.math.<op>(...)`` on raw arrays: the op's forward, nothing recorded."""

    def __getattr__(self, name: str) -> Callable[..., Any]:
        op = OPS[name]
        fwd = op.forward

        def call(*args: Any, **kw: Any) -> Any:
            if type(args[0]) is np.ndarray:
                if args[0].dtype is _BF16 and not op.view:
                    return _array_math_bf16(fwd, args, kw)
                return fwd(np, *args, **kw)
            for a in args:
                if hasattr(a, "shape") and not isinstance(a, np.generic):
                    return fwd(array_module(a), *args, **kw)
            return fwd(np, *args, **kw)

        setattr(self, name, call)
        return call


def _array_math_bf16(fwd: Callable[..., Any], args: tuple[Any, ...], kw: dict[str, Any]) -> Any:
    """A backward formula's step on bfloat16 arrays: computed in float32 and rounded
    once, as the ATen op it stands for (``apply_op``'s rule for the forward)."""
    out = fwd(np, *[dtypes.widened(a) for a in args], **kw)
    if isinstance(out, tuple):
        return tuple(_bf16_again(o) for o in out)
    return _bf16_again(out)


def _bf16_again(out: Any) -> Any:
    """A float32 result of a widened bfloat16 step, rounded back to bfloat16."""
    dt = getattr(out, "dtype", None)
    if dt is not None and dt == np.float32:
        return dtypes.cast_array(np.asarray(out), _BF16)
    return out


class _TensorMath:
    """``ctx.math.<op>(...)`` on tensors: the op itself, recorded for higher derivatives."""

    def __getattr__(self, name: str) -> Callable[..., Any]:
        op = OPS[name]

        def call(*args: Any, **kw: Any) -> Any:
            return apply_op(op, args, kw)

        setattr(self, name, call)
        return call


ARRAY_MATH = _ArrayMath()
TENSOR_MATH = _TensorMath()


# -- dispatch ----------------------------------------------------------------
def _result_dtype(op: OpDef, inputs: tuple[Any, ...], params: dict[str, Any]) -> dtypes.dtype:
    rule = op.dtype
    if rule == "promote" or rule == "float":
        first = inputs[0]
        d = getattr(first, "_dtype_for_promotion", None)
        if d is not None and all(getattr(x, "_dtype_for_promotion", None) is d for x in inputs[1:]):
            out = d
        else:
            out = dtypes.result_type(*inputs)
        return dtypes.to_float(out) if rule == "float" else out
    if rule == "same":
        return inputs[0].dtype
    if rule == "sum":
        if params.get("dtype") is not None:
            return params["dtype"]
        d = inputs[0].dtype
        return d if d.is_floating_point else dtypes.int64
    if rule == "bool":
        return dtypes.bool_
    assert callable(rule)
    return rule(inputs, params)


def _same_device(op: OpDef, tensors: list[Any]) -> Any:
    dev = tensors[0].device
    for t in tensors[1:]:
        if t.device != dev:
            a, b = sorted((str(dev), str(t.device)), key=lambda s: s != "cuda:0")
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two devices, "
                f"{a} and {b}!"
            )
    return dev


_EMPTY: dict[str, Any] = {}


def apply_op(op: OpDef, inputs: tuple[Any, ...], params: dict[str, Any] | None = None) -> Any:
    """Run ``op`` forward on ``inputs`` (tensors, Python numbers, None for an optional
    input left out) and record it: the one path every op takes, in four steps.

    1. The operands: each input's array, the array module, whether any input requires
       grad, and the result dtype: the inputs' own where they share one and a Python
       number cannot change its category (most calls in a model), else PyTorch's
       promotion rules (``_result_dtype``).
    2. The forward on those arrays (a Python number as a cached 0-d array of the
       tensor's dtype where that gives the same bits for less, ``number_operand``).
    3. The result tensor; a view shares its base's version counter and records the
       chain of view ops from its base.
    4. Where a gradient is wanted, the node (``_record``); several outputs share it.
    """
    if DUAL and DUAL[0].carries(inputs):
        return DUAL[0].apply(op, inputs, params)
    if params is None:
        params = _EMPTY
    forward, rule, view, ufunc, quiet, split, outputs, grad_fn, save_plan = op.dispatch
    # 1. the operands
    requires = False
    first = None  # the first tensor's array
    d = None  # its NumPy dtype
    arrays = []
    scalar_kind = 0  # 2: a Python float among the inputs; 1: a Python int
    general = False  # another dtype, a tensor subclass or another object: promotion decides
    low = False  # a bfloat16 input: the forward runs on float32 (``_BF16``)
    for x in inputs:
        tx = type(x)
        if tx is Tensor or isinstance(x, Tensor):
            data = x._data
            xd = data.dtype
            if first is None:
                first, d = data, xd
            else:
                if type(data) is not type(first):
                    _same_device(op, [t for t in inputs if isinstance(t, Tensor)])
                if xd is not d and xd != d:
                    general = True
            if tx is not Tensor:
                general = True
            if x.grad_fn is not None or x._requires_grad:
                requires = True
            if xd is _BF16:
                low = True
            arrays.append(data)
        else:
            if tx is float:
                scalar_kind = 2
            elif tx is int:
                if not scalar_kind:
                    scalar_kind = 1
            elif x is not None and tx is not bool:
                general = True
            arrays.append(x)
    arr_type = type(first)
    xp = np if arr_type is np.ndarray else array_module(first)
    np_dtype = None
    if not general and d is not None:
        kind = d.kind
        if rule == "promote" or rule == "float":
            if not (
                (scalar_kind == 2 and kind != "f")
                or (scalar_kind == 1 and kind == "b")
                or (rule == "float" and kind != "f")
            ):
                np_dtype = d
        elif (
            (rule == "same" or (rule == "sum" and params.get("dtype") is None))
            and kind == "f"
            and first is arrays[0]
        ):
            np_dtype = d
    if np_dtype is None:
        np_dtype = _result_dtype(op, inputs, params).np
    # 2. the forward
    operands = arrays
    if low and not view:
        if op.bf16_forward is not None:
            forward = op.bf16_forward
        else:
            operands = [dtypes.widened(a) for a in arrays]
    if (
        ufunc is not None
        and scalar_kind
        and len(arrays) == 2
        and arr_type is np.ndarray
        and first is arrays[0]
        and np_dtype is d
        and d.kind == "f"
    ):
        number = arrays[1]
        if type(number) is float or type(number) is int:
            known = NUMBER_OPERANDS.get(d)
            operand = None if known is None else known.get(number)
            if operand is None:
                operand = number_operand(number, d)
            operands = [first, operand]
    try:
        if quiet or np_dtype is _F16:  # (a tensor's dtypes are NumPy's native ones)
            out = quietly(forward, xp, *operands, **params)
        else:
            out = forward(xp, *operands, **params)
    except ValueError as exc:
        raise _broadcast_error(arrays) or exc from None
    except OverflowError:
        arrays = _wrapped_ints(arrays, np_dtype)
        out = quietly(op.forward, xp, *arrays, **params)
    if split:
        return _split_outputs(op, inputs, params, out, requires)
    # 3. the result
    if outputs > 1:
        outs = [o if type(o) is not np.generic else np.asarray(o) for o in out]
        result = outs[0]
    else:
        result = out
    if type(result) is not arr_type and (
        isinstance(result, np.generic) or not hasattr(result, "shape")
    ):
        result = xp.asarray(result)  # a scalar; an array keeps its own device (``_to_copy``)
    rd = result.dtype
    if rd is not np_dtype and rd != np_dtype:
        result = (
            dtypes.cast_array(result, np_dtype) if np_dtype is _BF16 else result.astype(np_dtype)
        )
    r = _new(Tensor)
    r._data = result
    if view:
        base = inputs[0]
        r._vc = base._counter()
        step = (op, params)
        if base._base is not None:
            r._base = base._base
            r._view_chain = (*base._view_chain, step)
        else:
            r._base = base
            r._view_chain = (step,)
        if requires and not grad_mode.STATE.enabled:
            r._requires_grad = True
            r._nograd_view = True
    # 4. the node
    if (
        requires
        and grad_fn is not None
        and grad_mode.STATE.enabled
        and (np_dtype.kind == "f" or np_dtype is _BF16)
    ):
        node = _record(op, inputs, arrays, arr_type, params, r, out)
        if view:
            r._view_fn = node
            r._view_ver = r._vc[0]
        else:
            r.grad_fn = node
        if save_plan:
            node._saved = _save(op, inputs, r, out, node._needs)
    if outputs > 1:
        if low:  # a float output of a bfloat16 op rounds as its first does
            outs = [
                dtypes.cast_array(o, _BF16) if getattr(o, "dtype", None) == np.float32 else o
                for o in outs
            ]
        rest = [Tensor._wrap(o if hasattr(o, "shape") else xp.asarray(o)) for o in outs[1:]]
        node = r.grad_fn
        if op.every_output and node is not None:
            node._out_meta = tuple([(o._data.shape, o._data.dtype, None) for o in (r, *rest)])
            for i, o in enumerate(rest, 1):
                o.grad_fn = node
                o._output_nr = i
        return (r, *rest)
    return r


def _record(
    op: OpDef,
    inputs: tuple[Any, ...],
    arrays: list[Any],
    arr_type: type,
    params: dict[str, Any],
    r: Any,
    out: Any,
) -> OpNode:
    """``op``'s node for result ``r``: an edge per input (to its node, to a leaf's
    ``AccumulateGrad``, or none), which inputs need a gradient, the input shapes and the
    output's metadata; the caller attaches it and saves what the formula reads."""
    node = _new_node(op)
    node._saved = None
    n = len(inputs)
    if n == 1:  # most ops: the loop below without its lists
        x = inputs[0]
        fn = x.grad_fn
        if fn is not None:
            nr = x._output_nr
        elif x._requires_grad:
            fn, nr = _leaf_edge(x)
        else:
            nr = 0
        fns: Any = (fn,)
        nrs: Any = _NRS1 if nr == 0 else (nr,)
        needs: Any = _NEEDS_1 if fn is not None else _NEEDS_0
        shapes: Any = (arrays[0].shape,)
    elif n == 2:  # binary ops: the loop below without its lists
        fn0, nr0 = _input_edge(inputs[0])
        fn1, nr1 = _input_edge(inputs[1])
        fns = (fn0, fn1)
        nrs = _NRS2 if nr0 == 0 and nr1 == 0 else (nr0, nr1)
        needs = _NEEDS[(fn0 is not None, fn1 is not None)]
        shapes = (
            _input_shape(inputs[0], arrays[0], arr_type),
            _input_shape(inputs[1], arrays[1], arr_type),
        )
    else:
        # (by index: ``zip(..., strict=True)`` costs more than the rest of this loop)
        fn_list = []
        nr_list = []
        shape_list = []
        for i in range(n):
            fn, nr = _input_edge(inputs[i])
            fn_list.append(fn)
            nr_list.append(nr)
            shape_list.append(_input_shape(inputs[i], arrays[i], arr_type))
        # Tuples, not lists: the collector stops tracking a tuple of plain values, and
        # a wide graph's nodes are otherwise what its full collections spend time on.
        fns = tuple(fn_list)
        nrs = output_nrs(*nr_list)
        needs = tuple([fn is not None for fn in fns])
        needs = _NEEDS.get(needs, needs)
        shapes = tuple(shape_list)
    node._fns = fns
    node._nrs = nrs
    node._needs = needs
    node.params = params
    node.shapes = _LAYOUTS.get(shapes) or _layout(shapes)
    result = r._data
    node._out_meta = output_meta(result.shape, result.dtype)
    return node


def _new_node(op: OpDef) -> Any:
    """A node of ``op``'s class, numbered; its other fields are set by the caller, so the
    generic ``__init__`` is skipped."""
    node = _new(op.node_cls)
    node._seq = next(SEQ)
    node._released = False
    if ANOMALY.enabled:
        store_stack(node)
    return node


#: Which inputs need a gradient, one shared tuple per pattern of up to three inputs.
_NEEDS_0 = (False,)
_NEEDS_1 = (True,)
_NEEDS: dict[tuple[bool, ...], tuple[bool, ...]] = {
    needs: needs
    for needs in (
        (False, False),
        (False, True),
        (True, False),
        (True, True),
        *((a, b, c) for a in (False, True) for b in (False, True) for c in (False, True)),
    )
}

_NRS1 = NRS[1]
_NRS2 = NRS[2]
_NO_EDGE = (None, 0)

#: Shared, never mutated: the input shapes a node records, one tuple per layout rather
#: than new tuples per node (which a wide graph's collector would otherwise scan), as
#: ``output_meta`` shares its output metadata.
_LAYOUTS: dict[Any, Any] = {}


def _leaf_edge(t: Any) -> tuple[Any, int]:
    """``edge_of`` a leaf that requires grad: its live ``AccumulateGrad`` without a call."""
    ref = t._grad_acc
    if ref is not None and not t._nograd_view:
        acc = ref()
        if acc is not None:
            return (acc, 0)
    return edge_of(t)


def _input_edge(x: Any) -> tuple[Any, int]:
    """The edge a node records for input ``x``: to its node (and output), to its leaf's
    ``AccumulateGrad``, or none (a tensor that needs no gradient, or a number)."""
    if type(x) is Tensor or isinstance(x, Tensor):
        fn = x.grad_fn
        if fn is not None:
            return (fn, x._output_nr)
        if x._requires_grad:
            return _leaf_edge(x)
    return _NO_EDGE


def _input_shape(x: Any, a: Any, arr_type: type) -> Any:
    """The shape a node records for input ``x`` (its array ``a``): a number's is ``()``."""
    if type(a) is arr_type or isinstance(x, Tensor):
        return a.shape
    return ()


def _layout(shapes: Any) -> Any:
    """``shapes`` interned in ``_LAYOUTS`` (while it holds fewer than its limit)."""
    if len(_LAYOUTS) < LAYOUT_LIMIT:
        _LAYOUTS[shapes] = shapes
    return shapes


def _split_outputs(
    op: OpDef, inputs: tuple[Any, ...], params: dict[str, Any], parts: Any, requires: bool
) -> tuple[Any, ...]:
    """Views of ``inputs[0]`` that share one node, each at its own output index."""
    base = inputs[0]
    root = base._base if base._base is not None else base
    chain = base._view_chain or ()
    outs = []
    for i, part in enumerate(parts):
        r = _new(type(base) if type(base) is Tensor else Tensor)
        r._data = part
        r._vc = base._counter()
        r._base = root
        r._view_chain = (*chain, (op, {**params, "output_nr": i}))
        if not grad_mode.STATE.enabled and requires:
            r._requires_grad = True
            r._nograd_view = True
        outs.append(r)
    if (
        requires
        and op.grad_fn is not None
        and grad_mode.STATE.enabled
        and base.dtype.is_floating_point
    ):
        node = _new_node(op)
        node._saved = None
        node.next_functions = (edge_of(base),)
        node.needs = [True]
        node.params = params
        node.shapes = [base._data.shape]
        node._out_meta = tuple((o._data.shape, o._data.dtype, None) for o in outs)
        for i, r in enumerate(outs):
            r._view_fn = node
            r._view_ver = r._vc[0]
            r._output_nr = i
    return tuple(outs)


def _broadcast_error(arrays: list[Any]) -> RuntimeError | None:
    """PyTorch's wording when two operand shapes cannot broadcast."""
    shapes = [tuple(a.shape) for a in arrays if hasattr(a, "shape")]
    if len(shapes) < 2:
        return None
    a, b = shapes[0], shapes[1]
    n = max(len(a), len(b))
    for i in range(n - 1, -1, -1):
        da = a[i - (n - len(a))] if i >= n - len(a) else 1
        db = b[i - (n - len(b))] if i >= n - len(b) else 1
        if da != db and da != 1 and db != 1:
            return RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                f"non-singleton dimension {i}"
            )
    return None


_new = object.__new__


def _save(
    op: OpDef, inputs: tuple[Any, ...], result: Any, raw: Any, needs: Any
) -> tuple[SavedRecord, ...]:
    """The node's ``_saved`` records (see ``Saved``) for what ``op`` saves."""
    saved: list[SavedRecord] = []
    for key, idx, when in op.save_plan:
        if when is not None:
            for w in when:
                if needs[w]:
                    break
            else:
                continue  # no input that needs it requires grad
        if idx == -1:
            saved.append(_saved_tensor(key, result, True))
        elif idx == -2:
            saved.append(saved_record(key, raw[1], None, 0, 0, WRAPPED))
        else:
            v = inputs[idx]
            if v is not None:
                if isinstance(v, Tensor):
                    saved.append(_saved_tensor(key, v, False))
                else:
                    saved.append(saved_record(key, v, None, 0, 0, WRAPPED))
    return tuple(saved)


def _saved_tensor(key: str, t: Any, is_output: bool) -> SavedRecord:
    """``t``'s record; a ``SavedTensor`` under hooks or for an inference tensor (whose
    checks and packing it keeps)."""
    if t._inference or SAVED_HOOKS.stack:
        return saved_record(key, SavedTensor(t, is_output), None, 0, 0, None)
    vc = t._vc
    if vc is None:
        vc = UNCOUNTED if is_output else t._counter()
    return saved_record(key, t._data, vc, vc[0], t._output_nr, None if is_output else t)


# -- in-place ----------------------------------------------------------------
#: The end of PyTorch's message for an output of ``split``/``unbind`` changed in place.
_MULTI_VIEW = (
    "This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation "
    "by an out-of-place one."
)


def check_inplace(t: Any) -> None:
    if not grad_mode.STATE.enabled:
        return
    if t._nograd_view:
        raise RuntimeError(NOGRAD_VIEW_INPLACE)
    chain = t._view_chain
    if chain and chain[-1][0].split and t.requires_grad:
        op, params = chain[-1]
        raise RuntimeError(
            f"Output {params['output_nr']} of {op.grad_fn.removesuffix('Backward0')} is a view "
            f"and is being modified inplace. {_MULTI_VIEW}"
        )
    if t.grad_fn is None and t._requires_grad:
        raise RuntimeError(LEAF_INPLACE)
    b = t._base
    if b is not None and b.grad_fn is None and b._requires_grad:
        raise RuntimeError(VIEW_LEAF_INPLACE)


def apply_inplace(op: OpDef, inputs: tuple[Any, ...], params: dict[str, Any] | None = None) -> Any:
    """Run ``op`` and write its result into ``inputs[0]``, rebasing its history."""
    if DUAL and DUAL[0].carries(inputs):
        return DUAL[0].apply_inplace(op, inputs, params)
    self = inputs[0]
    if self._inference and not is_inference_mode_enabled():
        # PyTorch writes first, then refuses to bump the version counter.
        with grad_mode.no_grad():
            _apply_inplace(op, inputs, params)
        raise RuntimeError(INFERENCE_INPLACE_ERROR)
    return _apply_inplace(op, inputs, params)


def _apply_inplace(op: OpDef, inputs: tuple[Any, ...], params: dict[str, Any] | None) -> Any:
    self = inputs[0]
    check_inplace(self)
    _check_overlap(self, inputs)
    if (
        op.ufunc is not None
        and not params
        and not (
            grad_mode.STATE.enabled and any(getattr(x, "requires_grad", False) for x in inputs)
        )
    ):
        done = _inplace_ufunc(op, self, inputs)
        if done:
            return self
    params = params or {}
    out_dtype = _result_dtype(op, inputs, params)
    if not _can_cast(out_dtype, self.dtype):
        raise RuntimeError(
            f"result type {out_dtype.scalar_name} can't be cast to the desired output type "
            f"{self.dtype.scalar_name}"
        )
    tensors = [x for x in inputs if isinstance(x, Tensor)]
    _same_device(op, tensors)
    need = (
        op.grad_fn is not None
        and grad_mode.STATE.enabled
        and self.dtype.is_floating_point
        and any(t.requires_grad for t in tensors)
    )
    original = inputs
    if need and op.save and "self" in op.save:
        # PyTorch saves ``self.clone()`` for a formula that reads the overwritten input:
        # a tensor of its own, whose ``CloneBackward0`` leads to self's history
        original = (apply_op(OPS["clone"], (self,)), *inputs[1:])
    arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
    xp = array_module(self._data)
    try:
        out = quietly(op.forward, xp, *arrays, **params)
    except ValueError as exc:  # ``x += y`` of shapes that cannot broadcast: ATen's words
        raise _broadcast_error(arrays) or exc from None
    except OverflowError:
        arrays = _wrapped_ints(arrays, self._data.dtype)
        out = quietly(op.forward, xp, *arrays, **params)
    if tuple(np.shape(out)) != self.shape:
        raise RuntimeError(
            f"output with shape {fmt_shape(self.shape)} doesn't match the broadcast "
            f"shape {fmt_shape(np.shape(out))}"
        )
    edges: list[tuple[Any, int]] = []
    needs: list[bool] = []
    if need:  # as ATen, before the write: a view's node is its own until then
        for x in inputs:
            if isinstance(x, Tensor) and x.requires_grad:
                e = edge_of(x)
                edges.append(e)
                needs.append(e[0] is not None)
            else:
                edges.append((None, 0))
                needs.append(False)
    self._data[...] = out
    self._counter()[0] += 1
    if need:
        node = op.node_cls()
        node._released = False
        node._saved = None
        node.next_functions = tuple(edges)
        node.needs = tuple(needs)
        node.params = params
        node.shapes = tuple(getattr(x, "shape", ()) for x in inputs)
        node._out_meta = [(self.shape, self._data.dtype, self.device)]
        if op.save:
            node._saved = _before_write(_save(op, original, self, None, needs), self._vc)
        if self._base is not None and self._view_chain is not None:
            _rebase_view(self, node)
        else:
            self.grad_fn = node
            self._output_nr = 0
    return self


def _wrapped_ints(arrays: list[Any], dtype: Any) -> list[Any]:
    """Python ints beyond an integer tensor's range, cast as ATen casts a Scalar: wrapped
    (``int8_tensor * 200`` multiplies by -56), where NumPy 2 raises; beyond int64, the
    ``OverflowError`` PyTorch raises too."""
    if np.dtype(dtype).kind not in "iu":
        raise OverflowError("int too big to convert")
    out = []
    for a in arrays:
        if type(a) is int:
            if not -(2**63) <= a < 2**64:
                raise OverflowError("int too big to convert")
            a = np.array(a % 2**64, np.uint64).astype(np.int64).astype(dtype)
        out.append(a)
    return out


def _check_overlap(self: Any, inputs: tuple[Any, ...]) -> None:
    """ATen's ``assert_no_partial_overlap``: an input may be the written tensor itself
    (``x.add_(x)``) or apart from it, not overlap part of it (``x.add_(x.t())``).  As
    ATen, only dense tensors are compared, by the span of memory each covers."""
    data = self._data
    for x in inputs[1:]:
        a = getattr(x, "_data", None)
        if (
            a is None
            or a is data
            or type(a) is not np.ndarray
            or type(data) is not np.ndarray
            or (a.base is None and data.base is None)
            or not (a.flags.c_contiguous or a.flags.f_contiguous)
            or not (data.flags.c_contiguous or data.flags.f_contiguous)
        ):
            continue
        a0 = a.__array_interface__["data"][0]
        d0 = data.__array_interface__["data"][0]
        a1, d1 = a0 + a.nbytes, d0 + data.nbytes
        full = a0 == d0 and a1 == d1
        if (full and a.strides != data.strides and a.size > 1) or (
            not full and a0 < d1 and d0 < a1
        ):
            raise RuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation."
            )


def _before_write(
    records: tuple[SavedRecord, ...] | None, vc: list[int]
) -> tuple[SavedRecord, ...] | None:
    """An in-place op's records of its *inputs* that share the written tensor's counter
    (``v.mul_(v)``, a view of it): ATen saves them before the write, so they expect the
    version before it; the saved result keeps the version after."""
    if not records:
        return records
    before = []
    for record in records:
        r = Saved._make(record)
        if r.name != "result" and r.counter is vc and r.source is not None:
            record = tuple(r._replace(version=r.version - 1))
        before.append(record)
    return tuple(before)


def _inplace_ufunc(op: OpDef, self: Any, inputs: tuple[Any, ...]) -> bool:
    """No history to record (an optimiser step under no_grad): compute straight
    into the tensor's memory, as PyTorch's in-place kernels do.  False when the
    general path must decide (promotion, broadcasting, devices, errors)."""
    data = self._data
    arrays = []
    for x in inputs[1:]:
        if type(x) is float:
            if data.dtype.kind != "f":
                return False
            arrays.append(x)
        elif isinstance(x, Tensor):
            a = x._data
            if type(a) is not type(data) or a.shape != data.shape or a.dtype != data.dtype:
                return False
            arrays.append(a)
        else:
            return False
    ufunc = getattr(np if type(data) is np.ndarray else array_module(data), op.ufunc)
    quietly(ufunc, data, *arrays, out=data)
    self._counter()[0] += 1
    return True


def _replay(chain: tuple[Any, ...], arr: Any) -> Any:
    """Apply a view's recorded view ops to an array of its base's shape."""
    xp = array_module(arr)
    for op, params in chain:
        arr = op.forward(xp, arr, **params)
    return arr


class CopySlices(Node):
    """The base's node after an in-place op on one of its views (PyTorch's CopySlices).

    Its first edge is the base's previous history; the in-place op's node ``fn``
    differentiates the view's region, the rest of the base passes through.
    """

    __slots__ = ("chain", "fn")
    _name = "torch::autograd::CopySlices"

    def apply(self, grads: tuple[Any, ...], tensor_mode: bool) -> tuple[Any, ...]:
        if tensor_mode and not any("output_nr" in params for _, params in self.chain):
            return self._apply_tensors(grads[0])
        g = grads[0]._data if tensor_mode else grads[0]
        out = g.copy()
        region = _replay(self.chain, out)
        res = self.fn.apply((region.copy(),), False)
        region[...] = 0 if res[0] is None else res[0]
        # PyTorch computes an output only for an edge it flows into (should_compute_output)
        outs = (None if self.next_functions[0][0] is None else out, *res[1:])
        if tensor_mode:
            return tuple(None if o is None else Tensor._wrap(o) for o in outs)
        return outs

    def _apply_tensors(self, g: Any) -> tuple[Any, ...]:
        """The same with tensors (``create_graph``), as PyTorch's ``CopySlices::apply``:
        the gradient copied, its view's region replaced by ``fn``'s gradient, each step a
        recorded op, so the result stays a function of ``g`` and of what ``fn`` saved."""
        out = g.clone()
        region = out
        for op, params in self.chain:
            region = apply_op(op, (region,), params)
        res = self.fn.apply((region.clone(),), True)
        if res[0] is None:
            region.zero_()
        else:
            region.copy_(res[0])
        return (None if self.next_functions[0][0] is None else out, *res[1:])

    def release_variables(self) -> None:
        self.fn.release_variables()

    def saved_names(self) -> tuple[str, ...]:
        return ()


class AsStridedBackward0(Node):
    """A rebased view's node: its gradient lands in the view's region of the base."""

    __slots__ = ("base_meta", "chain")
    _name = "AsStridedBackward0"

    def apply(self, grads: tuple[Any, ...], tensor_mode: bool) -> tuple[Any, ...]:
        g = grads[0]._data if tensor_mode else grads[0]
        shape, dtype, _ = self.base_meta
        out = array_module(g).zeros(shape, dtype=dtype)
        _replay(self.chain, out)[...] += g
        if tensor_mode:
            return (Tensor._wrap(out),)
        return (out,)


def _rebase_view(view: Any, node: OpNode) -> None:
    """PyTorch's rebase_history for a view: CopySlices on the base, AsStrided on the view."""
    base = view._base
    cs = CopySlices()
    cs.fn = node
    cs.chain = view._view_chain
    first = edge_of(base)
    cs.next_functions = (first, *node.next_functions[1:])
    cs._out_meta = [(base.shape, base._data.dtype, base.device)]
    node.next_functions = ((None, 0), *node.next_functions[1:])
    base.grad_fn = cs
    base._output_nr = 0
    _as_strided_onto_base(view)


def regenerate_view_fn(view: Any) -> Any:
    """The node of a view whose base (or another view of it) changed in place since its
    node was made: PyTorch's ``AsStridedBackward0`` onto the base's current history, or
    None where neither the view had a node nor its base requires grad."""
    base = view._base
    fn = view._view_fn
    vc = view._counter()
    if fn is None and not base.requires_grad:
        view._view_ver = vc[0]
        return None
    last = view._view_chain[-1] if view._view_chain else None
    if last is not None and last[0].split:
        op, params = last
        raise RuntimeError(
            f"Output {params['output_nr']} of {op.grad_fn.removesuffix('Backward0')} is a view "
            f"and its base or another view of its base has been modified inplace. {_MULTI_VIEW}"
        )
    return _as_strided_onto_base(view)


class ViewGradFn:
    """``tensor.grad_fn`` where the tensor holds none of its own: None, or a view's node.
    A view keeps its node apart (``_view_fn``) with the version it was made at; once the
    base or another view of it is changed in place, the node is made anew, an
    ``AsStridedBackward0`` onto the base's current history, as PyTorch's
    ``VariableHooks::grad_fn`` does on the next read.  Tensors with a node of their own
    hold it in their ``__dict__``, which wins over this (non-data) descriptor; it is
    ``Tensor.grad_fn``, set there by ``engine._methods``."""

    def __get__(self, t: Any, cls: Any = None) -> Any:
        if t is None:
            return self
        fn = t._view_fn
        if fn is None and t._base is None:
            return None
        vc = t._vc
        if vc is None or vc[0] == t._view_ver or t._nograd_view:
            return fn
        return regenerate_view_fn(t)


def _as_strided_onto_base(view: Any) -> AsStridedBackward0:
    """The view's node from now on: its region of the base's current history."""
    base = view._base
    vnode = AsStridedBackward0()
    vnode.chain = view._view_chain
    vnode.base_meta = (base.shape, base._data.dtype, base.device)
    vnode.next_functions = (edge_of(base),)
    vnode._out_meta = [(view.shape, view._data.dtype, view.device)]
    view._view_fn = vnode
    view._view_ver = view._counter()[0]
    view._output_nr = 0
    return vnode


def _can_cast(src: dtypes.dtype, dst: dtypes.dtype) -> bool:
    return dtypes.category(src) <= dtypes.category(dst)


def all_samples() -> Iterable[tuple[OpDef, Sample]]:
    for op in OPS.values():
        for s in op.samples:
            yield op, s
