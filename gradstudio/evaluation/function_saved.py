"""What a custom Function's ``forward`` saves for backward, named by the learner's labels.

The engine keeps ``ctx.saved_tensors`` inside the node, so the Explain view reads the
Function's source instead (parsed, never run): the arguments of its
``ctx.save_for_backward(...)`` call, each traced to a forward parameter (so to the
document input wired there) or to the value forward returns.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SavedName:
    name: str  # as written in forward: ``x``
    #: What it is in the document: ("input", i) the i-th argument, ("output", 0) the
    #: Function's result, ("inside", 0) a value made inside forward.
    origin: tuple[str, int]


def _method(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


def saved_for_backward(source: str) -> tuple[SavedName, ...]:
    """The names ``forward`` passes to ``ctx.save_for_backward`` (empty: none, or the
    source does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    forward = _method(tree, "forward")
    if forward is None:
        return ()
    params = [a.arg for a in forward.args.args][1:]  # after ctx
    returned = {
        n.value.id
        for n in ast.walk(forward)
        if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)
    }
    out: list[SavedName] = []
    for call in ast.walk(forward):
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "save_for_backward"
        ):
            continue
        for arg in call.args:
            text = ast.unparse(arg)
            if isinstance(arg, ast.Name) and arg.id in params:
                out.append(SavedName(text, ("input", params.index(arg.id))))
            elif isinstance(arg, ast.Name) and arg.id in returned:
                out.append(SavedName(text, ("output", 0)))
            else:
                out.append(SavedName(text, ("inside", 0)))
    return tuple(out)


def argument_sources(
    args: Sequence[Mapping[str, Any]], wired: Mapping[str, Sequence[tuple[str, str]]]
) -> list[tuple[str, str] | Any]:
    """Each argument ``apply`` passes to forward: the ``(node, port)`` wired to its port
    (each one, spread, for ``*args``), or its literal value."""
    out: list[tuple[str, str] | Any] = []
    for arg in args:
        sources = [tuple(w) for w in wired.get(arg["name"], ())]
        if arg.get("variadic"):
            out.extend(sources)
        elif sources:
            out.append(sources[0])
        else:
            out.append(arg.get("value"))
    return out
