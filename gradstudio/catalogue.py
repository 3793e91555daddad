"""The node catalogue: every node type declared once.

Op node types are derived from the engine's own table (``engine.catalog``), one per
``Signature``; only what is not an engine function is declared here by hand
(tensor sources, tensor actions, in-place ops, custom ``autograd.Function`` and the
action nodes).  The palette, the file format, the evaluator, the importer and the
exporter all read the same ``NodeType``: its ports, its parameters, how it runs on
the engine (``run``) and how it is written as PyTorch (``code``).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engine.catalog import REQUIRED, functions
from gradstudio.document.index_key import PLACEHOLDER, IndexKey, parse_key
from gradstudio.function_args import apply_arguments, apply_sources
from gradstudio.params import checker, data_python, number_python, param_kind, to_json_value


class PortType(str, enum.Enum):
    TENSOR = "tensor"
    TENSORS = "tensors"  # a Python list of tensors (what ``autograd.grad`` returns)


class NodeKind(str, enum.Enum):
    SOURCE = "source"
    OP = "op"
    TENSOR_ACTION = "tensor_action"
    INPLACE = "inplace"
    CUSTOM_FUNCTION = "custom_function"
    ACTION = "action"


class Effect(str, enum.Enum):
    """What a step may change: only its new outputs, or any tensor in the graph."""

    NEW = "new"
    GRADS = "grads"  # gradients, flags and saved tensors may change; values do not
    GLOBAL = "global"


@dataclass(frozen=True)
class PortSpec:
    name: str
    type: PortType = PortType.TENSOR
    optional: bool = False
    variadic: bool = False
    scalar_ok: bool = False
    doc: str = ""
    #: What the port passes when nothing is wired, as source text (a custom Function's
    #: ``z = 4``); shown beside it.
    preset: str | None = None


#: ``ParamSpec.omitted`` where leaving the argument out means the node's default.
SAME_AS_DEFAULT: Any = object()


@dataclass(frozen=True)
class ParamSpec:
    name: str
    kind: str
    default: Any = None
    required: bool = False
    choices: tuple[str, ...] = ()
    doc: str = ""
    #: ``Param.aliases``: an old spelling is read as the current one.
    aliases: tuple[tuple[str, str], ...] = ()
    #: What a call that leaves the argument out passes, where that is not ``default`` (what
    #: a new node starts with): ``F.softmax``'s dim starts at -1 on a new node, and an
    #: imported ``F.softmax(x)`` keeps None, PyTorch's implicit choice.
    omitted: Any = SAME_AS_DEFAULT

    def check(self, value: Any) -> Any:
        """The normalised value, or ``ValueError`` saying what is wrong with it."""
        if self.aliases and isinstance(value, str):
            value = dict(self.aliases).get(value, value)
        if value is None and self.required:
            raise ValueError(f"parameter {self.name!r} needs a value")
        if value is None and self.default is None:
            return None
        return checker(self.kind, self.choices)(value)


class NodeInputError(Exception):
    """A node cannot run because of how it is wired or set up (not a PyTorch error)."""


@dataclass
class RunCall:
    """What a node type's ``run`` receives: live engine objects for one step."""

    backend: Any
    device: str
    inputs: dict[str, Any]
    params: dict[str, Any]
    trusted: bool = True
    label: str = ""

    def tensor(self, port: str) -> Any:
        value = self.inputs.get(port)
        if value is None:
            raise NodeInputError(f"input {port!r} is not connected")
        return value

    def dtype(self, name: str | None) -> Any:
        return None if name is None else getattr(self.backend, name)

    def device_of(self, choice: str) -> str | None:
        """The engine device for a ``device`` param (``default`` = the evaluation's)."""
        return self.device if choice == "default" else choice


@dataclass
class CodeCall:
    """What a node type's ``code`` receives: PyTorch expressions for its inputs."""

    inputs: dict[str, Any]  # port -> expression, list of expressions, or None
    params: dict[str, Any]
    device: str  # the document's device

    def device_kw(self, choice: str) -> str | None:
        """The ``device=`` text for a device param, or None where the default is right."""
        if choice == "default":
            return None if self.device == "cpu" else "device"
        return repr(choice)


@dataclass(frozen=True)
class NodeType:
    id: str
    title: str
    category: str
    kind: NodeKind
    inputs: tuple[PortSpec, ...]
    outputs: tuple[PortSpec, ...]
    params: tuple[ParamSpec, ...]
    run: Callable[[RunCall], dict[str, Any]] = field(compare=False, repr=False)
    code: Callable[[CodeCall], str] = field(compare=False, repr=False)
    doc: str = ""
    effect: Effect = Effect.NEW
    aliases: tuple[str, ...] = ()
    #: Python spellings the importer recognises: ``torch.add`` / ``F.linear`` functions
    #: (qualified) and tensor method names.
    functions: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    #: Tensor attributes read as values (``x.T``, ``x.grad``).
    attributes: tuple[str, ...] = ()
    #: Ports and params in the order a call passes them by position (empty: ports, then
    #: params).
    call_order: tuple[str, ...] = ()
    #: Its outputs hold whatever memory held (``empty_like``): values not comparable.
    uninitialised: bool = False
    #: (output, bool param): an output returned only when its flag is set (``unique``).
    output_flags: tuple[tuple[str, str], ...] = ()
    #: The input ports of one node, from its params, where they are its own (a custom
    #: Function has one per argument of its ``forward``); None: ``inputs`` for all.
    ports: Callable[[Mapping[str, Any]], tuple[PortSpec, ...]] | None = field(
        default=None, compare=False, repr=False
    )
    #: The output ports of one node, from its params (a custom Function has one per
    #: tensor its ``forward`` returns); None: ``outputs`` for all.
    output_ports: Callable[[Mapping[str, Any]], tuple[PortSpec, ...]] | None = field(
        default=None, compare=False, repr=False
    )

    def for_params(self, params: Mapping[str, Any]) -> NodeType:
        """The type of one node with these params: itself, or its own ports."""
        inputs = self.inputs if self.ports is None else self.ports(params)
        outputs = self.outputs if self.output_ports is None else self.output_ports(params)
        if inputs == self.inputs and outputs == self.outputs:
            return self
        return replace(self, inputs=inputs, outputs=outputs)

    def returned(self, params: Mapping[str, Any]) -> list[str]:
        """The outputs a call with these params returns, in order."""
        flags = dict(self.output_flags)
        outputs = self.outputs if self.output_ports is None else self.output_ports(params)
        return [p.name for p in outputs if p.name not in flags or params.get(flags[p.name])]

    def input(self, name: str) -> PortSpec:
        for port in self.inputs:
            if port.name == name:
                return port
        raise KeyError(f"{self.id} has no input {name!r}")

    def output(self, name: str) -> PortSpec:
        for port in self.outputs:
            if port.name == name:
                return port
        raise KeyError(f"{self.id} has no output {name!r}")

    def param(self, name: str) -> ParamSpec:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"{self.id} has no parameter {name!r}")

    def has_param(self, name: str) -> bool:
        return any(p.name == name for p in self.params)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    @property
    def produces_tensors(self) -> bool:
        return bool(self.outputs)


NO_GRAD = ParamSpec(
    "no_grad", "bool", False, doc="Run this step inside torch.no_grad(): nothing is recorded."
)


# --------------------------------------------------------------------------- helpers


def py(kind: str, value: Any) -> str:
    """A parameter value written as PyTorch source."""
    if value is None:
        return "None"
    return param_kind(kind).to_source(value) if kind else repr(value)


def _scalar_source(value: Any) -> str:
    """A number standing in for a tensor input, as PyTorch source."""
    return py("optional_number", value)


def engine_value(call: RunCall, kind: str, value: Any) -> Any:
    """A parameter value as the engine (or torch) takes it."""
    if value is None or not kind:
        return value
    return param_kind(kind).to_python(value, call.backend)


def _kw(items: Iterable[tuple[str | None, str | None]]) -> str:
    return ", ".join(f"{k}={v}" if k else str(v) for k, v in items if v is not None)


def _resolve(backend: Any, qualname: str) -> Callable[..., Any]:
    obj = backend
    for part in qualname.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _pyname(qualname: str) -> str:
    return (
        "F." + qualname.rsplit(".", 1)[1]
        if qualname.startswith("torch.nn.functional.")
        else qualname
    )


DEVICE_PARAM = ParamSpec(
    "device", "device", "default", doc="'default' follows the document's device"
)
TENSOR_IN = PortSpec("input")
TENSOR_OUT = PortSpec("out")


# ------------------------------------------------------------- engine-derived op types


def _omitted(p: Any) -> Any:
    """``ParamSpec.omitted``: the Python default where a new node starts elsewhere, and
    the parameter's kind can hold it (``norm``'s ``p='fro'`` is its number 2 for the
    inputs a node takes)."""
    default = to_json_value(p.default)
    if p.required or default == _initial(p):
        return SAME_AS_DEFAULT
    try:
        return checker(p.kind, tuple(p.choices))(default)
    except ValueError:
        return SAME_AS_DEFAULT


def _initial(p: Any) -> Any:
    """What a new node starts with: the declared initial value, else the Python
    default, else its kind's (or its first choice)."""

    if p.initial is not REQUIRED:
        return to_json_value(p.initial)
    if not p.required:
        return to_json_value(p.default)
    initial = param_kind(p.kind).initial
    return p.choices[0] if initial is None and p.choices else initial


def _derived(sig: Any) -> NodeType:
    """One node type for one engine ``Signature``."""

    qualname = sig.qualname
    ports = tuple(
        PortSpec(
            p.name, PortType.TENSOR, optional=p.optional, variadic=p.variadic, scalar_ok=p.scalar_ok
        )
        for p in sig.inputs
    )
    is_source = not ports
    params: list[ParamSpec] = [
        ParamSpec(p.name, "optional_number", None, doc="a number used when nothing is connected")
        for p in sig.inputs
        if p.scalar_ok
    ]
    engine_params = [
        ParamSpec(
            p.name,
            p.kind,
            _initial(p),
            p.required,
            tuple(p.choices),
            aliases=p.aliases,
            omitted=_omitted(p),
        )
        for p in sig.params
    ]
    params += engine_params
    if sig.takes_device:
        params.append(DEVICE_PARAM)
    kinds = {p.name: p.kind for p in params}
    port_names = {p.name for p in ports}
    ports_by_name = {p.name: p for p in ports}
    declared = {p.name: p for p in (*sig.inputs, *sig.params)}
    varargs = {p.name for p in (*sig.inputs, *sig.params) if p.varargs}
    #: Written spread out (``torch.zeros(2, 3)``, ``torch.einsum(eq, a, b)``); ``torch.permute``
    #: takes its dims as one tuple though the engine's Python signature spreads them.
    spread = {p.name for p in sig.inputs if p.varargs} | (varargs if is_source else set())
    #: Arguments in the order of the Python signature (keyword-only ones last).
    order = sorted(declared.values(), key=lambda p: (p.position is None, p.position or 0))

    def args(
        values: Mapping[str, Any],
        params_: Mapping[str, Any],
        scalar: Callable[[Any], Any] = lambda v: v,
    ) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        """Positional and keyword arguments, written the way PyTorch code reads; a number
        standing in for a tensor input passes through ``scalar`` (made source text)."""
        positional: list[tuple[str, Any]] = []
        keywords: list[tuple[str, Any]] = []

        def put(name: str, value: Any, required: bool = True) -> None:
            """Required arguments go by position (where the position fits), the rest by name."""
            position = declared[name].position
            fits = position is not None and position == len(positional) and not keywords
            if name in varargs or (required and fits):
                positional.append((name, value))
            else:
                keywords.append((name, value))

        for p in order:
            if p.name in port_names:
                port = ports_by_name[p.name]
                value = values.get(port.name)
                if value is None and port.scalar_ok:
                    value = params_.get(port.name)
                    value = None if value is None else scalar(value)
                if value is None or (isinstance(value, list) and not value and port.optional):
                    if not port.optional:
                        raise NodeInputError(f"input {port.name!r} is not connected")
                    if p.default is not REQUIRED:
                        continue
                    value = None  # Python needs it: pass None (``batch_norm``'s running_mean)
                put(port.name, value)
                continue
            value = params_.get(p.name)
            if value is None and p.required:
                raise NodeInputError(f"parameter {p.name!r} needs a value")
            if p.required or value != to_json_value(p.default):
                put(p.name, value, p.required)
        return positional, keywords

    def run(call: RunCall) -> dict[str, Any]:
        positional, keywords = args(call.inputs, call.params)
        fn = _resolve(call.backend, qualname)
        pos: list[Any] = []
        for name, value in positional:
            converted = engine_value(call, kinds.get(name, ""), value)
            # an empty size goes as one (): torch.zeros() has none
            empty_size = name not in port_names and not converted
            if name in spread and isinstance(converted, tuple | list) and not empty_size:
                pos.extend(converted)
            else:
                pos.append(converted)
        kw = {k: engine_value(call, kinds.get(k, ""), v) for k, v in keywords}
        if sig.takes_device:
            device = call.device_of(call.params["device"])
            if device != "cpu":
                kw["device"] = device
        result = fn(*pos, **kw)
        flags = dict(sig.output_flags)
        names = [o for o in sig.outputs if o not in flags or call.params.get(flags[o])]
        if len(names) == 1 or not isinstance(result, tuple | list):
            return {names[0]: result}
        return dict(zip(names, result, strict=False))

    def text(name: str, value: Any) -> str:
        if name in port_names:
            if isinstance(value, list):
                return ", ".join(value) if name in spread else "[" + ", ".join(value) + "]"
            return value if isinstance(value, str) else repr(value)
        if name in spread and isinstance(value, list):
            return ", ".join(map(str, value)) if value else "()"  # torch.zeros(()): 0-dim
        return py(kinds.get(name, ""), value)

    def code(c: CodeCall) -> str:
        positional, keywords = args(c.inputs, c.params, _scalar_source)
        parts = [text(k, v) for k, v in positional] + [f"{k}={text(k, v)}" for k, v in keywords]
        if sig.takes_device:
            device = c.device_kw(c.params["device"])
            if device is not None:
                parts.append(f"device={device}")
        if sig.namespace == "torch.Tensor" and parts:
            return f"{parts[0]}.{sig.name}({', '.join(parts[1:])})"
        return f"{_pyname(qualname)}({', '.join(parts)})"

    # in-place methods are ids ``Tensor.add_``; an in-place functional keeps its name
    method_id = sig.mutates and sig.namespace in ("torch", "torch.Tensor")
    return NodeType(
        id=f"Tensor.{sig.name}" if method_id else qualname,
        title=sig.name,
        category=sig.category,
        kind=NodeKind.INPLACE if sig.mutates else NodeKind.SOURCE if is_source else NodeKind.OP,
        inputs=ports,
        outputs=tuple(
            PortSpec(o, PortType.TENSORS if sig.returns_list else PortType.TENSOR)
            for o in sig.outputs
        ),
        params=(*params, NO_GRAD),
        run=run,
        code=code,
        doc=sig.doc,
        effect=Effect.GLOBAL if sig.mutates else Effect.NEW,
        aliases=(qualname,) if method_id else (),  # ids stay ``Tensor.add_`` in files
        functions=(
            (qualname, *(f"{sig.namespace}.{a}" for a in sig.aliases))
            if sig.namespace != "torch.Tensor"
            else ()
        ),
        methods=(sig.name, *sig.aliases) if sig.method else (),
        call_order=tuple(p.name for p in order if p.position is not None),
        uninitialised=sig.example is not None and not sig.example.deterministic,
        output_flags=sig.output_flags,
    )


# ------------------------------------------------------------------ hand-declared types

LEGACY_CLASSES = ("Tensor", "FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "ShortTensor")


def _legacy_run(call: RunCall) -> dict[str, Any]:
    cls = getattr(call.backend, call.params["cls"])
    if call.params["data"] is not None:
        return {"out": cls(data_python(call.params["data"]))}
    return {"out": cls(*(call.params["sizes"] or []))}


def _legacy_code(c: CodeCall) -> str:
    if c.params["data"] is not None:
        return f"torch.{c.params['cls']}({py('data', c.params['data'])})"
    return f"torch.{c.params['cls']}({', '.join(map(str, c.params['sizes'] or []))})"


def _method(
    id_: str,
    title: str,
    method: str,
    doc: str,
    *,
    kind: NodeKind = NodeKind.TENSOR_ACTION,
    extra_inputs: tuple[PortSpec, ...] = (),
    params: tuple[ParamSpec, ...] = (),
    outputs: tuple[PortSpec, ...] = (TENSOR_OUT,),
    effect: Effect = Effect.NEW,
    category: str = "tensor",
) -> NodeType:
    """A node for ``input.method(<other inputs>, <params>)``; default params are left out."""
    scalar = {p.name for p in extra_inputs if p.scalar_ok}

    def call_args(
        values: Mapping[str, Any],
        params_: Mapping[str, Any],
        number: Callable[[Any], Any] = number_python,
    ) -> list[tuple[str | None, Any]]:
        """The arguments; a number standing in for a tensor input passes through ``number``
        (made what Python takes, or source text)."""
        items: list[tuple[str | None, Any]] = []
        for port in extra_inputs:
            value = values.get(port.name)
            if value is None and port.name in scalar:
                value = params_.get(port.name)
                value = None if value is None else number(value)
            if value is None:
                if port.optional:
                    continue
                raise NodeInputError(f"input {port.name!r} is not connected")
            items.append((None, value))
        for p in params:
            if p.name not in scalar and params_.get(p.name) != p.default:
                items.append((p.name, params_.get(p.name)))
        return items

    def run(call: RunCall) -> dict[str, Any]:
        target = call.tensor("input")
        items = call_args(call.inputs, call.params)
        positional = [v for k, v in items if k is None]
        keywords = {k: engine_value(call, _kind_of(params, k), v) for k, v in items if k}
        result = getattr(target, method)(*positional, **keywords)
        return {outputs[0].name: result} if outputs else {}

    def code(c: CodeCall) -> str:
        items = call_args(c.inputs, c.params, _scalar_source)
        text = [
            (
                k,
                v
                if isinstance(v, str) and k is None
                else py(_kind_of(params, k) if k else "number", v),
            )
            for k, v in items
        ]
        return f"{c.inputs['input']}.{method}({_kw(text)})"

    all_params = tuple(
        ParamSpec(p.name, "optional_number", None) for p in extra_inputs if p.scalar_ok
    )
    return NodeType(
        id=id_,
        title=title,
        category=category,
        kind=kind,
        inputs=(TENSOR_IN, *extra_inputs),
        outputs=outputs,
        params=(*all_params, *params, *((NO_GRAD,) if outputs else ())),
        run=run,
        code=code,
        doc=doc,
        effect=effect,
        methods=(method,),
    )


def _kind_of(params: tuple[ParamSpec, ...], name: str | None) -> str:
    return next((p.kind for p in params if p.name == name), "")


def _attribute(id_: str, attr: str, doc: str, category: str = "tensor") -> NodeType:
    return NodeType(
        id=id_,
        title=f".{attr}",
        category=category,
        kind=NodeKind.TENSOR_ACTION,
        inputs=(TENSOR_IN,),
        outputs=(TENSOR_OUT,),
        params=(NO_GRAD,),
        run=lambda call: {"out": getattr(call.tensor("input"), attr)},
        code=lambda c: f"{c.inputs['input']}.{attr}",
        doc=doc,
        attributes=(attr,),
    )


def _requires_grad_run(call: RunCall) -> dict[str, Any]:
    x = call.tensor("input")
    if call.params["form"] == "attribute":
        x.requires_grad = call.params["requires_grad"]
        return {"out": x}
    if call.params["requires_grad"]:
        return {"out": x.requires_grad_()}
    return {"out": x.requires_grad_(False)}


def _requires_grad_code(c: CodeCall) -> str:
    x = c.inputs["input"]
    if c.params["form"] == "attribute":
        return f"{x}.requires_grad = {c.params['requires_grad']}"
    return f"{x}.requires_grad_({'' if c.params['requires_grad'] else 'False'})"


def _to_run(call: RunCall) -> dict[str, Any]:
    x = call.tensor("input")
    args: list[Any] = []
    if call.params["device"] != "keep":
        args.append(call.device_of(call.params["device"]))
    if call.params["dtype"] is not None:
        args.append(call.dtype(call.params["dtype"]))
    return {"out": x.to(*args)}


def _to_code(c: CodeCall) -> str:
    args = []
    device = c.params["device"]
    if device == "default":
        args.append("device")
    elif device != "keep":
        args.append(repr(device))
    if c.params["dtype"] is not None:
        args.append(py("dtype", c.params["dtype"]))
    return f"{c.inputs['input']}.to({', '.join(args)})"


def _backward_run(call: RunCall) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    if call.inputs.get("gradient") is not None:
        kw["gradient"] = call.inputs["gradient"]
    if call.params["retain_graph"] is not None:
        kw["retain_graph"] = call.params["retain_graph"]
    if call.params["create_graph"]:
        kw["create_graph"] = True
    call.tensor("input").backward(**kw)
    return {}


def _backward_code(c: CodeCall) -> str:
    kw = [
        ("gradient", c.inputs.get("gradient")),
        (
            "retain_graph",
            None if c.params["retain_graph"] is None else repr(c.params["retain_graph"]),
        ),
        ("create_graph", "True" if c.params["create_graph"] else None),
    ]
    return f"{c.inputs['input']}.backward({_kw(kw)})"


def _autograd_backward_run(call: RunCall) -> dict[str, Any]:
    tensors = call.inputs.get("tensors") or []
    if not tensors:
        raise NodeInputError("connect at least one tensor to 'tensors'")
    kw: dict[str, Any] = {}
    if call.inputs.get("grad_tensors"):
        kw["grad_tensors"] = call.inputs["grad_tensors"]
    if call.params["retain_graph"] is not None:
        kw["retain_graph"] = call.params["retain_graph"]
    if call.params["create_graph"]:
        kw["create_graph"] = True
    call.backend.autograd.backward(tensors, **kw)
    return {}


def _autograd_backward_code(c: CodeCall) -> str:
    def lst(v: Any) -> str | None:
        return None if not v else "[" + ", ".join(v) + "]"

    kw = [
        (None, lst(c.inputs.get("tensors")) or "[]"),
        ("grad_tensors", lst(c.inputs.get("grad_tensors"))),
        (
            "retain_graph",
            None if c.params["retain_graph"] is None else repr(c.params["retain_graph"]),
        ),
        ("create_graph", "True" if c.params["create_graph"] else None),
    ]
    return f"torch.autograd.backward({_kw(kw)})"


def _grad_run(call: RunCall) -> dict[str, Any]:
    outputs = call.inputs.get("outputs") or []
    inputs = call.inputs.get("inputs") or []
    if not outputs or not inputs:
        raise NodeInputError("connect at least one tensor to 'outputs' and one to 'inputs'")
    kw: dict[str, Any] = {}
    if call.inputs.get("grad_outputs"):
        kw["grad_outputs"] = call.inputs["grad_outputs"]
    if call.params["retain_graph"] is not None:
        kw["retain_graph"] = call.params["retain_graph"]
    for flag in ("create_graph", "allow_unused"):
        if call.params[flag]:
            kw[flag] = True
    return {"grads": list(call.backend.autograd.grad(outputs, inputs, **kw))}


def _grad_code(c: CodeCall) -> str:
    def lst(v: Any) -> str | None:
        return None if not v else "[" + ", ".join(v) + "]"

    kw = [
        (None, lst(c.inputs.get("outputs")) or "[]"),
        (None, lst(c.inputs.get("inputs")) or "[]"),
        ("grad_outputs", lst(c.inputs.get("grad_outputs"))),
        (
            "retain_graph",
            None if c.params["retain_graph"] is None else repr(c.params["retain_graph"]),
        ),
        ("create_graph", "True" if c.params["create_graph"] else None),
        ("allow_unused", "True" if c.params["allow_unused"] else None),
    ]
    return f"list(torch.autograd.grad({_kw(kw)}))"


def _zero_grad_run(call: RunCall) -> dict[str, Any]:
    for t in call.inputs.get("tensors") or []:
        if call.params["set_to_none"]:
            t.grad = None
        else:
            t.grad.zero_()
    return {}


def _zero_grad_code(c: CodeCall) -> str:
    tensors = c.inputs.get("tensors") or []
    if c.params["set_to_none"]:
        return "\n".join(f"{t}.grad = None" for t in tensors) or "pass"
    return "\n".join(f"{t}.grad.zero_()" for t in tensors) or "pass"


def _set_grad_run(call: RunCall) -> dict[str, Any]:
    call.tensor("input").grad = call.tensor("grad")
    return {}


def _set_grad_code(c: CodeCall) -> str:
    return f"{c.inputs['input']}.grad = {c.inputs['grad']}"


def _select_run(call: RunCall) -> dict[str, Any]:
    items = call.inputs.get("list")
    if items is None:
        raise NodeInputError("input 'list' is not connected")
    index = call.params["index"]
    if not -len(items) <= index < len(items):
        raise NodeInputError(f"index {index} is out of range for a list of {len(items)}")
    return {"out": items[index]}


FUNCTION_TEMPLATE = """class Func(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 2
"""


#: The template's arguments: ``forward(ctx, x)`` takes one tensor.
FUNCTION_ARGS: list[dict[str, Any]] = [{"name": "x"}]


class NotTrustedError(Exception):
    """Custom Function code exists but the document is not trusted to run it."""


def function_namespace(backend: Any) -> dict[str, Any]:
    """Globals a custom Function's code runs with: what the exported script imports."""
    return {
        "__name__": "gradstudio_function",
        "torch": backend,
        "F": backend.nn.functional,
        "Function": backend.autograd.Function,
    }


def function_ports(params: Mapping[str, Any]) -> tuple[PortSpec, ...]:
    """A custom Function node's inputs: a port per argument of ``apply``, named for the
    ``forward`` parameter it fills; one given a value shows it (``z = 4``)."""
    return tuple(
        PortSpec(
            a["name"],
            optional="value" in a or bool(a.get("variadic")),
            variadic=bool(a.get("variadic")),
            preset=py("data", a["value"]) if "value" in a else None,
        )
        for a in params.get("args") or ()
    )


def function_outputs(params: Mapping[str, Any]) -> tuple[PortSpec, ...]:
    """A custom Function node's outputs: ``out`` for a forward that returns one tensor,
    ``out0``, ``out1``... for one that returns several (a tuple, as ``apply`` does)."""
    count = params.get("outputs") or 1
    if count == 1:
        return (TENSOR_OUT,)
    return tuple(PortSpec(f"out{i}") for i in range(count))


def _function_run(call: RunCall) -> dict[str, Any]:
    if not call.trusted:
        raise NotTrustedError(
            "this document is not trusted, so its custom Function code was not run"
        )
    namespace = function_namespace(call.backend)
    name = call.params["class_name"]
    code = compile(call.params["source"], f"<Function {name}>", "exec")
    exec(code, namespace)
    cls = namespace.get(name)
    if cls is None:
        raise NodeInputError(f"the code does not define a class named {name!r}")
    try:
        args = apply_arguments(call.params["args"], call.inputs)
    except LookupError as exc:
        raise NodeInputError(str(exc.args[0])) from None
    result = cls.apply(*args)
    ports = [p.name for p in function_outputs(call.params)]
    several = isinstance(result, tuple | list)
    got = len(result) if several else 1
    if got != len(ports) or (len(ports) > 1) != several:
        returned = f"a tuple of {got}" if several else "one tensor"
        raise NodeInputError(
            f"{name}.forward returned {returned}, but the node has {len(ports)} "
            f"output{'s' if len(ports) > 1 else ''}; set its outputs to match"
        )
    return dict(zip(ports, result if several else (result,), strict=True))


def _function_code(c: CodeCall) -> str:
    args = apply_sources(c.params["args"], c.inputs)
    return f"{c.params['class_name']}.apply({', '.join(args)})"


HOOK_TEMPLATE = """def hook(grad):
    return grad * 2
"""

#: Where a hook node registers its function, and the PyTorch call that does it.
HOOK_TARGETS = {
    "tensor": "{t}.register_hook({h})",
    "post_accumulate_grad": "{t}.register_post_accumulate_grad_hook({h})",
    "grad_fn": "{t}.grad_fn.register_hook({h})",
    "grad_fn_pre": "{t}.grad_fn.register_prehook({h})",
}


@dataclass(frozen=True)
class HookFiring:
    """One call of a hook node's function during backward: where, and what it returned.

    ``before`` counts the grad_fn executions of the backward that had run when it fired,
    so a replay shows the firing between the right two executions."""

    name: str
    on: str  # the grad_fn it fired on, e.g. "MulBackward0" ("AccumulateGrad" for a leaf)
    returned: str  # "None" or the returned tensor's repr
    before: int = 0

    @property
    def text(self) -> str:
        return f"hook {self.name} fired on {self.on}, returned {self.returned}"


#: Receives each firing while a backward runs (the evaluator pushes one around a step).
HOOK_LOG: list[Callable[[str, str, str], None]] = []


def _hook_function(call: RunCall) -> Any:
    """The user's hook, compiled from the node's code (trusted documents only)."""
    if not call.trusted:
        raise NotTrustedError("this document is not trusted, so its hook code was not run")
    namespace = function_namespace(call.backend)
    name = call.params["name"]
    exec(compile(call.params["source"], f"<hook {name}>", "exec"), namespace)
    fn = namespace.get(name)
    if not callable(fn):
        raise NodeInputError(f"the code does not define a function named {name!r}")
    return fn


def _hook_run(call: RunCall) -> dict[str, Any]:
    fn = _hook_function(call)
    tensor = call.tensor("tensor")
    on, name = call.params["on"], call.params["name"]
    where = tensor.grad_fn  # the node it fires at, as registered (None: a leaf's)
    if on.startswith("grad_fn") and where is None:
        raise NodeInputError(f"the tensor has no grad_fn to hook (on={on!r})")
    site = "AccumulateGrad" if where is None else str(where.name())
    site = site.removeprefix("torch::autograd::")

    def fired(*args: Any) -> Any:
        result = fn(*args)
        if HOOK_LOG:
            HOOK_LOG[-1](name, site, _shown(result))
        return result

    fired.__name__ = getattr(fn, "__name__", name)  # PyTorch's errors name the hook
    if on == "tensor":
        tensor.register_hook(fired)
    elif on == "post_accumulate_grad":
        tensor.register_post_accumulate_grad_hook(fired)
    elif on == "grad_fn":
        where.register_hook(fired)
    else:
        where.register_prehook(fired)
    return {}


def _shown(result: Any) -> str:
    """What a hook returned, on one line (a matrix's repr spans several)."""
    return "None" if result is None else " ".join(repr(result).split())


def _hook_code(c: CodeCall) -> str:
    return HOOK_TARGETS[c.params["on"]].format(t=c.inputs["tensor"], h=c.params["name"])


INDEX_PORT = PortSpec(
    "index",
    optional=True,
    variadic=True,
    doc=f"tensor indices (a bool mask or an integer tensor): one per `{PLACEHOLDER}` in the key",
)
KEY_PARAM = ParamSpec(
    "key",
    "index",
    "0",
    doc="what goes between the brackets: 0, -1, :, 1, 1:3, None, ..., 0; "
    f"`{PLACEHOLDER}` stands for a tensor connected to the {PLACEHOLDER!r} input",
)


def _index_key(params: Mapping[str, Any], count: int) -> IndexKey:
    """The node's parsed key, checked against the number of connected tensor indices."""
    try:
        key = parse_key(params["key"])
    except ValueError as exc:
        raise NodeInputError(str(exc)) from None
    if key.placeholders != count:
        raise NodeInputError(key.count_message(count))
    return key


def _getitem_run(call: RunCall) -> dict[str, Any]:
    x = call.tensor("input")
    tensors = list(call.inputs.get("index") or [])
    return {"out": x[_index_key(call.params, len(tensors)).value(tensors)]}


def _key_code(c: CodeCall) -> str:
    tensors = list(c.inputs.get("index") or [])
    return _index_key(c.params, len(tensors)).text(tensors)


def _setitem_value(inputs: Mapping[str, Any], params: Mapping[str, Any]) -> Any:
    value = inputs.get("value")
    if value is None:
        value = params.get("value")
    if value is None:
        raise NodeInputError("input 'value' is not connected (or give a number)")
    return value


def _setitem_run(call: RunCall) -> dict[str, Any]:
    x = call.tensor("input")
    tensors = list(call.inputs.get("index") or [])
    key = _index_key(call.params, len(tensors)).value(tensors)
    x[key] = number_python(_setitem_value(call.inputs, call.params))
    return {"out": x}


def _setitem_code(c: CodeCall) -> str:
    value = _setitem_value(c.inputs, c.params)
    text = value if c.inputs.get("value") is not None else _scalar_source(value)
    return f"{c.inputs['input']}[{_key_code(c)}] = {text}"


def _hand_types() -> list[NodeType]:
    types = [
        NodeType(
            id="torch.Tensor",
            title="Tensor (legacy)",
            category="creation",
            kind=NodeKind.SOURCE,
            inputs=(),
            outputs=(TENSOR_OUT,),
            params=(
                ParamSpec("cls", "str", "Tensor", choices=LEGACY_CLASSES),
                ParamSpec("data", "optional_data", None, doc="data, or leave empty and give sizes"),
                ParamSpec("sizes", "optional_shape", [3], doc="uninitialised memory of this shape"),
                NO_GRAD,
            ),
            run=_legacy_run,
            code=_legacy_code,
            doc="The legacy constructor: torch.Tensor(2, 3) is uninitialised, "
            "torch.Tensor([1, 2]) copies data.",
            functions=tuple(f"torch.{c}" for c in LEGACY_CLASSES),
        ),
        _method(
            "Tensor.detach", "detach", "detach", "A new tensor sharing storage, cut from the graph."
        ),
        _attribute(
            "Tensor.data", "data", "The same storage without autograd history (legacy .data)."
        ),
        _attribute("Tensor.grad", "grad", "Read .grad as a tensor (None before backward)."),
        _attribute(
            "Tensor.T",
            "T",
            "The dimensions reversed (PermuteBackward0); for a matrix, its transpose.",
            category="shape",
        ),
        _attribute(
            "Tensor.mT",
            "mT",
            "The last two dimensions swapped (TransposeBackward0): a batch of matrices transposed.",
            category="shape",
        ),
        NodeType(
            id="Tensor.__getitem__",
            title="index",
            category="indexing",
            kind=NodeKind.OP,
            inputs=(TENSOR_IN, INDEX_PORT),
            outputs=(TENSOR_OUT,),
            params=(KEY_PARAM, NO_GRAD),
            run=_getitem_run,
            code=lambda c: f"{c.inputs['input']}[{_key_code(c)}]",
            doc="x[key]: select (x[0]), slice (x[:, 1:3]), add dims (x[None]) or gather with "
            "a tensor index (x[mask]) — PyTorch picks SelectBackward0, SliceBackward0, "
            "IndexBackward0, ...",
        ),
        NodeType(
            id="Tensor.requires_grad_",
            title="requires_grad_",
            category="tensor",
            kind=NodeKind.TENSOR_ACTION,
            inputs=(TENSOR_IN,),
            outputs=(TENSOR_OUT,),
            params=(
                ParamSpec("requires_grad", "bool", True),
                ParamSpec("form", "str", "method", choices=("method", "attribute")),
                NO_GRAD,
            ),
            run=_requires_grad_run,
            code=_requires_grad_code,
            doc="Start (or stop) recording operations on a leaf: x.requires_grad_() "
            "or x.requires_grad = True.",
            effect=Effect.GRADS,
            methods=("requires_grad_",),
        ),
        _method(
            "Tensor.retain_grad",
            "retain_grad",
            "retain_grad",
            "Keep .grad of a non-leaf after backward.",
            outputs=(),
            effect=Effect.GRADS,
        ),
        NodeType(
            id="Tensor.to",
            title="to(device / dtype)",
            category="tensor",
            kind=NodeKind.TENSOR_ACTION,
            inputs=(TENSOR_IN,),
            outputs=(TENSOR_OUT,),
            params=(
                ParamSpec(
                    "device",
                    "device",
                    "default",
                    choices=("keep", "default", "cpu", "cuda"),
                    doc="'default' is the document's device; 'keep' changes only the dtype",
                ),
                ParamSpec("dtype", "dtype", None),
                NO_GRAD,
            ),
            run=_to_run,
            code=_to_code,
            doc="Copy to a device or dtype (ToCopyBackward0); "
            "returns the tensor itself if nothing changes.",
            methods=("to", "cuda", "cpu", "double", "float", "half", "long", "int"),
        ),
    ]
    inplace = [("detach_", "Detach this tensor itself from the graph.", (), ())]
    for name, doc, extra, params in inplace:
        types.append(
            _method(
                f"Tensor.{name}",
                name,
                name,
                doc,
                kind=NodeKind.INPLACE,
                extra_inputs=extra,
                params=params,
                effect=Effect.GLOBAL,
                category="in-place",
            )
        )
    types += [
        NodeType(
            id="Tensor.__setitem__",
            title="assign at index",
            category="in-place",
            kind=NodeKind.INPLACE,
            inputs=(
                TENSOR_IN,
                PortSpec("value", scalar_ok=True, doc="the tensor (or number) written"),
                INDEX_PORT,
            ),
            outputs=(TENSOR_OUT,),
            params=(
                ParamSpec("value", "optional_number", None, doc="a number written at the key"),
                KEY_PARAM,
                NO_GRAD,
            ),
            run=_setitem_run,
            code=_setitem_code,
            doc="x[key] = value, in place: CopySlices for plain keys, IndexPutBackward0 "
            "for tensor indices.",
            effect=Effect.GLOBAL,
        ),
        NodeType(
            id="Tensor.backward",
            title="backward",
            category="autograd",
            kind=NodeKind.ACTION,
            inputs=(TENSOR_IN, PortSpec("gradient", optional=True)),
            outputs=(),
            params=(
                ParamSpec(
                    "retain_graph", "optional_bool", None, doc="default: same as create_graph"
                ),
                ParamSpec("create_graph", "bool", False),
            ),
            run=_backward_run,
            code=_backward_code,
            doc="Run backward from this tensor: leaves (and retained non-leaves) get .grad.",
            effect=Effect.GRADS,
            aliases=("action.backward",),
            methods=("backward",),
        ),
        NodeType(
            id="torch.autograd.backward",
            title="autograd.backward",
            category="autograd",
            kind=NodeKind.ACTION,
            inputs=(
                PortSpec("tensors", variadic=True),
                PortSpec("grad_tensors", variadic=True, optional=True),
            ),
            outputs=(),
            params=(
                ParamSpec("retain_graph", "optional_bool", None),
                ParamSpec("create_graph", "bool", False),
            ),
            run=_autograd_backward_run,
            code=_autograd_backward_code,
            doc="Backward from several tensors at once: their gradients add up in .grad.",
            effect=Effect.GRADS,
            functions=("torch.autograd.backward",),
        ),
        NodeType(
            id="torch.autograd.grad",
            title="autograd.grad",
            category="autograd",
            kind=NodeKind.ACTION,
            inputs=(
                PortSpec("outputs", variadic=True),
                PortSpec("inputs", variadic=True),
                PortSpec("grad_outputs", variadic=True, optional=True),
            ),
            outputs=(PortSpec("grads", PortType.TENSORS),),
            params=(
                ParamSpec("retain_graph", "optional_bool", None),
                ParamSpec("create_graph", "bool", False),
                ParamSpec("allow_unused", "bool", False),
            ),
            run=_grad_run,
            code=_grad_code,
            doc="Gradients of outputs w.r.t. inputs, returned (not stored in .grad).",
            effect=Effect.GRADS,
            aliases=("action.grad",),
            functions=("torch.autograd.grad",),
        ),
        NodeType(
            id="gradstudio.select",
            title="list item",
            category="autograd",
            kind=NodeKind.TENSOR_ACTION,
            inputs=(PortSpec("list", PortType.TENSORS),),
            outputs=(TENSOR_OUT,),
            params=(ParamSpec("index", "int", 0),),
            run=_select_run,
            code=lambda c: f"{c.inputs['list']}[{c.params['index']}]",
            doc="One tensor of a list, e.g. one gradient returned by autograd.grad.",
        ),
        NodeType(
            id="gradstudio.zero_grad",
            title="zero grads",
            category="autograd",
            kind=NodeKind.ACTION,
            inputs=(PortSpec("tensors", variadic=True),),
            outputs=(),
            params=(
                ParamSpec(
                    "set_to_none",
                    "bool",
                    True,
                    doc="x.grad = None (True) or x.grad.zero_() (False)",
                ),
            ),
            run=_zero_grad_run,
            code=_zero_grad_code,
            doc="Clear accumulated gradients before the next backward.",
            effect=Effect.GRADS,
            aliases=("action.zero_grad",),
        ),
        NodeType(
            id="gradstudio.set_grad",
            title="set grad",
            category="autograd",
            kind=NodeKind.ACTION,
            inputs=(TENSOR_IN, PortSpec("grad", doc="the gradient it holds from now on")),
            outputs=(),
            params=(),
            run=_set_grad_run,
            code=_set_grad_code,
            doc="x.grad = g: the next backward adds to g. A folded loop card sets the "
            "gradients its iterations left behind this way.",
            effect=Effect.GRADS,
        ),
        NodeType(
            id="gradstudio.hook",
            title="hook",
            category="autograd",
            kind=NodeKind.CUSTOM_FUNCTION,
            inputs=(PortSpec("tensor", doc="the tensor hooked (or whose grad_fn is)"),),
            outputs=(),
            params=(
                ParamSpec("on", "str", "tensor", choices=tuple(HOOK_TARGETS)),
                ParamSpec("name", "identifier", "hook"),
                ParamSpec("source", "code", HOOK_TEMPLATE, doc="the hook's def (or lambda)"),
            ),
            run=_hook_run,
            code=_hook_code,
            doc="Your function called during backward (register_hook and kin); runs only "
            "in trusted documents.",
            effect=Effect.NEW,
        ),
        NodeType(
            id="torch.autograd.Function",
            title="custom Function",
            category="autograd",
            kind=NodeKind.CUSTOM_FUNCTION,
            inputs=function_ports({"args": FUNCTION_ARGS}),
            outputs=(TENSOR_OUT,),
            params=(
                ParamSpec("class_name", "identifier", "Func"),
                ParamSpec("source", "code", FUNCTION_TEMPLATE, doc="the class definition"),
                ParamSpec(
                    "args",
                    "args",
                    FUNCTION_ARGS,
                    doc="the arguments of apply, one per parameter of forward: a name is "
                    "the tensor wired to its port, name=literal a value (x, y, z=4)",
                ),
                ParamSpec(
                    "outputs",
                    "output_count",
                    1,
                    doc="how many tensors forward returns: one output port each (out, or "
                    "out0, out1, ... for a tuple); backward takes one gradient per output",
                ),
                NO_GRAD,
            ),
            ports=function_ports,
            output_ports=function_outputs,
            run=_function_run,
            code=_function_code,
            doc="Your own forward/backward (class X(Function)); runs only in trusted documents.",
            effect=Effect.GLOBAL,
            aliases=("autograd.Function",),
        ),
    ]
    return types


# ------------------------------------------------------------------------ the catalogue


class Catalogue:
    """All node types, by id; ids of renamed types keep resolving through aliases."""

    def __init__(self, types: Iterable[NodeType], aliases: Mapping[str, str] | None = None):
        self._types: dict[str, NodeType] = {}
        for t in types:
            if t.id in self._types:
                raise ValueError(f"node type {t.id} declared twice")
            self._types[t.id] = t
        self._aliases: dict[str, str] = {}
        for t in self._types.values():
            for alias in t.aliases:
                self._aliases[alias] = t.id
        self._aliases.update(aliases or {})
        self._functions: dict[str, NodeType] = {}
        self._methods: dict[str, NodeType] = {}
        self._attributes: dict[str, NodeType] = {}
        for t in self._types.values():
            for f in t.functions:
                self._functions.setdefault(f, t)
            for m in t.methods:
                self._methods.setdefault(m, t)
            for a in t.attributes:
                self._attributes.setdefault(a, t)

    def types(self) -> list[NodeType]:
        return list(self._types.values())

    def categories(self) -> list[str]:
        return list(dict.fromkeys(t.category for t in self._types.values()))

    def resolve(self, type_id: str) -> str:
        if type_id in self._types:
            return type_id
        if type_id in self._aliases:
            return self._aliases[type_id]
        raise KeyError(f"unknown node type {type_id!r}")

    def get(self, type_id: str) -> NodeType:
        return self._types[self.resolve(type_id)]

    def __contains__(self, type_id: object) -> bool:
        return isinstance(type_id, str) and (type_id in self._types or type_id in self._aliases)

    def by_function(self, qualname: str) -> NodeType | None:
        """The type for a call such as ``torch.add`` or ``torch.nn.functional.linear``."""
        return self._functions.get(qualname)

    def by_method(self, name: str) -> NodeType | None:
        """The type for a tensor method call ``x.<name>(...)``."""
        return self._methods.get(name)

    def by_attribute(self, name: str) -> NodeType | None:
        """The type for reading a tensor attribute ``x.<name>`` (``x.T``, ``x.grad``)."""
        return self._attributes.get(name)


#: Renamed node types: an old id keeps loading as the new one.
TYPE_ALIASES: dict[str, str] = {
    "source.tensor": "torch.tensor",
    "tensor.detach": "Tensor.detach",
    "tensor.clone": "torch.clone",
    "Tensor.clone": "torch.clone",
    "torch.repeat": "torch.Tensor.repeat",  # PyTorch has only the method
}


def build_catalogue(signatures: Iterable[Any]) -> Catalogue:
    """One op type per engine signature, then the hand-declared types; sources first."""
    types = [*(_derived(sig) for sig in signatures), *_hand_types()]
    first = [t for t in types if t.kind is NodeKind.SOURCE]
    return Catalogue(first + [t for t in types if t.kind is not NodeKind.SOURCE], TYPE_ALIASES)


@functools.cache
def catalogue() -> Catalogue:
    """The catalogue of the installed engine (built once)."""

    return build_catalogue(functions())
