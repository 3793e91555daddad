"""Runs a program in this (child) process with ``torch`` mapped to the engine, recording it.

The recorder wraps the engine's public functions (``engine.catalog.FUNCTIONS``), the tensor
methods and operators that reach them, and ``backward``: every call that involves a tensor
becomes one event naming the catalogue function, its arguments (tensors by key, everything
else as literal values) and the program line it came from. Tensors the recorder did not see
being made (data a program built another way) become literal ``torch.tensor`` nodes.
Only plain JSON leaves this process.
"""

from __future__ import annotations

import json
import sys
import traceback
import weakref
from types import FrameType, ModuleType
from typing import Any, NamedTuple

import numpy as np

from gradstudio.interchange.program_import.frames import untraced
from gradstudio.interchange.program_import.loop_folding import consumed, fold

#: Operators and the catalogue function each records (reflected: arguments swapped).
#: ``2 * t`` is ``t * 2`` to autograd (MulBackward0); ``2 - t`` is ``rsub`` (RsubBackward1).
OPERATORS = {
    "__add__": ("torch.add", False),
    "__radd__": ("torch.add", False),
    "__sub__": ("torch.sub", False),
    "__rsub__": ("torch.rsub", False),
    "__mul__": ("torch.mul", False),
    "__rmul__": ("torch.mul", False),
    "__truediv__": ("torch.div", False),
    "__matmul__": ("torch.matmul", False),
    "__rmatmul__": ("torch.matmul", True),
    "__pow__": ("torch.pow", False),
    "__neg__": ("torch.neg", False),
    "__abs__": ("torch.abs", False),
    "__mod__": ("torch.remainder", False),
    "__eq__": ("torch.eq", False),
    "__ne__": ("torch.ne", False),
    "__lt__": ("torch.lt", False),
    "__le__": ("torch.le", False),
    "__gt__": ("torch.gt", False),
    "__ge__": ("torch.ge", False),
}

#: Augmented assignments run the in-place method of the same name.
INPLACE_OPERATORS = {
    "__iadd__": "add_",
    "__isub__": "sub_",
    "__imul__": "mul_",
    "__itruediv__": "div_",
}


#: The most events one recording may hold outside the loop iterations that fold, and
#: the most numbers its literals may hold: a document beyond that is not one a learner
#: can read, and the recording is refused before it fills the child's memory.
MAX_EVENTS = 10_000
MAX_RECORDED_NUMBERS = 5_000_000
#: The most events a recording holds at once, folded iterations included (an event is
#: a few hundred bytes): past it the program runs longer than any document can show.
MAX_ALL_EVENTS = 2_000_000


class TooLarge(BaseException):
    """The recording holds more than a document should; the message says what.  A
    ``BaseException``, so that the program's own ``except Exception`` does not swallow it."""


class Events(list):
    """Events in program order; each one names the frame (module call, loop iteration)
    it happened in, declared by a ``frame`` event before its first use.

    It counts what it holds as it grows (events in iterations that will fold apart,
    since they leave the document) and raises ``TooLarge`` past the bounds above."""

    frames: Any = None
    recorder: Any = None
    kept = 0
    numbers = 0
    folding_numbers = 0

    def append(self, event: dict[str, Any]) -> None:
        if self.frames is not None and event["kind"] != "frame":
            event["frame"] = self.frames.current()
        super().append(event)
        folding = self.frames.folding_chain() if self.frames is not None else ()
        if self.recorder is not None:
            self.recorder.read(event, folding)
        data = event.get("data")
        if folding:
            if data is not None:
                self.folding_numbers += _count(data)
            if self.folding_numbers > 2 * MAX_RECORDED_NUMBERS:
                raise TooLarge(
                    f"the program's loops recorded over {2 * MAX_RECORDED_NUMBERS:,} numbers "
                    "as copies; GradStudio imports programs that record fewer"
                )
            if len(self) > MAX_ALL_EVENTS:
                raise TooLarge(
                    f"the program recorded over {MAX_ALL_EVENTS:,} operations; "
                    "GradStudio imports programs that run fewer"
                )
            return
        self.kept += 1
        if data is not None:
            self.numbers += _count(data)
        if self.kept > MAX_EVENTS:
            raise TooLarge(
                f"the program recorded over {MAX_EVENTS:,} operations outside loops that "
                "fold; a document holds fewer (run fewer steps, or fewer outside a loop)"
            )
        self.check_room(0)

    def check_room(self, numbers: int) -> None:
        """Raise ``TooLarge`` if ``numbers`` more would take the literals past the bound
        (before they are copied out of the tensor)."""
        if self.numbers + numbers > MAX_RECORDED_NUMBERS:
            raise TooLarge(
                f"the program's data holds over {MAX_RECORDED_NUMBERS:,} numbers; "
                "a document holds fewer (use smaller data)"
            )


def _too_large(events: list[dict[str, Any]]) -> str | None:
    """Why the folded recording is more than a document should hold, if it is."""
    if len(events) > MAX_EVENTS:
        return (
            f"the program recorded {len(events):,} operations that do not fold into a "
            f"loop card; a document holds at most {MAX_EVENTS:,} (run fewer steps)"
        )
    numbers = sum(_count(e["data"]) for e in events if e.get("data") is not None)
    if numbers > MAX_RECORDED_NUMBERS:
        return (
            f"the program's data holds {numbers:,} numbers; a document holds at most "
            f"{MAX_RECORDED_NUMBERS:,} (use smaller data)"
        )
    return None


def _count(data: Any) -> int:
    """How many numbers nested lists hold."""
    if isinstance(data, list):
        if data and not isinstance(data[0], list):
            return len(data)
        return sum(_count(d) for d in data)
    return 1


class GradState(NamedTuple):
    """``Recorder.snapshot_grads``: the iteration frame, the frames around it, and the
    ``.grad`` of each leaf (by serial) as it began."""

    frame: str
    chain: tuple[str, ...]
    grads: dict[int, dict[str, Any]]


class Recorder:
    """Events in program order; tensors are known by ``id`` while they live."""

    def __init__(self, program: str, keep: int = 3) -> None:
        self.program = program
        self.events: list[dict[str, Any]] = Events()
        self.keys: dict[int, str] = {}
        #: every key each object has had, oldest first (an in-place op adds one)
        self.history: dict[int, list[str]] = {}
        #: the serial number of the live object each id belongs to: an id is reused
        #: once its tensor is gone, so a tensor is forgotten when it dies
        self.owner: dict[int, int] = {}
        #: a weak reference to each live tensor, by serial, oldest first
        self.refs: dict[int, weakref.ref] = {}
        self.depth = 0
        #: the engine's own functions that the recorder replaced by name, held alive
        self.kept: list[Any] = []
        self.count = 0
        #: how many iterations of a loop stay nodes before the folded ones
        self.keep = keep
        self.snapshots: dict[str, dict[str, Any]] = {}
        #: snapshots of keys no later event can read (superseded or dead), kept until
        #: every iteration that read them is known to fold
        self.retired: list[str] = []
        #: the key of each leaf that requires grad -> the serial of its tensor
        self.leaves: dict[str, int] = {}
        #: the serials of those leaves (each once, however many versions it has)
        self.leaf_serials: set[int] = set()
        #: per loop run: the ``.grad`` of each leaf as its latest iteration began, which
        #: a fold of the iterations before sets again (``snapshot_grads``)
        self.grad_states: dict[str, GradState] = {}
        #: the keys each event reads, by the event's ``id`` (events live as long)
        self.reads: dict[int, tuple[str, ...]] = {}
        #: the names the program's statements bind (``naming.Bindings``), once it runs
        self.bindings: Any = None
        #: key -> the source text of the expression that made it, or the path of the
        #: PyTorch module whose forward made it (``naming``)
        self.where: dict[str, str] = {}
        #: the ``zero_grad()`` call running now: (its number, its source text)
        self.clearing: tuple[int, str] | None = None
        self.clearings = 0

    @property
    def alive(self) -> list[Any]:
        """The recorded tensors still alive, oldest first."""
        found = [ref() for ref in list(self.refs.values())]
        return [t for t in found if t is not None]

    def fresh(self, tensor: Any) -> str:
        """A new key for ``tensor`` (an in-place op gives the same object a new key)."""
        key = f"t{self.count}"
        self.count += 1
        oid = id(tensor)
        serial = self.owner.get(oid)
        if serial is None:
            serial = self.count
            self.owner[oid] = serial
            self.refs[serial] = weakref.ref(tensor, lambda _, o=oid, s=serial: self.forget(o, s))
        else:
            self.retire(self.keys.get(oid))
        self.keys[oid] = key
        self.history.setdefault(oid, []).append(key)
        if tensor.requires_grad and tensor.grad_fn is None:
            self.leaves[key] = serial  # backward accumulates into its .grad
            self.leaf_serials.add(serial)
        frames = self.events.frames
        if frames is not None and frames.folding:
            self.snapshot(key, tensor, serial, frames.folding_chain())
        where = self.made_where()
        if where is not None:
            self.where[key] = where
        return key

    def made_where(self) -> str | None:
        """What made the tensor being keyed, as the program wrote it: the path of the
        PyTorch module running (``model.0``), else the expression the program line is
        evaluating (``pred - y``)."""
        frames = self.events.frames
        if self.bindings is None or frames is None:
            return None
        top = frames.stack[-1] if frames.stack else None
        if top is not None and top.kind == "module" and top.named:
            return str(top.meta["path"])
        frame = self.program_frame()
        return None if frame is None else self.bindings.text(frame)

    def program_frame(self) -> FrameType | None:
        """The innermost frame running the program's own code."""
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename == self.program:
                return frame
            frame = frame.f_back
        return None

    def forget(self, oid: int, serial: int) -> None:
        """``oid``'s tensor is gone: its keys can no longer be read."""
        self.refs.pop(serial, None)
        if self.owner.get(oid) != serial:
            return
        del self.owner[oid]
        self.keys.pop(oid, None)
        for key in self.history.pop(oid, []):
            self.retire(key)

    def retire(self, key: str | None) -> None:
        if key is not None and key in self.snapshots:
            self.retired.append(key)

    def read(self, event: dict[str, Any], folding: tuple[str, ...]) -> None:
        """Note who reads each snapshot: one read where no iteration folds keeps it."""
        if event["kind"] == "frame":
            return
        reads = self.reads[id(event)] = tuple(consumed(event))
        if not self.snapshots:
            return
        for key in reads:
            state = self.snapshots.get(key)
            if state is not None and not state["kept"]:
                if folding:
                    state["readers"].add(folding)
                else:
                    state["kept"] = True

    def prune(self, folded: set[str]) -> None:
        """Drop the snapshots no fold can need: keys that no later event can read, made
        and read only in iterations now known to fold (``folded``: frames whose loop
        went on to a later iteration), so their values never enter the document."""
        waiting: list[str] = []
        for key in self.retired:
            state = self.snapshots.get(key)
            if state is None:
                continue
            chains = [state["maker"], *state["readers"]]
            if not state["kept"] and all(folded.intersection(c) for c in chains):
                del self.snapshots[key]
            else:
                waiting.append(key)
        self.retired = waiting
        for instance, state in list(self.grad_states.items()):
            if folded.intersection(state.chain):  # a loop run inside a folded iteration
                del self.grad_states[instance]

    def snapshot_grads(self, frame: str, instance: str, chain: tuple[str, ...]) -> None:
        """The ``.grad`` of every recorded leaf as iteration ``frame`` of loop run
        ``instance`` begins: if it is the run's last, the iterations before it fold,
        and what their backward passes left in ``.grad`` is set again from these."""
        grads: dict[int, dict[str, Any]] = {}
        self.depth += 1
        try:
            for serial in list(self.leaf_serials):
                ref = self.refs.get(serial)
                tensor = None if ref is None else ref()
                if tensor is None:
                    self.leaf_serials.discard(serial)
                    continue
                grad = tensor.grad
                if grad is None:
                    continue
                data = getattr(grad, "_data", None)
                array = data.copy() if type(data) is np.ndarray else grad.detach().numpy()
                grads[serial] = {
                    "array": np.array(array, copy=True),
                    "dtype": str(grad.dtype).removeprefix("torch."),
                    "history": grad.grad_fn is not None,
                }
        finally:
            self.depth -= 1
        self.grad_states[instance] = GradState(frame, chain, grads)

    def snapshot(self, key: str, tensor: Any, serial: int, maker: tuple[str, ...]) -> None:
        """What ``tensor`` holds now, in case its loop iteration is folded later."""
        data = getattr(tensor, "_data", None)
        if type(data) is np.ndarray:
            data = data.copy()  # the storage's values, without an engine call
        else:
            self.depth += 1
            try:
                data = tensor.detach().cpu().numpy(force=True).copy()
            finally:
                self.depth -= 1
        self.snapshots[key] = {
            "array": data,
            "dtype": str(tensor.dtype).removeprefix("torch."),
            "requires_grad": bool(tensor.requires_grad),
            "history": tensor.grad_fn is not None,
            "serial": serial,
            "maker": maker,
            "readers": set(),
            "kept": False,
        }

    def folded(self, events: list[dict[str, Any]], scope: dict[str, Any]) -> list[dict[str, Any]]:
        """``events`` with long loops folded, the literals named after what they hold."""
        names = {self.owner.get(oid): name for oid, name in _tensor_names(scope).items()}
        for state in self.snapshots.values():
            state["name"] = names.get(state["serial"])
        return fold(
            events, _Lazy(self.snapshots), self.keep, self.leaves, self.reads, self.grad_states
        )

    def line(self) -> int | None:
        frame = self.program_frame()
        return None if frame is None else frame.f_lineno

    def key(self, tensor: Any) -> str:
        found = self.keys.get(id(tensor))
        if found is not None:
            return found
        if tensor.grad_fn is not None:
            # a literal would cut the graph backward goes through: say so, do not guess
            self.refuse(
                f"a tensor used here was made by an operation GradStudio does not record "
                f"({type(tensor.grad_fn).__name__}); its history cannot be shown"
            )
        return self.literal(tensor, made=False)

    def literal(self, tensor: Any, made: bool = True) -> str:
        """``tensor`` enters the document as a literal holding its values now: one the
        program just made (a draw), or (``made`` False) one made where nothing was
        recorded, before it was first used (a module's parameter): not the iteration's."""
        self.events.check_room(tensor.numel())
        self.depth += 1
        try:
            data = tensor.detach().tolist()
            dtype = str(tensor.dtype).removeprefix("torch.")
        finally:
            self.depth -= 1
        key = self.fresh(tensor)
        self.events.append(
            {
                "kind": "literal",
                "key": key,
                "data": data,
                "dtype": dtype,
                "requires_grad": bool(tensor.requires_grad),
                "line": self.line(),
                **({} if made else {"before": True}),
            }
        )
        return key

    def set_value(self, tensor: Any, line: int | None = None) -> None:
        """``tensor`` changed without a recorded op: a no-grad copy of its new values."""
        target = self.key(tensor)
        self.events.check_room(tensor.numel())
        self.depth += 1
        try:
            data = tensor.detach().tolist()
        finally:
            self.depth -= 1
        self.events.append(
            {
                "kind": "set_value",
                "target": target,
                "data": data,
                "out": self.fresh(tensor),
                "line": self.line() if line is None else line,
            }
        )

    def set_grad(self, tensor: Any, line: int | None = None) -> None:
        """``tensor.grad`` changed without a recorded backward (a closure's, inside a
        recorded step): a copy of it, set as ``x.grad = g``."""
        self.depth += 1
        try:
            grad = tensor.grad
            if grad is None:
                return
            self.events.check_room(grad.numel())
            data = grad.detach().tolist()
            dtype = str(grad.dtype).removeprefix("torch.")
        finally:
            self.depth -= 1
        self.events.append(
            {
                "kind": "set_grad",
                "target": self.key(tensor),
                "data": data,
                "dtype": dtype,
                "line": self.line() if line is None else line,
            }
        )

    def quiet(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run ``fn`` without recording what it calls, and without the line tracer
        (``untraced``)."""
        self.depth += 1
        tracer = untraced() if self.depth == 1 else None
        try:
            return fn(*args, **kwargs)
        finally:
            if tracer is not None:
                sys.settrace(tracer)
            self.depth -= 1

    def refuse(self, message: str) -> None:
        """Something the document cannot hold: the import fails at this line, saying why."""
        self.events.append({"kind": "refused", "message": message, "line": self.line()})

    def value(self, value: Any, tensor_type: type) -> Any:
        if isinstance(value, tensor_type):
            return {"tensor": self.key(value)}
        if isinstance(value, list | tuple):
            return [self.value(v, tensor_type) for v in value]
        if isinstance(value, bool | int | float | str) or value is None:
            return value
        if isinstance(value, _device_type()):  # ``torch.device("cpu")``: its name, "cpu"
            return str(value)
        item = getattr(value, "item", None)  # NumPy scalars become literal numbers
        if callable(item):
            return item()
        return repr(value)

    def result(self, result: Any, tensor_type: type) -> list[str | None]:
        outs = result if isinstance(result, tuple | list) else (result,)
        keys: list[str | None] = []
        for out in outs:
            if isinstance(out, tensor_type):
                keys.append(self.fresh(out))
            else:
                keys.append(None)
        return keys

    def call(self, qualname: str, fn: Any, args: tuple, kwargs: dict, tensor_type: type) -> Any:
        """One op the program called: run it quietly and record it, all of it without
        the line tracer (``untraced``): an op calls no code of the program's that
        records."""
        if self.depth:
            return fn(*args, **kwargs)
        tracer = untraced()
        try:
            if isinstance(kwargs.get("out"), tensor_type):
                return self.call_out(qualname, fn, args, kwargs, tensor_type)
            result = self.quiet(fn, *args, **kwargs)
            self.record(qualname, args, kwargs, result, tensor_type)
            return result
        finally:
            if tracer is not None:
                sys.settrace(tracer)

    def call_out(self, qualname: str, fn: Any, args: tuple, kwargs: dict, tensor_type: type) -> Any:
        """``torch.matmul(a, b, out=y)``: the plain call, then its result copied into ``y``
        outside autograd (what ``out=`` does: PyTorch refuses it where autograd would
        need the result), one version up. An ``out`` the call resizes is refused: a copy
        keeps its shape."""
        out = kwargs["out"]
        shape, target = tuple(out.shape), self.key(out)
        result = self.quiet(fn, *args, **kwargs)
        if tuple(out.shape) != shape:
            self.refuse(
                f"out= resized its tensor from {list(shape)} to {list(out.shape)}; "
                "GradStudio records out= as a copy into it, which keeps its shape"
            )
            return result
        plain = self.quiet(lambda: out.detach().clone())
        rest = {k: v for k, v in kwargs.items() if k != "out"}
        self.record(qualname, args, rest, plain, tensor_type)
        self.events.append(
            {
                "kind": "copy_out",
                "target": target,
                "src": self.keys[id(plain)],
                "out": self.fresh(out),
                "line": self.line(),
            }
        )
        return result

    def record(
        self, qualname: str, args: tuple, kwargs: dict, result: Any, tensor_type: type
    ) -> None:
        """One call event, if a tensor went in or came out."""
        if not any(isinstance(a, tensor_type) for a in (*args, *kwargs.values())) and not (
            isinstance(result, tensor_type)
        ):
            return
        if self.index_tuple(qualname, args, kwargs, result, tensor_type):
            return
        qualname, args, kwargs = self.overload(qualname, args, kwargs, result, tensor_type)
        event = {
            "kind": "call",
            "function": qualname,
            "args": [self.value(a, tensor_type) for a in args],
            "kwargs": {k: self.value(v, tensor_type) for k, v in kwargs.items()},
            "line": self.line(),
            "no_grad": not self.grad_enabled(),
        }
        event["out"] = self.result(result, tensor_type)
        self.events.append(event)

    def index_tuple(
        self, qualname: str, args: tuple, kwargs: dict, result: Any, tensor_type: type
    ) -> bool:
        """``torch.where(c)`` and ``c.nonzero(as_tuple=True)`` as ATen computes them,
        ``c.nonzero().unbind(1)``: two recorded calls, the index tensors taken apart."""
        where = qualname == "torch.where" and len(args) == 1 and not kwargs
        as_tuple = qualname == "torch.nonzero" and kwargs == {"as_tuple": True}
        if not (where or as_tuple) or not isinstance(result, tuple) or not args[0].ndim:
            return False
        from engine.ops.nonzero import nonzero

        rows = self.quiet(nonzero, args[0])
        self.record("torch.nonzero", args[:1], {}, rows, tensor_type)
        self.record("torch.unbind", (rows, 1), {}, result, tensor_type)
        return True

    def overload(
        self, qualname: str, args: tuple, kwargs: dict, result: Any, tensor_type: type
    ) -> tuple[str, tuple, dict]:
        """The call as the catalogue declares it, where PyTorch overloads one name:
        ``torch.max(a, b)`` is ``torch.maximum`` (``MaximumBackward0``), and
        ``torch.tensor([t0, t1])`` copies its tensors' values (no edge to them: the
        document's literal holds those values, in the dtype PyTorch chose, as for a
        NumPy array or scalar)."""
        if qualname == "torch.nonzero" and kwargs == {"as_tuple": False}:
            return qualname, args, {}
        if "keepdims" in kwargs or "_stacklevel" in kwargs:
            # NumPy's ``keepdims`` is PyTorch's ``keepdim``; ``_stacklevel`` (an old
            # ``F.log_softmax`` argument) only places a warning
            kwargs = {("keepdim" if k == "keepdims" else k): v for k, v in kwargs.items()}
            kwargs.pop("_stacklevel", None)
        binary = len(args) == 2 and isinstance(args[1], tensor_type)
        if qualname in ("torch.max", "torch.min") and binary:
            return qualname + "imum", args, kwargs
        if qualname == "torch.tensor" and args and not _plain(args[0]):
            self.depth += 1
            try:
                data = _values(args[0], tensor_type)
            finally:
                self.depth -= 1
            return qualname, (data, *args[1:]), {"dtype": result.dtype, **kwargs}
        return qualname, args, kwargs

    def grad_enabled(self) -> bool:
        import engine

        return bool(engine.is_grad_enabled())

    def names(
        self, scope: dict[str, Any], tensor_type: type
    ) -> tuple[dict[str, str], dict[str, str]]:
        """Labels from the program's names, as ``(labels, bases)``.

        ``labels`` are final: a top-level variable names the tensor it holds when the
        program ends, and the earlier versions of that very tensor (in-place updates)
        ``name_1``, ``name_2``, ...  ``bases`` name every other tensor the program
        named, for the document builder to mark with the loop iteration it was made in:
        the variable a statement bound it to (``pred``, in each iteration), else where
        it lives (every version of a parameter is ``model.0.weight``, an optimizer's
        state ``model.0.weight.momentum_buffer``), the module call that returned it
        (``model.fc1``), or the expression that made it (``pred - y``)."""
        labels: dict[str, str] = {}
        for name, value in scope.items():
            if isinstance(value, tensor_type) and id(value) in self.keys:
                labels[self.keys[id(value)]] = name
        places: dict[str, str] = {}
        for oid, name in _tensor_names(scope).items():
            variable = scope.get(name)
            numbered = variable is not None and id(variable) == oid
            for index, key in enumerate(self.history.get(oid, []), 1):
                if numbered:
                    labels.setdefault(key, f"{name}_{index}")
                else:
                    places.setdefault(key, name)
        bound = {} if self.bindings is None else self.bindings.bound
        returned = {} if self.bindings is None else self.bindings.returned
        bases: dict[str, str] = {}
        for source in (
            {k: name for k, (_, name) in bound.items()},
            places,
            returned,
            self.where,
        ):
            for key, name in source.items():
                if key not in labels:
                    bases.setdefault(key, name)
        return labels, bases


def _tensor_names(scope: dict[str, Any]) -> dict[int, str]:
    """Names for tensors: the program's variables, ``model.fc1.weight`` for parameters
    and buffers, ``model.fc1.weight.momentum_buffer`` for an optimizer's state."""
    import engine
    from engine.nn.modules.module import Module
    from engine.optim.optimizer import Optimizer

    names: dict[int, str] = {}
    for name, value in scope.items():
        if isinstance(value, Module):
            for sub, param in value.named_parameters():
                names.setdefault(id(param), f"{name}.{sub}")
            for sub, buffer in value.named_buffers():
                names.setdefault(id(buffer), f"{name}.{sub}")
        elif isinstance(value, engine.Tensor):
            names.setdefault(id(value), name)
    for value in scope.values():
        if isinstance(value, Optimizer):
            for param, state in value.state.items():
                owner = names.get(id(param))
                for field, item in state.items():
                    if owner is not None and isinstance(item, engine.Tensor):
                        names.setdefault(id(item), f"{owner}.{field}")
    return names


def grad_labels(
    events: list[dict[str, Any]],
    labels: dict[str, str],
    bases: dict[str, str],
    bound: Any = (),
) -> None:
    """``model.0.weight.grad`` for each read of a named tensor's ``.grad``, unless a
    statement bound the read to a name of its own (``g = w.grad``, keys in ``bound``)."""
    for event in events:
        if event["kind"] == "call" and event["function"] == "Tensor.grad":
            owner = plain_name(labels, bases, event["args"][0]["tensor"])
            out = event["out"][0]
            if owner is not None and out is not None and out not in labels and out not in bound:
                bases[out] = f"{owner}.grad"


def plain_name(labels: dict[str, str], bases: dict[str, str], key: str | None) -> str | None:
    """The program's name for ``key``'s tensor without a version number (``w`` for
    ``w_3``): what an action on it is named after (``w.grad``, ``w.grad = None``)."""
    if key in labels:
        label = labels[key]
        return label.rsplit("_", 1)[0] if _numbered(label) else label
    return bases.get(key or "")


def _numbered(label: str) -> bool:
    stem, _, number = label.rpartition("_")
    return bool(stem) and number.isdigit()


class _Lazy(dict):
    """Snapshots whose data becomes JSON lists only when a fold needs them."""

    def __init__(self, states: dict[str, dict[str, Any]]) -> None:
        super().__init__(states)

    def get(self, key: str, default: Any = None) -> Any:
        state = super().get(key, default)
        if state is not None and "data" not in state:
            state["data"] = state["array"].tolist()
        return state


def _plain(data: Any) -> bool:
    """Python numbers and bools in lists: what a literal's dtype is inferred from alike."""
    if isinstance(data, list | tuple):
        return all(_plain(d) for d in data)
    return isinstance(data, bool | int | float)


def _values(data: Any, tensor_type: type) -> Any:
    """Nested data with each tensor, NumPy array or scalar replaced by its values."""
    if isinstance(data, list | tuple):
        return [_values(d, tensor_type) for d in data]
    if isinstance(data, tensor_type):
        return data.detach().tolist()
    tolist = getattr(data, "tolist", None)
    return tolist() if callable(tolist) else data


def _device_type() -> type:
    from engine.backend import device

    return device


def _wrap(recorder: Recorder, qualname: str, fn: Any, tensor_type: type) -> Any:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return recorder.call(qualname, fn, args, kwargs, tensor_type)

    wrapped.__name__ = getattr(fn, "__name__", qualname)
    wrapped.__doc__ = getattr(fn, "__doc__", None)
    return wrapped


def _quiet(recorder: Recorder, fn: Any) -> Any:
    def quiet(*args: Any, **kwargs: Any) -> Any:
        return recorder.quiet(fn, *args, **kwargs)

    quiet.__wrapped__ = fn  # type: ignore[attr-defined]
    return quiet


def _quiet_module_init(recorder: Recorder) -> None:
    """Building a module (initialising its parameters) is not recorded: its parameters
    enter the document as literals holding the values the program drew."""
    import engine.nn

    for value in vars(engine.nn).values():
        # every public module, its ``__init__`` its own or a private base's (``Conv2d``
        # builds in ``_ConvNd``'s: recorded, its uninitialised weight became a literal)
        if (
            isinstance(value, type)
            and issubclass(value, engine.nn.Module)
            and value is not engine.nn.Module
        ):
            value.__init__ = _quiet(recorder, value.__init__)  # type: ignore[misc]


def _wrap_aliases(
    recorder: Recorder,
    owners: tuple[Any, ...],
    wrapped: dict[int, tuple[Any, str]],
    tensor_type: type,
) -> None:
    """PyTorch's other names for a function (``torch.clip`` and ``x.clip`` are ``clamp``,
    ``ClampBackward1``): the very function under a second name, recorded as the first."""
    for owner in owners:
        for name, value in list(vars(owner).items()):
            found = wrapped.get(id(value))
            if found is not None and found[0] is value and not name.startswith("_"):
                setattr(owner, name, _wrap(recorder, found[1], value, tensor_type))


def install(recorder: Recorder) -> None:
    """Map ``torch`` to the engine and wrap its dispatch points."""
    import engine
    import engine.autograd
    import engine.nn
    import engine.nn.functional
    import engine.optim
    import engine.utils.data
    from engine.catalog import FUNCTIONS, functions
    from gradstudio.interchange.program_import.actions import RECORDED_INSIDE
    from gradstudio.interchange.program_import.composites import originals, record_composites

    before = originals()
    tensor_type = engine.Tensor
    namespaces: dict[str, ModuleType] = {
        "torch": engine,
        "torch.nn.functional": engine.nn.functional,
        "torch.linalg": engine.linalg,
    }
    #: id of each function wrapped -> (the function, the name recorded)
    wrapped: dict[int, tuple[Any, str]] = {}
    for sig in functions():
        if sig.qualname in RECORDED_INSIDE:
            continue
        module = namespaces.get(sig.namespace)
        if module is not None and callable(getattr(module, sig.name, None)):
            original = getattr(module, sig.name)
            wrapped[id(original)] = (original, sig.qualname)
            setattr(module, sig.name, _wrap(recorder, sig.qualname, original, tensor_type))
        if (
            sig.namespace == "torch.nn.functional"
            and sig.method
            and f"torch.{sig.name}" not in FUNCTIONS
        ):
            # ``torch.softmax(x, 1)``: the same op as ``F.softmax`` under PyTorch's
            # top-level name (a function of its own in the engine)
            same = getattr(engine, sig.name, None)
            if callable(same):
                setattr(engine, sig.name, _wrap(recorder, sig.qualname, same, tensor_type))
        method = getattr(tensor_type, sig.name, None)
        method_only = sig.namespace == "torch.Tensor"  # x.view(...), x.expand(...)
        if callable(method) and (method_only or sig.method):  # x.softmax(-1) too
            wrapped[id(method)] = (method, sig.qualname)
            setattr(tensor_type, sig.name, _wrap(recorder, sig.qualname, method, tensor_type))
    _wrap_aliases(recorder, (engine, tensor_type), wrapped, tensor_type)
    for dunder, (qualname, reflected) in OPERATORS.items():
        method = getattr(tensor_type, dunder)

        def operator(
            self: Any, *other: Any, _m: Any = method, _q: str = qualname, _r: bool = reflected
        ) -> Any:
            args = (other[0], self) if _r else (self, *other)
            return recorder.call(_q, lambda *a: _m(self, *other), args, {}, tensor_type)

        setattr(tensor_type, dunder, operator)
    from gradstudio.catalogue import catalogue

    kinds = catalogue()
    for name in dir(tensor_type):
        node_type = kinds.by_method(name)
        if node_type is None or not name.endswith("_") or name.startswith("_"):
            continue
        setattr(
            tensor_type,
            name,
            _wrap(recorder, f"Tensor.{name}", getattr(tensor_type, name), tensor_type),
        )
    for dunder, name in INPLACE_OPERATORS.items():
        method = getattr(tensor_type, name)

        def inplace(self: Any, other: Any, _m: Any = method, _n: str = name) -> Any:
            return recorder.call(f"Tensor.{_n}", _m, (self, other), {}, tensor_type)

        setattr(tensor_type, dunder, inplace)
    grad_property = tensor_type.grad

    def set_grad(self: Any, value: Any) -> None:
        if value is None and not recorder.depth and grad_property.fget(self) is not None:
            event = {"kind": "clear_grad", "target": recorder.key(self), "line": recorder.line()}
            if recorder.clearing is not None:  # one zero_grad() call: one node for all
                event["call"], event["label"] = recorder.clearing
            recorder.events.append(event)
        grad_property.fset(self, value)

    tensor_type.grad = property(grad_property.fget, set_grad, grad_property.fdel)
    _zero_grad_calls(recorder)
    _quiet_module_init(recorder)
    from gradstudio.interchange.program_import.updates import record_optimizer_steps

    record_optimizer_steps(recorder, tensor_type)
    backward = tensor_type.backward

    def record_backward(
        self: Any,
        gradient: Any = None,
        retain_graph: Any = None,
        create_graph: bool = False,
        inputs: Any = None,
    ) -> None:
        if recorder.depth:  # inside a step that is recorded as what it did (a closure's)
            backward(self, gradient, retain_graph, create_graph, inputs)
            return
        tracer = untraced()
        try:
            recorded_backward(self, gradient, retain_graph, create_graph, inputs)
        finally:
            if tracer is not None:
                sys.settrace(tracer)

    def recorded_backward(
        self: Any, gradient: Any, retain_graph: Any, create_graph: bool, inputs: Any
    ) -> None:
        recorder.events.append(
            {
                "kind": "backward",
                "target": recorder.key(self),
                "gradient": recorder.value(gradient, tensor_type),
                "retain_graph": retain_graph,
                "create_graph": create_graph,
                "line": recorder.line(),
            }
        )
        recorder.quiet(backward, self, gradient, retain_graph, create_graph, inputs)

    tensor_type.backward = record_backward
    from gradstudio.interchange.program_import.actions import install_actions

    install_actions(recorder, tensor_type)
    from gradstudio.interchange.program_import.transforms import install_transforms

    install_transforms(recorder)
    record_composites(before, recorder.kept)
    from gradstudio.interchange.program_import.torch_alias import alias_torch

    alias_torch()


def _zero_grad_calls(recorder: Recorder) -> None:
    """``opt.zero_grad()`` and ``model.zero_grad()``: the grads each clears are one
    call, named as the program wrote it (its expression's source text)."""
    from engine.nn.modules.module import Module
    from engine.optim.optimizer import Optimizer

    for owner in (Optimizer, Module):
        original = owner.zero_grad

        def zero_grad(self: Any, *args: Any, _f: Any = original, **kwargs: Any) -> Any:
            if recorder.depth or recorder.clearing is not None:
                return _f(self, *args, **kwargs)
            tracer = untraced()  # the engine's loop over the grads, and their events
            frame = recorder.program_frame()
            text = None
            if frame is not None and recorder.bindings is not None:
                text = recorder.bindings.text(frame)
            recorder.clearings += 1
            recorder.clearing = (recorder.clearings, text or "zero_grad()")
            try:
                return _f(self, *args, **kwargs)
            finally:
                recorder.clearing = None
                if tracer is not None:
                    sys.settrace(tracer)

        owner.zero_grad = zero_grad  # type: ignore[method-assign]


def main(program: str, output: str, keep: int = 3) -> int:
    """Run ``program`` recording it; write the events (or the error) as JSON to ``output``."""
    recorder = Recorder(program, keep)
    install(recorder)
    import engine
    from gradstudio.interchange.program_import.frames import CELL_MARKER, Frames

    scope: dict[str, Any] = {"__name__": "__main__", "__file__": program}
    frames = Frames(program, recorder.events, keep)
    scope[CELL_MARKER] = frames.enter_cell
    frames.scope = scope
    frames.install_modules(recorder)
    recorder.events.frames = frames
    recorder.events.recorder = recorder
    report: dict[str, Any]
    try:
        with open(program, encoding="utf-8") as f:
            source = f.read()
        code = compile(source, program, "exec")
        from gradstudio.interchange.program_import.naming import Bindings

        recorder.bindings = frames.bindings = Bindings(recorder, source)
        frames.install_loops(source)
        sys.argv = [program]  # the program's own command line (argparse reads it), not ours
        try:
            exec(code, scope)
        finally:
            frames.stop()
    except BaseException as exc:  # the program's failure is data for the user
        line = None
        for frame, lineno in traceback.walk_tb(exc.__traceback__):
            if frame.f_code.co_filename == program:
                line = lineno
        if isinstance(exc, SyntaxError):
            line = exc.lineno
        message = str(exc) if isinstance(exc, TooLarge) else f"{type(exc).__name__}: {exc}"
        report = {"error": message.strip(), "line": line}
    else:
        events = recorder.folded(list(recorder.events), scope)
        too_large = _too_large(events)
        if too_large:
            report = {"error": too_large, "line": None}
        else:
            labels, bases = recorder.names(scope, engine.Tensor)
            bound = {} if recorder.bindings is None else recorder.bindings.bound
            grad_labels(events, labels, bases, bound)
            report = {"events": events, "labels": labels, "names": bases}
    with open(output, "w", encoding="utf-8") as f:
        json.dump(report, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], *(int(a) for a in sys.argv[3:4])))
