"""ATen's CPU ``nll_loss`` reduction (``nll_loss_out_frame``): the loss and the total weight
are summed in a cascade of eight partial sums, a level taking ``2 ** power`` items (16 for
any batch below 2 ** 32) before it is added into the next; ignored targets add nothing and
push nothing.  ``reduce`` gives exactly ATen's sums, compiled (``cpu_loops``) or here in
NumPy, so a loss and its gradient have PyTorch's bits, not just its value."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import cpu_loops

LEVELS = 8


def _ceil_log2(x: int) -> int:
    """``utils::CeilLog2``: 1 up to 2, then ``ceil(log2(x))``."""
    return 1 if x <= 2 else (x - 1).bit_length()


def level_power(batch: int) -> int:
    return max(4, _ceil_log2(batch) // LEVELS)


def reduce(
    rows: np.ndarray, target: np.ndarray, weight: np.ndarray | None, ignore_index: int
) -> tuple[Any, Any]:
    """``(loss, total_weight)`` of ``rows`` (batch, classes) at ``target`` (batch,): the sum of
    ``-rows[b, target[b]] * weight[target[b]]`` over the rows not ignored, and of their
    weights (their count without a weight), each a scalar of ``rows``' dtype.  Every target
    must be ``ignore_index`` or a class (the callers check)."""
    looped = cpu_loops.nll_reduce(rows, target, weight, ignore_index, level_power(rows.shape[0]))
    return looped if looped is not None else emulate(rows, target, weight, ignore_index)


def emulate(
    rows: np.ndarray, target: np.ndarray, weight: np.ndarray | None, ignore_index: int
) -> tuple[Any, Any]:
    """``reduce`` in NumPy: the same additions, run by level rather than by row."""
    power = level_power(rows.shape[0])
    kept = np.nonzero(target != ignore_index)[0]
    classes = target[kept]
    picked = rows[kept, classes]
    if weight is None:
        return _cascade(kept, np.negative(picked), power), rows.dtype.type(kept.size)
    w = weight[classes]
    return _cascade(kept, np.negative(picked * w), power), _cascade(kept, w, power)


def _cascade(keys: np.ndarray, items: np.ndarray, power: int) -> Any:
    """The items (``keys``: the batch row of each) added level by level as ATen does, then
    the levels' sums added in order from 0."""
    levels = []
    for j in range(LEVELS - 1):
        if keys.size == 0 or (keys.size == 1 and keys[0] == 0):
            break  # (row 0 alone is pushed to the top; the levels between are 0)
        pushed = keys % (1 << (power * (j + 1))) == 0
        rest, keys, items = _segments(keys, items, pushed)
        levels.append(rest)
    levels.append(_in_order(items))
    total = items.dtype.type(0)
    for partial in levels:
        total = total + partial
    return total


def _segments(
    keys: np.ndarray, items: np.ndarray, pushed: np.ndarray
) -> tuple[Any, np.ndarray, np.ndarray]:
    """Split ``items`` after each pushed one: each run's sum (from 0, in order) goes up a
    level under the key that pushed it; the run after the last push stays (``rest``)."""
    ends = np.flatnonzero(pushed)
    last = ends[-1] + 1 if ends.size else 0
    rest = _in_order(items[last:])
    if not ends.size:
        return rest, keys[:0], items[:0]
    starts = np.concatenate(([0], ends[:-1] + 1))
    lengths = ends - starts + 1
    runs = np.repeat(np.arange(ends.size), lengths)
    place = np.arange(last) - np.repeat(starts, lengths)
    # one run per column (and a spare one): NumPy adds the rows of a column in order
    table = np.zeros((int(lengths.max()), ends.size + 1), items.dtype)
    table[place, runs] = items[:last]
    return rest, keys[ends], np.add.reduce(table, axis=0)[:-1]


def _in_order(items: np.ndarray) -> Any:
    """``0 + items[0] + items[1] + ...`` (two columns: one alone would be summed pairwise)."""
    table = np.zeros((items.size, 2), items.dtype)
    table[:, 0] = items
    return np.add.reduce(table, axis=0)[0]
