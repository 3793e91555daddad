"""Constant arithmetic in an imported snippet (``2 * 3``, ``[0.0] * 4``), bounded.

The importer folds what it can compute without running the snippet, so the graph
holds ``6`` rather than an arithmetic node on two numbers.  A hostile snippet can
ask for far more than a graph needs (``'a' * 10**10`` is 10 GB, a tower of powers
runs for ever), so every result's size is known before it is computed: a sequence
holds at most ``MAX_ITEMS`` items, an integer at most ``MAX_BITS`` bits, and one
import folds for at most ``MAX_SECONDS``.  Beyond that, ``FoldLimit`` says which.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable
from typing import Any

from gradstudio.params import MAX_DATA_ELEMENTS

#: What a tensor may hold is the most a folded list or text may hold.
MAX_ITEMS = MAX_DATA_ELEMENTS
#: 4,096 bits: far beyond int64 and float64, far below what costs time.
MAX_BITS = 4096
MAX_DEPTH = 32
MAX_EXPONENT = 64
MAX_SECONDS = 2.0

_NUMBER_OPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}


class FoldLimit(Exception):
    """Folding this constant would exceed a bound; the message says which."""


class Folder:
    """Folds one snippet's constants against one time budget."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = MAX_SECONDS if seconds is None else seconds
        self.deadline = time.monotonic() + self.seconds

    def fold(self, op: ast.operator, a: Any, b: Any) -> Any:
        """``a op b``; ``FoldLimit`` past a bound, ``ValueError`` for what does not fold
        (any other exception is the arithmetic's own: division by zero, overflow)."""
        if time.monotonic() > self.deadline:
            raise FoldLimit(f"the snippet's constant arithmetic takes over {MAX_SECONDS:g} seconds")
        if _is_number(a) and _is_number(b):
            return _fold_numbers(op, a, b)
        if isinstance(op, ast.Add) and type(a) is type(b) and isinstance(a, str | list | tuple):
            _check_items(_items(a) + _items(b))
            return a + b
        if isinstance(op, ast.Mult):
            seq, count = (a, b) if _is_int(b) else (b, a)
            if isinstance(seq, str | list | tuple) and _is_int(count):
                _check_items(_items(seq) * max(count, 0))
                return seq * count
        raise ValueError("this operation does not fold")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fold_numbers(op: ast.operator, a: Any, b: Any) -> Any:
    if isinstance(op, ast.Pow):
        if abs(b) > MAX_EXPONENT:
            raise FoldLimit(f"a constant power would have an exponent over {MAX_EXPONENT}")
        if isinstance(a, int) and isinstance(b, int) and b > 0:
            _check_bits(a.bit_length() * b)
    elif isinstance(op, ast.Mult) and isinstance(a, int) and isinstance(b, int):
        _check_bits(a.bit_length() + b.bit_length())
    result = _NUMBER_OPS[type(op)](a, b)
    if isinstance(result, int):
        _check_bits(result.bit_length())
    return result


def _check_bits(bits: int) -> None:
    if bits > MAX_BITS:
        raise FoldLimit(f"a constant would be an integer of over {MAX_BITS:,} bits")


def _check_items(count: int) -> None:
    if count > MAX_ITEMS:
        raise FoldLimit(f"a constant would hold over {MAX_ITEMS:,} items")


def _items(value: Any, depth: int = 0, seen: dict[int, int] | None = None) -> int:
    """How many items ``value`` holds, nested lists counted in full (a list repeating one
    row is as large as its rows together, though the row is counted once); the count
    stops soon after ``MAX_ITEMS``."""
    if isinstance(value, str):
        return len(value)
    if not isinstance(value, list | tuple):
        return 1
    if depth > MAX_DEPTH:
        raise FoldLimit(f"a constant would be nested over {MAX_DEPTH} lists deep")
    seen = {} if seen is None else seen
    known = seen.get(id(value))
    if known is not None:
        return known
    total = len(value)
    for item in value:
        if isinstance(item, str | list | tuple):
            total += _items(item, depth + 1, seen) - 1
            if total > MAX_ITEMS:
                break
    seen[id(value)] = total
    return total
