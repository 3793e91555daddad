"""The engine's table of user-facing functions.

Every public function (``engine.add``, ``engine.nn.functional.linear``, ...) is
declared once, next to its implementation, with the ``public`` decorator.  The
declaration says what a tool needs to offer the function without knowing it:
its tensor inputs, its scalar parameters with kinds and defaults, its outputs,
a category and a one-line doc.  GradStudio's palette, file format, evaluator
and PyTorch exporter read this table instead of keeping lists of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class _Required:
    """Marker for a parameter without a default."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()

#: Kinds a scalar parameter may have; a tool chooses an editor from the kind.
PARAM_KINDS = frozenset(
    {
        "number",  # int or float
        "int",
        "float",
        "bool",
        "dim",  # one dimension index (int, may be negative)
        "dims",  # None, an int, or a tuple of ints
        "shape",  # tuple of ints (-1 allowed where PyTorch allows it)
        "data",  # a number or nested lists of numbers (``tensor``'s literal)
        "dtype",  # an engine dtype or None
        "str",  # a fixed choice, see Param.choices
        "optional_number",  # a number or None
    }
)


@dataclass(frozen=True)
class Port:
    """A tensor input of a public function."""

    name: str
    optional: bool = False  # may be left unconnected (``bias`` of ``linear``)
    scalar_ok: bool = False  # a Python number may stand in for the tensor
    variadic: bool = False  # a list of tensors (``cat``, ``stack``)


@dataclass(frozen=True)
class Param:
    """A non-tensor argument of a public function."""

    name: str
    kind: str
    default: Any = REQUIRED
    choices: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass(frozen=True)
class Signature:
    """How one public function is called, and what it returns."""

    name: str
    namespace: str  # "torch" or "torch.nn.functional"
    inputs: tuple[Port, ...]
    params: tuple[Param, ...] = ()
    outputs: tuple[str, ...] = ("out",)
    category: str = "math"
    doc: str = ""
    method: bool = True  # also available as ``tensor.<name>(...)``
    differentiable: bool = True
    fn: Callable[..., Any] | None = field(default=None, compare=False, repr=False)

    @property
    def qualname(self) -> str:
        return f"{self.namespace}.{self.name}"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        assert self.fn is not None
        return self.fn(*args, **kwargs)


#: Namespaces: ``torch`` and ``torch.nn.functional`` are functions (``method``
#: says whether ``tensor.<name>`` exists too); ``torch.Tensor`` is method-only.

#: Every public function, keyed by qualified name (``torch.add``).
FUNCTIONS: dict[str, Signature] = {}


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
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated callable as the public function ``namespace.name``."""

    ports = tuple(p if isinstance(p, Port) else Port(p) for p in inputs)
    for p in params:
        if p.kind not in PARAM_KINDS:
            raise ValueError(f"unknown parameter kind {p.kind!r} for {name}")

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        sig = Signature(
            name, namespace, ports, params, outputs, category, doc, method, differentiable, fn
        )
        FUNCTIONS[sig.qualname] = sig
        return fn

    return register


def functions(category: str | None = None) -> list[Signature]:
    """All public functions (optionally of one category), in declaration order."""
    import engine  # noqa: F401  (importing the package fills the table)

    return [s for s in FUNCTIONS.values() if category is None or s.category == category]
