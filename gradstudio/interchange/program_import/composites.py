"""Recording the engine's composite layers as the ops they perform (runs in the child).

``nn.MultiheadAttention`` (and the Transformer layers built on it) and the recurrent
layers compute through catalogue functions (``linear``, ``softmax``, ``baddbmm``,
``cat``...) that their engine modules import by name, so the wrappers the recorder puts
on ``torch``, ``torch.nn.functional`` and ``torch.linalg`` never see those calls: the
layer's result came out of nodes the document never held.  Here each such module's own
names for a catalogue function are pointed at the recorded one, so the layer enters the
document as the graph PyTorch builds for it, op by op (a call made inside a recorded op
stays unrecorded, as everywhere).
"""

from __future__ import annotations

import importlib
import inspect
from types import ModuleType
from typing import Any

from engine.catalog import functions

#: Where the recorder wraps the catalogue's functions, by a declaration's namespace.
NAMESPACES = {
    "torch": "engine",
    "torch.nn.functional": "engine.nn.functional",
    "torch.linalg": "engine.linalg",
}
#: Engine modules whose layers compute through catalogue functions imported by name (or
#: taken as a default argument: ``TransformerEncoderLayer(activation=F.relu)``).
COMPOSITE_MODULES = (
    "engine.nn.multi_head_attention",
    "engine.nn.recurrent",
    "engine.nn.modules.transformer",
)


def _declared() -> dict[int, tuple[ModuleType, str]]:
    """Each declared function's own object -> the namespace and name it is wrapped at."""

    found: dict[int, tuple[ModuleType, str]] = {}
    for sig in functions():
        where = NAMESPACES.get(sig.namespace)
        if where is not None and sig.fn is not None:
            found.setdefault(id(sig.fn), (importlib.import_module(where), sig.name))
    return found


def originals() -> dict[int, tuple[ModuleType, str]]:
    """Each function the recorder will wrap, before it does: id -> where it is wrapped
    (the declared function, and the namespace's own object where that differs)."""
    found = _declared()
    for module, name in list(found.values()):
        value = getattr(module, name, None)
        if callable(value):
            found.setdefault(id(value), (module, name))
    return found


def _recorded(value: Any, before: dict[int, tuple[ModuleType, str]], kept: list[Any]) -> Any:
    where = before.get(id(value))
    if where is None:
        return value
    now = getattr(where[0], where[1], value)
    if now is not value:
        kept.append(value)
    return now


def _defaults(fn: Any, before: dict[int, tuple[ModuleType, str]], kept: list[Any]) -> None:
    defaults = getattr(fn, "__defaults__", None)
    if defaults:
        fn.__defaults__ = tuple(_recorded(d, before, kept) for d in defaults)
    keywords = getattr(fn, "__kwdefaults__", None)
    if keywords:
        fn.__kwdefaults__ = {k: _recorded(v, before, kept) for k, v in keywords.items()}


def record_composites(before: dict[int, tuple[ModuleType, str]], kept: list[Any]) -> None:
    """Point the composite modules' names (and their classes' default arguments) at the
    recorded functions (``before`` from ``originals``, taken before the recorder wrapped
    them; ``kept`` holds the replaced functions alive so that their ids stay theirs)."""
    for name in COMPOSITE_MODULES:
        module = importlib.import_module(name)
        for attr, value in list(vars(module).items()):
            if isinstance(value, type) and value.__module__ == name:
                init = value.__dict__.get("__init__")
                _defaults(inspect.unwrap(init) if init is not None else None, before, kept)
                continue
            now = _recorded(value, before, kept)
            if now is not value:
                setattr(module, attr, now)
