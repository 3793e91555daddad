"""Index keys: the ``key`` of an index node (``x[<key>]``) as text, parsed safely.

A key is written in Python subscript syntax, without the brackets: ``0``, ``-1``,
``:, 1``, ``1:3, None``, ``..., 0``, ``::2``.  The name ``index`` is the
placeholder for a tensor connected to the node's ``index`` port (a bool mask or an
integer tensor): ``index`` alone is ``x[mask]``, ``index, 0`` is ``x[idx, 0]``.
Several ``index`` placeholders take the connected tensors in slot order.

The text is parsed with ``ast`` and never evaluated: only integers (negative ones
too), slices whose parts are integers or ``None``, ``None``, ``...`` and the
placeholder are allowed; anything else raises ``ValueError`` naming what is wrong.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: The name in a key that stands for a connected tensor index.
PLACEHOLDER = "index"
MAX_KEY_LENGTH = 200
ALLOWED = (
    "integers, slices such as 1:3 or ::2, None, ... and "
    f"`{PLACEHOLDER}` (a tensor connected to the {PLACEHOLDER!r} input)"
)


@dataclass(frozen=True)
class Placeholder:
    """Where a connected tensor index goes."""


@dataclass(frozen=True)
class Slice:
    start: int | None = None
    stop: int | None = None
    step: int | None = None


@dataclass(frozen=True)
class IndexKey:
    """A parsed key: its items and whether it was a tuple (``0,`` is, ``0`` is not)."""

    items: tuple[Any, ...]
    is_tuple: bool

    @property
    def placeholders(self) -> int:
        return sum(1 for item in self.items if isinstance(item, Placeholder))

    def text(self, tensors: Sequence[str] | None = None) -> str:
        """The key as Python source; ``tensors`` replace the placeholders (in order)."""
        names = iter(tensors if tensors is not None else ())
        parts = []
        for item in self.items:
            if isinstance(item, Placeholder):
                parts.append(next(names, PLACEHOLDER))
            else:
                parts.append(_item_text(item))
        if not self.is_tuple:
            return parts[0]
        if not parts:
            return "()"
        return ", ".join(parts) + ("," if len(parts) == 1 else "")

    def value(self, tensors: Sequence[Any] = ()) -> Any:
        """The key as Python objects for ``tensor[...]``; ``tensors`` fill the placeholders."""
        if len(tensors) != self.placeholders:
            raise ValueError(self.count_message(len(tensors)))
        supply = iter(tensors)
        items = tuple(
            next(supply)
            if isinstance(item, Placeholder)
            else (slice(item.start, item.stop, item.step) if isinstance(item, Slice) else item)
            for item in self.items
        )
        return items if self.is_tuple else items[0]

    def count_message(self, connected: int) -> str:
        uses = self.placeholders
        return (
            f"the key uses `{PLACEHOLDER}` {uses} time{'s' if uses != 1 else ''}, but "
            f"{connected} tensor{'s are' if connected != 1 else ' is'} connected to "
            f"the {PLACEHOLDER!r} input"
        )


def _item_text(item: Any) -> str:
    if item is None:
        return "None"
    if item is Ellipsis:
        return "..."
    if isinstance(item, Slice):
        text = ("" if item.start is None else str(item.start)) + ":"
        text += "" if item.stop is None else str(item.stop)
        if item.step is not None:
            text += f":{item.step}"
        return text
    return str(item)


def parse_key(text: str) -> IndexKey:
    """Parse a key (``ValueError`` with a message for the editor if it is not allowed)."""
    if not isinstance(text, str):
        raise ValueError(f"an index key is text such as '0' or ':, 1', got {text!r}")
    stripped = text.strip()
    if not stripped:
        raise ValueError(f"the index key is empty; it holds {ALLOWED}")
    if len(stripped) > MAX_KEY_LENGTH:
        raise ValueError(f"the index key is longer than {MAX_KEY_LENGTH} characters")
    try:
        tree = ast.parse(f"_[{stripped}]", mode="eval")
    except (SyntaxError, ValueError):
        raise ValueError(f"{stripped!r} is not a valid index key; it holds {ALLOWED}") from None
    body = tree.body
    if not (
        isinstance(body, ast.Subscript)
        and isinstance(body.value, ast.Name)
        and body.value.id == "_"
    ):
        raise ValueError(f"{stripped!r} is not a valid index key; it holds {ALLOWED}")
    node = body.slice
    if isinstance(node, ast.Tuple):
        items = tuple(_item(e, stripped) for e in node.elts)
        key = IndexKey(items, True)
    else:
        key = IndexKey((_item(node, stripped),), False)
    if sum(1 for item in key.items if item is Ellipsis) > 1:
        raise ValueError(f"index key {stripped!r}: an index can only have a single ellipsis (...)")
    return key


def _item(node: ast.expr, text: str) -> Any:
    if isinstance(node, ast.Slice):
        return Slice(*(_slice_part(p, text) for p in (node.lower, node.upper, node.step)))
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return Ellipsis
    if isinstance(node, ast.Name) and node.id == PLACEHOLDER:
        return Placeholder()
    number = _int(node)
    if number is not None:
        return number
    raise ValueError(f"index key {text!r}: {_describe(node)} is not allowed; a key holds {ALLOWED}")


def _slice_part(node: ast.expr | None, text: str) -> int | None:
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return None
    number = _int(node)
    if number is None:
        raise ValueError(
            f"index key {text!r}: {_describe(node)} is not allowed in a slice; "
            "its parts are integers or None"
        )
    return number


def _int(node: ast.expr) -> int | None:
    """A literal integer, also ``-3`` (a unary minus on a literal); None otherwise."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int)
        and not isinstance(node.value, bool)
    ):
        return sign * node.value
    return None


def _describe(node: ast.expr) -> str:
    source = ast.unparse(node)
    if len(source) > 40:
        source = source[:37] + "..."
    if isinstance(node, ast.Call):
        return f"a call ({source})"
    if isinstance(node, ast.Name):
        return f"the name {source!r}"
    if isinstance(node, ast.Constant):
        return f"the value {source}"
    if isinstance(node, ast.List | ast.Tuple | ast.Set | ast.Dict):
        return f"a {type(node).__name__.lower()} ({source})"
    return f"the expression {source!r}"


def check_key(value: Any) -> str:
    """The ``index`` parameter kind: key text, stripped (a bare integer is accepted too)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    parse_key(value)
    return value.strip()
