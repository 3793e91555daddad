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
from types import ModuleType
from typing import Any

from gradstudio.interchange.program_import.frames import untraced
from gradstudio.interchange.program_import.recorder_calls import RecorderCalls
from gradstudio.interchange.program_import.recorder_events import TooLarge, why_too_large
from gradstudio.interchange.program_import.recorder_folding import tensor_names

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


class Recorder(RecorderCalls):
    """Events in program order; tensors are known by ``id`` while they live.

    Its parts build on one another: the state (``recorder_state``), loop-fold snapshots
    (``recorder_folding``), tensor keys (``recorder_keys``) and call events
    (``recorder_calls``); here, the program's names for what it recorded."""

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
        for oid, name in tensor_names(scope).items():
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
        too_large = why_too_large(events)
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
