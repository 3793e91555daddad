"""Recording the tensor actions that are not catalogue functions (runs in the child).

Detaching, ``.data``, ``.to``, indexing, ``autograd.grad``/``backward``, custom
Function ``apply`` and the random draws each become an event the document builder
knows; a draw becomes a literal holding the values the program drew, so that the
document evaluates to what the program computed instead of drawing again.
"""

from __future__ import annotations

import ast
import inspect
import os
import textwrap
from typing import Any

from engine.autograd import graph
from engine.autograd.function import Function
from engine.autograd.graph import Node
from engine.nn.modules.module import Module
from gradstudio.document.index_key import IndexKey, Placeholder, Slice, check_key
from gradstudio.interchange.program_import.recorder import Recorder
from gradstudio.interchange.snippet_hooks import outside_names
from gradstudio.params import MAX_OUTPUT_COUNT

#: Catalogue functions whose result is a draw from the generator (or uninitialised).
RANDOM_FUNCTIONS = {
    "torch.rand",
    "torch.randn",
    "torch.rand_like",
    "torch.randn_like",
    "torch.randint",
    "torch.randint_like",
    "torch.randperm",
    "torch.bernoulli",
    "torch.multinomial",
    "torch.normal",
    "torch.poisson",
    "torch.empty",
}
#: Catalogue functions recorded through the calls they make, not as one node of their
#: own: ``dropout1d``/``2d`` (their drawn noise a literal, not a node that would draw
#: again; ``F.dropout`` is recorded by hand, below) and ``as_tensor`` (which may return
#: the very tensor it is given, or share a NumPy array's memory).
RECORDED_INSIDE = {
    "torch.nn.functional.dropout1d",
    "torch.nn.functional.dropout2d",
    "torch.as_tensor",
}
#: In-place random fills: the tensor's new values become a copy of a literal.
RANDOM_FILLS = ("uniform_", "normal_", "bernoulli_", "random_", "exponential_", "geometric_")
#: Tensor methods recorded as the catalogue's methods of the same name.
PLAIN_METHODS = ("detach", "retain_grad")
#: ``.to`` and its shorthands.
TO_METHODS = ("to", "cuda", "cpu", "double", "float", "half", "long", "int")


def _engine_dir() -> str:
    import engine

    return os.path.dirname(engine.__file__)


def tensor_data(tensor: Any) -> dict[str, Any]:
    """What a literal node needs to hold ``tensor``'s values exactly."""
    return {"data": tensor.detach().tolist(), "dtype": str(tensor.dtype).removeprefix("torch.")}


def index_key(recorder: Recorder, key: Any, tensor_type: type) -> tuple[str, list[str]] | str:
    """The key text of ``x[key]`` and the keys of its tensor indices, or why it is refused."""

    is_tuple = isinstance(key, tuple)
    items: list[Any] = []
    tensors: list[str] = []
    for element in key if is_tuple else (key,):
        if isinstance(element, slice):
            parts = tuple(
                _bound(recorder, p, tensor_type)
                for p in (element.start, element.stop, element.step)
            )
            if not all(p is None or _is_int(p) for p in parts):
                return "a slice of an index must hold integers or None"
            items.append(Slice(*(None if p is None else int(p) for p in parts)))
        elif element is None or element is Ellipsis or _is_int(element):
            items.append(element if element is None or element is Ellipsis else int(element))
        elif isinstance(element, tensor_type):
            items.append(Placeholder())
            tensors.append(recorder.key(element))
        elif isinstance(element, list | range):
            import engine

            recorder.depth += 1
            try:
                as_tensor = engine.tensor(list(element))
            finally:
                recorder.depth -= 1
            items.append(Placeholder())
            tensors.append(recorder.key(as_tensor))
        else:
            return f"the index {element!r} cannot be represented"
    try:
        return check_key(IndexKey(tuple(items), is_tuple).text()), tensors
    except ValueError as exc:
        return str(exc)


def _bound(recorder: Recorder, value: Any, tensor_type: type) -> Any:
    """A slice bound as PyTorch reads it: a 0-d integer tensor (``data[s : s + seq]``
    with ``s`` drawn by ``randint``) stands for its value, which the graph does not
    depend on (slicing takes the number, as ``int(s)`` would)."""
    if isinstance(value, tensor_type) and value.ndim == 0:
        number = recorder.quiet(value.item)
        if _is_int(number):
            return number
    return value


def _is_int(value: Any) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or type(value).__name__ in (
        "int64",
        "int32",
    )


def class_source(cls: type) -> str | None:
    """The ``class`` statement that defined ``cls``, found through its ``forward``'s code.

    ``inspect.getsource`` looks in ``cls.__module__``, which for the program is ``__main__``,
    the recorder itself; the code object knows the real file and line.
    """
    forward = cls.__dict__.get("forward")
    code = getattr(getattr(forward, "__func__", forward), "__code__", None)
    if code is None:
        return None
    try:
        with open(code.co_filename, encoding="utf-8") as f:
            source = f.read()
    except OSError:
        return None
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.ClassDef)
            and node.name == cls.__name__
            and node.lineno <= code.co_firstlineno <= (node.end_lineno or 0)
        ):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines = source.splitlines()[first - 1 : node.end_lineno]
            return textwrap.dedent("\n".join(lines)) + "\n"
    return None


def install_actions(recorder: Recorder, tensor_type: type) -> None:
    """Wrap the tensor actions, autograd entry points, Function ``apply`` and draws."""
    _plain_methods(recorder, tensor_type)
    _to_methods(recorder, tensor_type)
    _data_property(recorder, tensor_type)
    _requires_grad_property(recorder, tensor_type)
    _view_properties(recorder, tensor_type)
    _indexing(recorder, tensor_type)
    _reflected(recorder, tensor_type)
    _autograd(recorder, tensor_type)
    _function_apply(recorder, tensor_type)
    _random(recorder, tensor_type)
    _hooks(recorder, tensor_type)
    _functional_transforms(recorder)


#: ``torch.autograd.functional``: each runs the program's function on tensors it makes
#: itself (views of its input, stacked rows), which no document node stands for.
TRANSFORMS = ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp")


def _functional_transforms(recorder: Recorder) -> None:
    """Refuse the transforms at their own line, rather than at an op inside the function
    that meets a tensor the document never saw."""
    import engine.autograd.functional as transforms

    for name in TRANSFORMS:
        fn = getattr(transforms, name, None)
        if fn is None:
            continue

        def refused(*args: Any, _fn: Any = fn, _name: str = name, **kwargs: Any) -> Any:
            if not recorder.depth:
                recorder.refuse(
                    f"torch.autograd.functional.{_name} cannot be imported: it runs the "
                    "function on tensors of its own making, which a document cannot hold"
                )
            return recorder.quiet(_fn, *args, **kwargs)

        setattr(transforms, name, refused)


def _plain_methods(recorder: Recorder, tensor_type: type) -> None:
    for name in PLAIN_METHODS:
        method = getattr(tensor_type, name)

        def wrapped(self: Any, *args: Any, _m: Any = method, _n: str = name, **kwargs: Any) -> Any:
            return recorder.call(f"Tensor.{_n}", _m, (self, *args), kwargs, tensor_type)

        setattr(tensor_type, name, wrapped)


def _to_methods(recorder: Recorder, tensor_type: type) -> None:
    for name in TO_METHODS:
        method = getattr(tensor_type, name)

        def wrapped(self: Any, *args: Any, _m: Any = method, _n: str = name, **kwargs: Any) -> Any:
            result = recorder.quiet(_m, self, *args, **kwargs)
            if recorder.depth or not isinstance(result, tensor_type):
                return result
            changed = result.device.type != self.device.type
            recorder.events.append(
                {
                    "kind": "to",
                    "target": recorder.key(self),
                    "device": result.device.type if changed else "keep",
                    "dtype": None
                    if result.dtype == self.dtype
                    else str(result.dtype).removeprefix("torch."),
                    "line": recorder.line(),
                    "no_grad": not recorder.grad_enabled(),
                    "out": recorder.fresh(result),
                }
            )
            return result

        setattr(tensor_type, name, wrapped)


def _view_properties(recorder: Recorder, tensor_type: type) -> None:
    """``x.T`` and ``x.mT``: the catalogue's attribute nodes."""
    for name in ("T", "mT"):
        prop = getattr(tensor_type, name)

        def get(self: Any, _p: Any = prop, _n: str = name) -> Any:
            result = recorder.quiet(_p.fget, self)
            if not recorder.depth:
                recorder.record(f"Tensor.{_n}", (self,), {}, result, tensor_type)
            return result

        setattr(tensor_type, name, property(get))


def _data_property(recorder: Recorder, tensor_type: type) -> None:
    """``x.data`` read by the program (not by the engine) and ``x.data = value``."""
    prop = tensor_type.data
    engine_dir = _engine_dir()

    def get_data(self: Any) -> Any:
        result = prop.fget(self)
        caller = inspect.currentframe()
        caller = caller.f_back if caller is not None else None
        if (
            recorder.depth
            or caller is None
            or caller.f_code.co_filename.startswith(engine_dir)
            or id(self) not in recorder.keys
        ):
            return result
        recorder.events.append(
            {
                "kind": "call",
                "function": "Tensor.data",
                "args": [{"tensor": recorder.key(self)}],
                "kwargs": {},
                "line": recorder.line(),
                "no_grad": not recorder.grad_enabled(),
                "out": [recorder.fresh(result)],
            }
        )
        return result

    def set_data(self: Any, value: Any) -> None:
        if not recorder.depth and isinstance(value, tensor_type):
            recorder.events.append(
                {
                    "kind": "set_data",
                    "target": recorder.key(self),
                    "value": recorder.key(value),
                    "line": recorder.line(),
                }
            )
        prop.fset(self, value)

    tensor_type.data = property(get_data, set_data, prop.fdel)


def _requires_grad_property(recorder: Recorder, tensor_type: type) -> None:
    """``t.requires_grad = True`` is ``t.requires_grad_(True)``: the same flag set on the
    same leaf, recorded as that method (else the document's leaf never requires grad)."""
    prop = tensor_type.requires_grad

    def set_flag(self: Any, value: Any) -> None:
        prop.fset(self, value)
        if not recorder.depth:
            recorder.record("Tensor.requires_grad_", (self, bool(value)), {}, self, tensor_type)

    tensor_type.requires_grad = property(prop.fget, set_flag, prop.fdel)


def _indexing(recorder: Recorder, tensor_type: type) -> None:
    getitem = tensor_type.__getitem__
    setitem = tensor_type.__setitem__

    def get(self: Any, key: Any) -> Any:
        result = recorder.quiet(getitem, self, key)
        if recorder.depth:
            return result
        found = index_key(recorder, key, tensor_type)
        if isinstance(found, str):
            recorder.refuse(found)
            return result
        text, tensors = found
        recorder.events.append(
            {
                "kind": "getitem",
                "target": recorder.key(self),
                "key": text,
                "index": tensors,
                "line": recorder.line(),
                "no_grad": not recorder.grad_enabled(),
                "out": recorder.fresh(result),
            }
        )
        return result

    def put(self: Any, key: Any, value: Any) -> None:
        if recorder.depth:
            setitem(self, key, value)
            return
        found = index_key(recorder, key, tensor_type)
        target = recorder.key(self)
        written = recorder.value(value, tensor_type)
        recorder.quiet(setitem, self, key, value)
        if isinstance(found, str):
            recorder.refuse(found)
            return
        text, tensors = found
        recorder.events.append(
            {
                "kind": "setitem",
                "target": target,
                "key": text,
                "index": tensors,
                "value": written,
                "line": recorder.line(),
                "no_grad": not recorder.grad_enabled(),
                "out": recorder.fresh(self),
            }
        )

    tensor_type.__getitem__ = get
    tensor_type.__setitem__ = put


def _reflected(recorder: Recorder, tensor_type: type) -> None:
    """``2 / t`` is ``t.reciprocal() * 2`` to PyTorch; ``2 ** t`` is ``pow`` of a number."""
    import engine

    def rtruediv(self: Any, other: Any) -> Any:
        return engine.reciprocal(self) * other

    def rpow(self: Any, other: Any) -> Any:
        return recorder.call("torch.pow", engine.pow, (other, self), {}, tensor_type)

    tensor_type.__rtruediv__ = rtruediv
    tensor_type.__rpow__ = rpow


def _autograd(recorder: Recorder, tensor_type: type) -> None:
    import engine.autograd

    grad = engine.autograd.grad
    backward = engine.autograd.backward

    def keys(value: Any) -> list[str] | None:
        if value is None:
            return None
        items = value if isinstance(value, list | tuple) else [value]
        return [recorder.key(v) if isinstance(v, tensor_type) else None for v in items]  # type: ignore[misc]

    def recorded_grad(
        outputs: Any,
        inputs: Any,
        grad_outputs: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        only_inputs: bool = True,
        allow_unused: bool | None = None,
        **kwargs: Any,
    ) -> Any:
        event = {
            "kind": "grad",
            "outputs": keys(outputs),
            "inputs": keys(inputs),
            "grad_outputs": keys(grad_outputs),
            "retain_graph": retain_graph,
            "create_graph": create_graph,
            "allow_unused": bool(allow_unused),
            "line": recorder.line(),
        }
        result = recorder.quiet(
            grad,
            outputs,
            inputs,
            grad_outputs,
            retain_graph,
            create_graph,
            only_inputs,
            allow_unused,
            **kwargs,
        )
        if not recorder.depth:
            event["out"] = [
                recorder.fresh(r) if isinstance(r, tensor_type) else None for r in result
            ]
            recorder.events.append(event)
        return result

    def recorded_backward(
        tensors: Any,
        grad_tensors: Any = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        **kwargs: Any,
    ) -> None:
        if not recorder.depth:
            recorder.events.append(
                {
                    "kind": "autograd_backward",
                    "tensors": keys(tensors),
                    "grad_tensors": keys(grad_tensors),
                    "retain_graph": retain_graph,
                    "create_graph": create_graph,
                    "line": recorder.line(),
                }
            )
        recorder.quiet(backward, tensors, grad_tensors, retain_graph, create_graph, **kwargs)

    engine.autograd.grad = recorded_grad
    engine.autograd.backward = recorded_backward
    for name in ("gradcheck", "gradgradcheck"):
        checker = getattr(engine.autograd, name)
        setattr(engine.autograd, name, lambda *a, _c=checker, **k: recorder.quiet(_c, *a, **k))


def _function_apply(recorder: Recorder, tensor_type: type) -> None:
    """``MyFunction.apply(...)``: one node holding the class's source, as the static importer."""

    apply = Function.apply.__func__  # type: ignore[attr-defined]

    def recorded_apply(cls: type, *args: Any, **kwargs: Any) -> Any:
        if recorder.depth:
            return apply(cls, *args, **kwargs)
        template: list[dict[str, Any]] = []
        tensors: list[str] = []
        refusal = None
        for a in args:
            if isinstance(a, tensor_type):
                template.append({"input": len(tensors)})
                tensors.append(recorder.key(a))
            else:
                value = recorder.value(a, tensor_type)
                if isinstance(value, str) and value == repr(a) and not isinstance(a, str):
                    refusal = f"{cls.__name__}.apply got {type(a).__name__}, not a plain value"
                template.append({"value": value})
        source = class_source(cls)
        if source is None:
            refusal = f"the source of {cls.__name__} cannot be found"
        line = recorder.line()
        no_grad = not recorder.grad_enabled()
        result = recorder.quiet(apply, cls, *args, **kwargs)
        several = isinstance(result, tuple | list)
        parts = list(result) if several else [result]
        if kwargs:
            refusal = f"{cls.__name__}.apply takes positional arguments only"
        elif not all(isinstance(p, tensor_type) for p in parts):
            kinds = ", ".join(type(p).__name__ for p in parts)
            refusal = f"{cls.__name__}.forward returns {kinds}; a node's outputs are tensors"
        elif several and not 1 < len(parts) <= MAX_OUTPUT_COUNT:
            refusal = (
                f"{cls.__name__}.forward returns a tuple of {len(parts)}; a node holds "
                f"2 to {MAX_OUTPUT_COUNT} outputs"
            )
        if refusal is not None:
            recorder.refuse(refusal)
            return result
        recorder.events.append(
            {
                "kind": "function",
                "class_name": cls.__name__,
                "source": source,
                "args": [] if all("input" in t for t in template) else template,
                "inputs": tensors,
                "line": line,
                "no_grad": no_grad,
                "out": [recorder.fresh(p) for p in parts] if several else recorder.fresh(result),
            }
        )
        return result

    Function.apply = classmethod(recorded_apply)  # type: ignore[assignment]


def _random(recorder: Recorder, tensor_type: type) -> None:
    """Draws become literals holding what was drawn; fills and ``nn.init`` become copies."""
    import engine.nn.dropout
    import engine.nn.functional
    import engine.nn.init

    def draw(fn: Any, args: tuple, kwargs: dict) -> Any:
        result = recorder.quiet(fn, *args, **kwargs)
        if recorder.depth or not isinstance(result, tensor_type):
            return result
        recorder.literal(result)
        return result

    for qualname in RANDOM_FUNCTIONS:
        name = qualname.rsplit(".", 1)[1]
        original = getattr(engine, name)
        setattr(engine, name, lambda *a, _f=original, **k: draw(_f, a, k))
        method = tensor_type.__dict__.get(name)
        if method is not None:  # ``p.multinomial(1)``, ``p.bernoulli()``
            setattr(tensor_type, name, lambda *a, _f=method, **k: draw(_f, a, k))

    def filled(fn: Any) -> Any:
        def fill(tensor: Any, *args: Any, **kwargs: Any) -> Any:
            known = id(tensor) in recorder.keys
            result = recorder.quiet(fn, tensor, *args, **kwargs)
            if recorder.depth:
                return result
            if known:
                recorder.set_value(tensor)
            elif tensor.grad_fn is None:
                # made where nothing was recorded (``std.new_empty(n).normal_()``, the
                # VAE's noise): it enters as what was drawn, as a drawing function's result
                recorder.literal(tensor)
            return result

        return fill

    for name in RANDOM_FILLS:
        method = getattr(tensor_type, name, None)
        if method is not None:
            setattr(tensor_type, name, filled(method))
    for name in dir(engine.nn.init):
        fn = getattr(engine.nn.init, name)
        if name.endswith("_") and not name.startswith("_") and callable(fn):
            setattr(engine.nn.init, name, filled(fn))
    dropout = engine.nn.dropout.dropout

    def recorded_dropout(
        input: Any,  # noqa: A002
        p: float = 0.5,
        training: bool = True,
        inplace: bool = False,
    ) -> Any:
        """Dropout multiplies by a drawn noise tensor: the noise becomes a literal."""
        if recorder.depth or p == 0 or not training or input.numel() == 0:
            return dropout(input, p, training, inplace)
        noises: list[Any] = []
        bernoulli = engine.nn.dropout.fills.bernoulli_

        def keep(t: Any, *a: Any, **k: Any) -> Any:
            noises.append(bernoulli(t, *a, **k))
            return noises[-1]

        engine.nn.dropout.fills.bernoulli_ = keep
        try:
            result = recorder.quiet(dropout, input, p, training, inplace)
        finally:
            engine.nn.dropout.fills.bernoulli_ = bernoulli
        noise = noises[0] if noises else recorder.quiet(engine.zeros, (), dtype=input.dtype)
        args = (input, noise)
        if inplace:
            target = recorder.key(input)
            noise_key = recorder.literal(noise)
            recorder.events.append(
                {
                    "kind": "call",
                    "function": "Tensor.mul_",
                    "args": [{"tensor": target}, {"tensor": noise_key}],
                    "kwargs": {},
                    "line": recorder.line(),
                    "no_grad": not recorder.grad_enabled(),
                    "out": [recorder.fresh(result)],
                }
            )
            return result
        recorder.literal(noise)
        recorder.record("torch.mul", args, {}, result, tensor_type)
        return result

    engine.nn.dropout.dropout = recorded_dropout
    engine.nn.functional.dropout = recorded_dropout


def function_source(fn: Any) -> tuple[str, str] | str:
    """``(name, source)`` of a hook: its ``def``, or ``name = lambda ...`` for a lambda,
    found through its code object (as ``class_source``); else why it cannot be held."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return f"{type(fn).__name__} objects cannot be held as hook code"
    if code.co_freevars:
        return f"the hook uses {', '.join(code.co_freevars)} from around its definition"
    outside = outside_names(code)
    if outside:
        return f"the hook uses {', '.join(outside)} from the program"
    try:
        with open(code.co_filename, encoding="utf-8") as f:
            source = f.read()
    except OSError:
        return "the hook's source cannot be read"
    name = fn.__name__
    for node in ast.walk(ast.parse(source)):
        here = node.lineno if isinstance(node, ast.FunctionDef | ast.Lambda) else -1
        if (
            isinstance(node, ast.FunctionDef)
            and name == node.name
            and here <= code.co_firstlineno <= (node.end_lineno or 0)
        ):
            first = min([here, *(d.lineno for d in node.decorator_list)])
            lines = source.splitlines()[first - 1 : node.end_lineno]
            return name, textwrap.dedent("\n".join(lines)) + "\n"
        if isinstance(node, ast.Lambda) and name == "<lambda>" and here == code.co_firstlineno:
            text = ast.get_source_segment(source, node) or ""
            return "hook", f"hook = {' '.join(text.split())}\n"
    return "the hook's source cannot be found"


def _hooks(recorder: Recorder, tensor_type: type) -> None:
    """Each hook registration is an event holding the hook's code.  One that returns a
    replacement gradient, or changes its gradient in place (``g.mul_(100)``), changes
    what backward computes.  Every hook whose code a node can hold becomes a hook node
    (the evaluation logs when it fired and with what); one that only looks but uses the
    program's state (``seen.append(g)``) is named in the document's notes, never
    dropped silently."""

    lambdas: dict[str, int] = {}

    def owner(node: Any) -> Any:
        return next((t for t in reversed(recorder.alive) if t.grad_fn is node), None)

    def watching(register: Any, what: str, on: str) -> Any:
        def registered(self: Any, hook: Any) -> Any:
            if recorder.depth:
                return register(self, hook)
            line = recorder.line()
            tensor = owner(self) if on.startswith("grad_fn") else self
            found = function_source(hook)
            event: dict[str, Any] = {"kind": "hook", "on": on, "line": line, "changes": False}
            event["target"] = None if tensor is None else recorder.key(tensor)
            event["what"] = what
            if isinstance(found, str):
                event["reason"] = found
            if isinstance(found, tuple):
                name, source = found
                if source.startswith("hook = "):  # lambdas: hook, hook_2, ...
                    name = f"hook_{lambdas.setdefault(source, len(lambdas) + 1)}"
                    name = "hook" if name == "hook_1" else name
                    source = f"{name} = {source.removeprefix('hook = ')}"
                event["name"], event["source"] = name, source
            recorder.events.append(event)

            def watched(*args: Any, **kwargs: Any) -> Any:
                event["ran"] = True  # its code executed: the import may trust it
                # a post-accumulate-grad hook returns None: it changes the tensor in place
                before = state(tensor) if on == "post_accumulate_grad" else None
                given = arguments(args)
                result = hook(*args, **kwargs)
                changed = (
                    result is not None
                    or (before is not None and not _same(before, state(tensor)))
                    or not _same(given, arguments(args))
                )
                if changed and not event["changes"]:
                    event["changes"] = True
                    if isinstance(found, str) or tensor is None:
                        reason = found if isinstance(found, str) else "its tensor is unknown"
                        event.update(
                            kind="refused",
                            message=f"the {what} registered here changes a gradient, "
                            f"but {reason}; a hook node holds only its own code",
                        )
                return result

            watched.__name__ = getattr(hook, "__name__", "hook")
            return register(self, watched)

        return registered

    def arguments(args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The hook's gradient arguments' values (a tuple of them for a grad_fn hook)."""

        def read() -> tuple[Any, ...]:
            flat = [a for arg in args for a in (arg if isinstance(arg, tuple) else (arg,))]
            return tuple(
                a.detach().cpu().numpy().copy() if isinstance(a, tensor_type) else None
                for a in flat
            )

        return recorder.quiet(read)

    def state(tensor: Any) -> tuple[Any, Any]:
        def read() -> tuple[Any, Any]:
            grad = tensor.grad
            grad = None if grad is None else grad.detach().cpu().numpy().copy()
            return tensor.detach().cpu().numpy().copy(), grad

        return recorder.quiet(read)

    tensor_type.register_hook = watching(tensor_type.register_hook, "tensor hook", "tensor")
    tensor_type.register_post_accumulate_grad_hook = watching(
        tensor_type.register_post_accumulate_grad_hook,
        "post-accumulate-grad hook",
        "post_accumulate_grad",
    )
    Node.register_hook = watching(Node.register_hook, "grad_fn hook", "grad_fn")
    Node.register_prehook = watching(Node.register_prehook, "grad_fn pre-hook", "grad_fn_pre")

    _saved_tensors_hooks(recorder)

    def refusing(register: Any) -> Any:
        def registered(self: Any, hook: Any) -> Any:
            recorder.refuse(
                "module backward hooks are not recorded: they add backward nodes "
                "(BackwardHookFunctionBackward) the document cannot hold"
            )
            return register(self, hook)

        return registered

    for name in (
        "register_full_backward_hook",
        "register_full_backward_pre_hook",
        "register_backward_hook",
    ):
        setattr(Module, name, refusing(getattr(Module, name)))


def _same(a: tuple[Any, Any], b: tuple[Any, Any]) -> bool:
    import numpy as np

    return all(
        (x is None) == (y is None)
        and (x is None or (x.shape == y.shape and np.array_equal(x, y, equal_nan=True)))
        for x, y in zip(a, b, strict=True)
    )


def _saved_tensors_hooks(recorder: Recorder) -> None:
    """``saved_tensors_hooks(pack, unpack)`` that hand backward the tensor saved (printing,
    counting) leave the document as computed; a pair that changes it cannot be held, so
    the import stops at the ``with`` line."""
    import numpy as np

    original = graph.saved_tensors_hooks.__init__

    def init(self: Any, pack_hook: Any, unpack_hook: Any) -> None:
        line = recorder.line()
        saved: dict[int, Any] = {}
        told: list[bool] = []

        def pack(tensor: Any) -> Any:
            packed = pack_hook(tensor)
            saved[id(packed)] = recorder.quiet(lambda: tensor.detach().cpu().numpy().copy())
            return packed

        def unpack(packed: Any) -> Any:
            before = saved.get(id(packed))
            result = unpack_hook(packed)
            after = recorder.quiet(lambda: result.detach().cpu().numpy())
            same = before is not None and before.shape == after.shape
            if not (same and np.array_equal(before, after, equal_nan=True)) and not told:
                told.append(True)
                recorder.events.append(
                    {
                        "kind": "refused",
                        "message": "the saved_tensors_hooks used here change the tensors "
                        "backward reads; GradStudio records those that only look",
                        "line": line,
                    }
                )
            return result

        original(self, pack, unpack)

    graph.saved_tensors_hooks.__init__ = init  # type: ignore[method-assign]
