"""A custom Function node's arguments: one per parameter of its ``forward``, each a port.

The ``args`` parameter lists what ``apply`` receives, in order, each entry named for
the ``forward`` parameter it fills:

- ``{"name": "x"}``: the tensor wired to port ``x``;
- ``{"name": "z", "value": 4}``: 4, unless a tensor is wired to port ``z``;
- ``{"name": "xs", "variadic": true}``: every tensor wired to ``xs``, spread
  (``def forward(ctx, *xs)``).

The node's ports are read from this list, so a document loads the same whether or not
its code parses; the list follows the class's ``forward`` (read with ``ast``, never
run) whenever the code changes.  Shown and typed as ``x, y, z=4, *xs``.
"""

from __future__ import annotations

import ast
import keyword
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from engine.param_kinds import check_data, data_python, data_source

Args = list[dict[str, Any]]
#: A ``forward`` parameter without a default (or whose default is not data).
NO_DEFAULT: Any = type("NoDefault", (), {"__repr__": lambda self: "NO_DEFAULT"})()


def _name(value: Any) -> str:
    if not isinstance(value, str) or not value.isidentifier() or keyword.iskeyword(value):
        raise ValueError(f"an argument's name is a Python name, got {value!r}")
    return value


def check_args(value: Any) -> Args:
    """The normalised argument list, or ``ValueError`` saying what is wrong."""
    if not isinstance(value, list | tuple):
        raise ValueError("expected a list of arguments")
    out: Args = []
    for item in value:
        if (
            not isinstance(item, dict)
            or "name" not in item
            or set(item) - {"name", "value", "variadic"}
        ):
            raise ValueError(
                "an argument is {'name': n}, {'name': n, 'value': literal} or "
                f"{{'name': n, 'variadic': True}}, got {item!r}"
            )
        entry: dict[str, Any] = {"name": _name(item["name"])}
        if item.get("variadic") is not None:
            if item["variadic"] is not True or "value" in item:
                raise ValueError(f"'variadic' is true and takes no value, got {item!r}")
            entry["variadic"] = True
        elif "value" in item:
            entry["value"] = None if item["value"] is None else check_data(item["value"])
        out.append(entry)
    names = [a["name"] for a in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"argument {twice[0]!r} is named twice")
    if sum("variadic" in a for a in out) > 1:
        raise ValueError("at most one argument is variadic (*args)")
    return out


def args_text(args: Sequence[Mapping[str, Any]]) -> str:
    """``x, y, z=4, *xs``: the arguments as a learner reads (and types) them."""
    parts = []
    for a in args:
        if a.get("variadic"):
            parts.append(f"*{a['name']}")
        elif "value" in a:
            parts.append(f"{a['name']}={data_source(a['value'])}")
        else:
            parts.append(a["name"])
    return ", ".join(parts)


def _split(text: str) -> list[str]:
    """Top-level comma-separated parts (a value's own lists keep their commas)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_args_text(text: str) -> Args:
    """What a learner typed (``x, y, z=4, *xs``) as an argument list; ``ValueError``
    names the part that is not a name, ``*name`` or ``name=literal``."""
    out: list[dict[str, Any]] = []
    for part in _split(text):
        if part.startswith("*"):
            out.append({"name": part[1:].strip(), "variadic": True})
            continue
        name, eq, literal = part.partition("=")
        entry: dict[str, Any] = {"name": name.strip()}
        if eq:
            try:
                value = ast.literal_eval(literal.strip())
            except (ValueError, SyntaxError):
                if literal.strip() not in ("inf", "-inf", "nan"):
                    raise ValueError(f"{literal.strip()!r} is not a Python literal") from None
                value = literal.strip()
            entry["value"] = list(value) if isinstance(value, tuple) else value
        out.append(entry)
    return check_args(out)


class Parameter(NamedTuple):
    """One parameter of ``forward`` that ``apply`` fills."""

    name: str
    variadic: bool = False
    #: its default when that is a literal (``scale=2.0``): the argument starts as it
    default: Any = NO_DEFAULT


def forward_parameters(source: str, class_name: str) -> list[Parameter] | None:
    """The parameters ``class_name.apply`` passes to ``forward``, read from the code
    without running it; None where it cannot be read (the code does not parse, has no
    such class or no ``forward``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            methods = {
                m.name: m
                for m in node.body
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
            }
            forward = methods.get("forward")
            if forward is None:
                return None
            params = [*forward.args.posonlyargs, *forward.args.args]
            defaults = [NO_DEFAULT] * (len(params) - len(forward.args.defaults)) + [
                _literal(d) for d in forward.args.defaults
            ]
            out = [Parameter(p.arg, False, d) for p, d in zip(params, defaults, strict=True)]
            # forward(ctx, ...) unless setup_context takes the ctx (PyTorch 2's style)
            out = out if "setup_context" in methods else out[1:]
            if forward.args.vararg is not None:
                out.append(Parameter(forward.args.vararg.arg, True))
            return out
    return None


def forward_returns(source: str, class_name: str) -> int | None:
    """How many tensors ``class_name.forward`` returns, read from its ``return``
    statements: n where every one returns a tuple of n (n > 1), 1 where none returns a
    tuple; None where the code cannot be read or its returns disagree."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            forward = next(
                (m for m in node.body if isinstance(m, ast.FunctionDef) and m.name == "forward"),
                None,
            )
            if forward is None:
                return None
            counts = {
                len(r.value.elts) if isinstance(r.value, ast.Tuple) else 1
                for r in ast.walk(forward)
                if isinstance(r, ast.Return) and r.value is not None
            }
            return counts.pop() if len(counts) == 1 else None
    return None


def _literal(node: ast.expr) -> Any:
    """A default that is data (a number, a bool, a list of them, None), else none."""
    try:
        value = ast.literal_eval(node)
        return (
            None
            if value is None
            else check_data(list(value) if isinstance(value, tuple) else value)
        )
    except (ValueError, SyntaxError, TypeError, RecursionError):
        return NO_DEFAULT


def _entry(p: Parameter, before: Mapping[str, Any] | None = None) -> dict[str, Any]:
    if p.variadic:
        return {"name": p.name, "variadic": True}
    if before is not None and "value" in before:
        return {"name": p.name, "value": before["value"]}
    if p.default is not NO_DEFAULT:
        return {"name": p.name, "value": p.default}
    return {"name": p.name}


def args_for_forward(args: Sequence[Mapping[str, Any]], source: str, class_name: str) -> Args:
    """The argument list for the code's ``forward``: a value set for a parameter that is
    still there is kept, a literal default starts as the value; where the code cannot be
    read, ``args`` stays as it is."""
    params = forward_parameters(source, class_name)
    if params is None:
        return [dict(a) for a in args]
    before = {a["name"]: a for a in args}
    return [_entry(p, before.get(p.name)) for p in params]


def _filled(
    args: Sequence[Mapping[str, Any]],
    inputs: Mapping[str, Any],
    unwired: Callable[[Mapping[str, Any]], Any],
) -> list[Any]:
    """Each argument's wired input (a variadic one's several), else ``unwired(argument)``."""
    out: list[Any] = []
    for a in args:
        value = inputs.get(a["name"])
        if a.get("variadic"):
            out.extend(value or [])
        elif value is not None:
            out.append(value)
        else:
            out.append(unwired(a))
    return out


def _value(argument: Mapping[str, Any]) -> Any:
    if "value" not in argument:
        raise LookupError(f"argument {argument['name']!r} is not connected")
    return data_python(argument["value"])


def apply_arguments(args: Sequence[Mapping[str, Any]], inputs: Mapping[str, Any]) -> list[Any]:
    """What ``apply`` receives: each port's tensor, else the argument's value.  A missing
    tensor is ``LookupError`` naming it."""
    return _filled(args, inputs, _value)


def apply_sources(args: Sequence[Mapping[str, Any]], inputs: Mapping[str, Any]) -> list[str]:
    """The same arguments as PyTorch source: wired expressions, else literal values."""
    return _filled(args, inputs, lambda a: data_source(a.get("value")))


def named_arguments(
    old: Sequence[Mapping[str, Any]], connected: int, source: str, class_name: str
) -> tuple[Args, list[list[tuple[str, int]]]]:
    """Positional arguments in the named form, and where each of ``connected`` tensors
    goes: the ``(port, slot)`` of each argument it fills (none for a tensor no argument
    uses, two where it is passed twice).

    ``old`` is what version 3 of the file format held, and what an importer sees in a
    call: ``{"input": k}`` (the k-th tensor) or ``{"value": v}``, or an empty list for
    "the tensors, in order".  Names come from ``forward`` where the code can be read,
    ``input0``, ``input1``... otherwise; tensors past ``forward``'s named parameters
    fill its ``*args``."""
    template = list(old) or [{"input": k} for k in range(connected)]
    params = forward_parameters(source, class_name) or []
    named = [p.name for p in params if not p.variadic]
    star = next((p.name for p in params if p.variadic), None)
    taken = {p.name for p in params}
    args: Args = []
    where: dict[int, list[tuple[str, int]]] = {}
    spread = 0
    for i, item in enumerate(template):
        if i < len(named):
            name = named[i]
        elif star is not None and "input" in item:
            if not any(a["name"] == star for a in args):
                args.append({"name": star, "variadic": True})
            where.setdefault(item["input"], []).append((star, spread))
            spread += 1
            continue
        else:
            k = i
            while f"input{k}" in taken:
                k += 1
            name = f"input{k}"
            taken.add(name)
        if "input" in item:
            args.append({"name": name})
            where.setdefault(item["input"], []).append((name, 0))
        else:
            args.append({"name": name, "value": item.get("value")})
    return args, [where.get(k, []) for k in range(connected)]
