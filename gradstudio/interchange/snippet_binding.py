"""Binding a call's arguments to a catalogue node's ports and params, as the engine
function's Python signature would (positions, names, defaults, ``*sizes``, devices)."""

from __future__ import annotations

import inspect
from typing import Any

from engine.catalog import FUNCTIONS
from gradstudio.catalogue import SAME_AS_DEFAULT, NodeKind, NodeType
from gradstudio.interchange.snippet_values import (
    Const,
    DefaultDevice,
    ImportProblem,
    TensorList,
    TensorRef,
    Value,
)


def python_arguments(
    node_type: NodeType, args: list[Value], kwargs: dict[str, Value]
) -> tuple[list[Value], dict[str, Value]]:
    """The call with the arguments a node does not hold named by the engine function's
    Python signature, and dropped where they are that function's defaults: modules pass
    every argument positionally (``nn.MaxPool2d`` gives ``max_pool2d`` its ``dilation=1,
    ceil_mode=False, return_indices=False``, ``nn.LeakyReLU`` its ``inplace``).
    Arguments that change the result stay, for ``bind`` to refuse by name."""
    parameters = python_parameters(node_type)
    if parameters is None:
        return args, kwargs
    held = {p.name for p in node_type.inputs} | {p.name for p in node_type.params}
    names = list(parameters)
    args, kwargs = list(args), dict(kwargs)
    first_unheld = next((i for i, n in enumerate(names) if n not in held), len(names))
    if first_unheld < len(args) <= len(names):  # more than it takes: ``bind`` says so
        for name, value in zip(names[first_unheld:], args[first_unheld:], strict=False):
            kwargs.setdefault(name, value)
        args = args[:first_unheld]
    for name in [n for n in kwargs if n not in held and n in parameters]:
        value, default = kwargs[name], parameters[name].default
        if name != "inplace" and isinstance(value, Const) and same_default(value.value, default):
            del kwargs[name]
    if "inplace" in kwargs and kwargs["inplace"] == Const(False):
        del kwargs["inplace"]
    return args, kwargs


def same_default(value: Any, default: Any) -> bool:
    """``value`` is what the function would take anyway (``(1, 1)`` for a default 1 is
    not: only the same value)."""
    if default is inspect.Parameter.empty:
        return False
    return type(value) is type(default) and value == default


def inplace_twin(catalogue: Any, node_type: NodeType) -> NodeType | None:
    """The in-place node ``inplace=True`` stands for: ``F.leaky_relu_`` for
    ``F.leaky_relu``, the method ``x.relu_()`` for ``F.relu``."""
    for qualname in node_type.functions:
        twin = catalogue.by_function(f"{qualname}_")
        if twin is not None and twin.kind is NodeKind.INPLACE:
            return twin
    twin = catalogue.by_method(f"{node_type.title}_")
    return twin if twin is not None and twin.kind is NodeKind.INPLACE else None


def python_parameters(node_type: NodeType) -> Any:
    """The engine function's Python parameters, for a node made from a function without
    ``*args`` (None otherwise: methods, ``einsum``'s operands)."""
    for qualname in node_type.functions:
        sig = FUNCTIONS.get(qualname)
        if sig is None or sig.fn is None:
            continue
        parameters = inspect.signature(sig.fn).parameters
        if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters.values()):
            return None
        return parameters
    return None


#: NumPy's argument names that PyTorch takes for its own (``x.sum(axis=0, keepdims=True)``).
NUMPY_ALIASES = {"axis": "dim", "keepdims": "keepdim"}


def bind(
    node_type: NodeType, args: list[Value], kwargs: dict[str, Value], line: int | None, plain: Any
) -> tuple[list[tuple[str, Value]], dict[str, Any]]:
    """Match call arguments to ports (tensors) then params, by position and by name."""
    scalar_ports = {p.name for p in node_type.inputs if p.scalar_ok}
    param_names = [
        p.name
        for p in node_type.params
        if p.name not in scalar_ports and p.name not in ("no_grad", "device")
    ]
    slots = [p.name for p in node_type.inputs] + param_names
    if node_type.call_order:  # the Python signature's order (``einsum(equation, *operands)``)
        slots = [n for n in node_type.call_order if n in slots]
    variadic = {p.name for p in node_type.inputs if p.variadic}
    greedy = takes_trailing_sizes(node_type)
    bound: dict[str, Value] = {}
    rest = list(args)
    for name in slots:
        if not rest:
            break
        if name in variadic and isinstance(rest[0], TensorRef):
            bound[name] = TensorList(tuple(rest))  # type: ignore[arg-type]
            rest = []
            break
        spec = (
            node_type.param(name)
            if node_type.has_param(name) and name not in scalar_ports
            else None
        )
        if (
            spec is not None
            and spec.kind in ("shape", "optional_shape")
            and greedy(name)
            and all(
                isinstance(a, Const) and isinstance(a.value, int) and not isinstance(a.value, bool)
                for a in rest
            )
            and len(rest) > 1
        ):
            bound[name] = Const([a.value for a in rest])  # type: ignore[union-attr]
            rest = []
            break
        bound[name] = rest.pop(0)
    if rest:
        raise ImportProblem(f"{node_type.title}() got more arguments than GradStudio knows", line)
    for key, value in kwargs.items():
        alias = NUMPY_ALIASES.get(key)
        if alias is not None and alias in slots and key not in slots:
            key = alias
        if key in bound:
            raise ImportProblem(f"{node_type.title}() got {key} twice", line)
        bound[key] = value
    inputs: list[tuple[str, Value]] = []
    params: dict[str, Any] = {}
    port_names = {p.name for p in node_type.inputs}
    for name, value in bound.items():
        if name in port_names:
            if isinstance(value, Const) and value.value is None and node_type.input(name).optional:
                continue
            inputs.append((name, value))
        elif node_type.has_param(name):
            v = plain(value, line)
            shape = node_type.param(name).kind in ("shape", "optional_shape")
            if shape and isinstance(v, int) and not isinstance(v, bool):
                v = [v]  # ``zeros(size=3)``: one size (``local_response_norm``'s is a count)
            params[name] = v
        else:
            raise ImportProblem(
                f"{node_type.title}() got an argument {name!r} GradStudio does not know", line
            )
    for spec in node_type.params:
        if spec.name not in params and spec.omitted is not SAME_AS_DEFAULT:
            params[spec.name] = spec.omitted
    if node_type.kind is NodeKind.SOURCE and "device" in kwargs and node_type.has_param("device"):
        params["device"] = device_param(kwargs["device"], line)
    return inputs, params


def takes_trailing_sizes(node_type: NodeType) -> Any:
    """Whether a size param may take the rest of the call's ints (``x.view(2, 3)``,
    ``zeros(2, 3)``): where the engine function takes ``*sizes``, or the param is its last
    positional one; never before another (``roll(x, 1, 1)`` is shifts 1, dims 1)."""
    parameters = python_parameters(node_type)
    if parameters is None:
        return lambda name: True
    positional = [
        n
        for n, p in parameters.items()
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    return lambda name: bool(positional) and name == positional[-1]


def device_param(value: Value, line: int | None) -> str:
    """``device=None`` is the default device, as in PyTorch (``as_tensor`` passes it on)."""
    if isinstance(value, DefaultDevice) or (isinstance(value, Const) and value.value is None):
        return "default"
    return device_const([value], line)


def device_const(args: list[Value], line: int | None) -> str:
    if len(args) == 1 and isinstance(args[0], DefaultDevice):
        return "default"
    if len(args) != 1 or not isinstance(args[0], Const) or not isinstance(args[0].value, str):
        raise ImportProblem("a device is 'cpu' or 'cuda'", line)
    name = args[0].value.split(":")[0]
    if name not in ("cpu", "cuda"):
        raise ImportProblem(f"unknown device {args[0].value!r}", line)
    return name
