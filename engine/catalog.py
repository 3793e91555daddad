"""The engine's table of user-facing functions.

Every public function (``engine.add``, ``engine.nn.functional.linear``, ...) is
declared once, next to its implementation, with the ``public`` decorator.  The
declaration says what a tool needs to offer the function without knowing it:
its tensor inputs, the kinds of its scalar parameters, its outputs, a category,
a one-line doc and whether PyTorch has an in-place variant (``add_``).  Defaults
and how each argument is passed are read once, at registration, from the
function's own Python signature, so ``alpha=1`` is written in one place.
GradStudio's palette, file format, evaluator, importer and PyTorch exporter read
this table instead of keeping lists of their own.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from engine.amp import autocast_wrapped
from engine.ops.core import apply_inplace, apply_op
from engine.param_kinds import PARAM_KINDS


class _Required:
    """Marker for a parameter without a default."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Port:
    """A tensor input of a public function."""

    name: str
    optional: bool = False  # may be left unconnected (``bias`` of ``linear``)
    scalar_ok: bool = False  # a Python number may stand in for the tensor
    variadic: bool = False  # a list of tensors (``cat``, ``stack``)
    #: Read from the Python signature: the position when passed positionally (None:
    #: keyword-only).
    position: int | None = None
    varargs: bool = False  # ``*operands``: the tensors are spread as positional arguments
    default: Any = None  # REQUIRED where Python requires it (None is then passed explicitly)


@dataclass(frozen=True)
class Param:
    """A non-tensor argument of a public function.

    A declaration names it and gives its kind; ``initial`` is only for a value the
    studio starts a new node with where the Python signature has no default (or a
    different one, as ``softmax``'s ``dim``).  The rest is read from the signature.
    """

    name: str
    kind: str
    initial: Any = REQUIRED
    choices: tuple[str, ...] = ()
    #: Old spellings the function still takes for a choice, as (old, current) pairs: a
    #: document holds the current one (``reduction='elementwise_mean'`` is ``'mean'``).
    aliases: tuple[tuple[str, str], ...] = ()
    #: A tool always passes it, whatever the Python default (``softmax``'s ``dim``).
    always: bool = False
    #: Read from the Python signature at registration.
    default: Any = REQUIRED
    position: int | None = None  # None: keyword-only
    varargs: bool = False  # ``*size``: the values are spread as positional arguments

    @property
    def required(self) -> bool:
        return self.always or self.default is REQUIRED


@dataclass(frozen=True)
class Example:
    """Sample inputs of a public function, for the test that proves its declaration
    serves every tool: a shape per tensor input (a list of shapes for a variadic one;
    ``(2, 3)`` where not given), what an input holds where it is not a float tensor
    requiring grad (``values``: "index" small ints, "mask" bools, "probability" in
    (0, 1), "constant" floats and "positive" floats > 0 without grad), and parameter
    values as a document stores them (lists for shapes, dtype names).
    ``deterministic=False``: the values are not reproducible (``empty_like``)."""

    inputs: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    values: dict[str, str] = field(default_factory=dict)
    deterministic: bool = True

    def shapes(self, port: str, variadic: bool) -> list[tuple[int, ...]]:
        given = self.inputs.get(port)
        if variadic:
            return [tuple(s) for s in (given or [(2, 3), (2, 3)])]
        return [tuple((2, 3) if given is None else given)]


@dataclass(frozen=True)
class Signature:
    """How one public function is called, and what it returns."""

    name: str
    namespace: str  # "torch", "torch.nn.functional" or (method-only) "torch.Tensor"
    inputs: tuple[Port, ...]
    params: tuple[Param, ...] = ()
    outputs: tuple[str, ...] = ("out",)
    category: str = "math"
    doc: str = ""
    method: bool = True  # also available as ``tensor.<name>(...)``
    differentiable: bool = True
    #: Writes its result into its first input and returns it (``add_``, ``zero_``).
    mutates: bool = False
    #: The name of the generated in-place variant (``add_``), if PyTorch has one.
    inplace: str | None = None
    #: Takes an undeclared ``device=`` keyword (creation functions).
    takes_device: bool = False
    #: Returns a tuple of tensors whose length depends on the arguments (``split``,
    #: ``chunk``, ``unbind``): its one output is a list, taken apart item by item.
    returns_list: bool = False
    example: Example = field(default_factory=Example, compare=False, repr=False)
    fn: Callable[..., Any] | None = field(default=None, compare=False, repr=False)
    #: Other names PyTorch gives the very same function (``clip`` for ``clamp``): in
    #: the namespace, and as methods where the function is one.
    aliases: tuple[str, ...] = ()
    #: (output, bool parameter): an output returned only when its flag is true
    #: (``unique``'s ``counts`` with ``return_counts=True``).
    output_flags: tuple[tuple[str, str], ...] = ()

    @property
    def qualname(self) -> str:
        return f"{self.namespace}.{self.name}"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        assert self.fn is not None
        return self.fn(*args, **kwargs)


#: Every public function, keyed by qualified name (``torch.add``, ``torch.Tensor.add_``).
FUNCTIONS: dict[str, Signature] = {}


def _bind(
    name: str, fn: Callable[..., Any], ports: tuple[Port, ...], params: tuple[Param, ...]
) -> tuple[tuple[Port, ...], tuple[Param, ...], bool]:
    """Ports and params completed from ``fn``'s Python signature (read once, here)."""
    parameters = inspect.signature(fn).parameters
    order = list(parameters)
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)

    def where(arg: str) -> inspect.Parameter:
        if arg not in parameters:
            raise ValueError(
                f"{name}: {arg!r} is declared but {fn.__name__}() has no such argument"
            )
        return parameters[arg]

    bound_ports = []
    for port in ports:
        p = where(port.name)
        varargs = p.kind is inspect.Parameter.VAR_POSITIONAL
        position = order.index(port.name) if p.kind in positional or varargs else None
        default = REQUIRED if varargs or p.default is inspect.Parameter.empty else p.default
        bound_ports.append(replace(port, position=position, varargs=varargs, default=default))
    bound_params = []
    for param in params:
        p = where(param.name)
        varargs = p.kind is inspect.Parameter.VAR_POSITIONAL
        default = REQUIRED if varargs or p.default is inspect.Parameter.empty else p.default
        if param.initial is not REQUIRED and default is not REQUIRED and param.initial == default:
            raise ValueError(
                f"{name}: {param.name}={default!r} is already the Python default; "
                "drop it from the declaration"
            )
        position = order.index(param.name) if p.kind in positional or varargs else None
        bound_params.append(replace(param, default=default, position=position, varargs=varargs))
    declared = {p.name for p in ports} | {p.name for p in params}
    takes_device = "device" in parameters and "device" not in declared
    return tuple(bound_ports), tuple(bound_params), takes_device


def public(
    name: str,
    inputs: tuple[Port | str, ...],
    params: tuple[Param, ...] = (),
    *,
    namespace: str = "torch",
    outputs: tuple[str, ...] = ("out",),
    category: str = "math",
    doc: str = "",
    method: bool = True,
    differentiable: bool = True,
    inplace: bool = False,
    mutates: bool = False,
    returns_list: bool = False,
    example: Example | None = None,
    aliases: tuple[str, ...] = (),
    output_flags: tuple[tuple[str, str], ...] = (),
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated callable as the public function ``namespace.name``.

    ``inplace=True`` also registers ``torch.Tensor.<name>_``: the same function with
    its one ``apply_op`` call turned into ``apply_inplace`` (see ``inplace_variant``).
    """

    ports = tuple(p if isinstance(p, Port) else Port(p) for p in inputs)
    for p in params:
        if p.kind not in PARAM_KINDS:
            raise ValueError(f"unknown parameter kind {p.kind!r} for {name}")

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        bound_ports, bound_params, takes_device = _bind(name, fn, ports, params)
        # the one place an op on autocast's lists takes its policy (the in-place
        # variant below is built from ``fn`` itself: none of them is on a list)
        called = autocast_wrapped(f"{namespace}.{name}", fn)
        sig = Signature(
            name,
            namespace,
            bound_ports,
            bound_params,
            outputs,
            category,
            doc,
            method,
            differentiable,
            mutates,
            f"{name}_" if inplace else None,
            takes_device,
            returns_list,
            example or Example(),
            called,
            aliases,
            output_flags,
        )
        variant = None
        if inplace:
            # an in-place op writes into its first input: that one is never a number
            first, *rest = sig.inputs
            variant = replace(
                sig,
                inputs=(replace(first, scalar_ok=False), *rest),
                name=f"{name}_",
                namespace="torch.Tensor",
                category="in-place",
                doc=f"{doc}, in place",
                method=True,
                mutates=True,
                inplace=None,
                fn=inplace_variant(fn, f"{name}_"),
                aliases=tuple(f"{a}_" for a in aliases),
            )
        FUNCTIONS[sig.qualname] = sig
        if variant is not None:
            FUNCTIONS[variant.qualname] = variant
        return called

    return register


def applying(factory: Callable[[Callable[..., Any]], Callable[..., Any]]) -> Callable[..., Any]:
    """``factory(apply_op)``, whose in-place variant will be ``factory(apply_inplace)``.

    The explicit form of what ``inplace_variant`` does by re-binding a function's
    bytecode: a module compiled by Cython (``engine.compiled_core``) has no bytecode to
    re-bind, so its public functions receive ``apply_op`` as a parameter instead."""

    fn = factory(apply_op)
    fn.__qualname__ = fn.__name__
    fn.with_apply = factory  # type: ignore[attr-defined]
    return fn


def inplace_variant(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` with ``apply_op`` meaning ``apply_inplace``: the same argument handling
    (scalars, defaults, errors) writing into the first input, as PyTorch's ``add_``
    shares ``add``'s.  The function's globals are looked up when it first runs, so
    names defined after it in its module resolve as in the original."""

    factory = getattr(fn, "with_apply", None)
    if factory is None and "apply_op" not in fn.__code__.co_names:
        raise ValueError(f"{name}: {fn.__name__}() must call apply_op to have an in-place variant")
    real: list[Callable[..., Any]] = []

    def build() -> Callable[..., Any]:
        if factory is not None:
            out = factory(apply_inplace)
        else:
            namespace = {**fn.__globals__, "apply_op": apply_inplace}
            out = types.FunctionType(fn.__code__, namespace, name, fn.__defaults__, fn.__closure__)
            out.__kwdefaults__ = fn.__kwdefaults__
        out.__name__ = out.__qualname__ = name
        real.append(out)
        return out

    def first_call(*args: Any, **kwargs: Any) -> Any:
        return (real[0] if real else build())(*args, **kwargs)

    first_call.__name__ = first_call.__qualname__ = name
    first_call.__doc__ = fn.__doc__
    first_call.__wrapped__ = fn  # type: ignore[attr-defined]
    first_call.build = build  # type: ignore[attr-defined]
    return first_call


def resolved(fn: Callable[..., Any]) -> Callable[..., Any]:
    """An in-place variant's final function (built on demand), else ``fn`` itself."""
    build = getattr(fn, "build", None)
    return build() if build is not None else fn


def functions(category: str | None = None) -> list[Signature]:
    """All public functions (optionally of one category), in declaration order: every op
    is declared once ``import engine`` has run, which importing this module (a submodule
    of ``engine``) has already done for any caller outside the engine."""
    return [s for s in FUNCTIONS.values() if category is None or s.category == category]
