"""What the steps changed, indexed per tensor: any step's facts by bisection, not replay.

An evaluation records per step only what that step changed.  Asking "every
tensor's facts after step P" by replaying steps 0..P costs the whole timeline on
every scrub; this index, built once per evaluation, answers one tensor in
O(log k) (k: how often that tensor changed, most often once) and lets a view ask
which tensors changed between two positions instead of re-reading all of them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Mapping
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

_MISSING = object()


class History(Generic[K, V]):
    """Per key, the steps that changed it and the value each step left.

    Steps are added in increasing order.  A key changed once (nearly all of them)
    costs one dict entry; only keys changed again get lists to bisect.
    """

    def __init__(self) -> None:
        self.order: list[K] = []  # keys in order of first appearance
        self.order_steps: list[int] = []  # the step each first appeared at (sorted)
        #: key -> (step, value) if changed once, else ([steps], [values])
        self._entries: dict[K, tuple[int, V] | tuple[list[int], list[V]]] = {}
        #: Every key's value after the last step added, and each step's changes (shared,
        #: not copied): a view that is asked for everything is built from these in C.
        self.latest: dict[K, V] = {}
        self.last_step = -1
        self.changes: list[tuple[int, Mapping[K, V]]] = []

    def add(self, step: int, changes: Mapping[K, V]) -> None:
        self.latest.update(changes)
        self.last_step = step
        self.changes.append((step, changes))
        entries = self._entries
        for key, value in changes.items():
            entry = entries.get(key)
            if entry is None:
                entries[key] = (step, value)
                self.order.append(key)
                self.order_steps.append(step)
            elif type(entry[0]) is int:
                entries[key] = ([entry[0], step], [entry[1], value])
            else:
                entry[0].append(step)  # type: ignore[union-attr]
                entry[1].append(value)  # type: ignore[union-attr]

    def at(self, key: K, step: int) -> object:
        """The value ``key`` had right after ``step``; ``_MISSING`` if not yet set."""
        entry = self._entries.get(key)
        if entry is None:
            return _MISSING
        at, value = entry
        if type(at) is int:
            return value if at <= step else _MISSING
        i = bisect_right(at, step)  # type: ignore[arg-type]
        return _MISSING if i == 0 else value[i - 1]  # type: ignore[index]

    def as_of(self, step: int) -> AsOf[K, V]:
        return AsOf(self, step)


class AsOf(Mapping[K, V]):
    """A read-only view of every key's value right after one step (nothing copied).

    The first few keys asked are looked up by bisection (a scrub re-reads only what
    changed); a view asked for more, or for all of its items, becomes a plain dict,
    built in C from the steps' changes, as cheap as a few hundred lookups.
    """

    LOOKUPS = 32  # lookups answered by bisection before the view becomes a dict

    def __init__(self, history: History[K, V], step: int) -> None:
        self._history = history
        self._step = step
        self._count = bisect_right(history.order_steps, step)
        self._dict: dict[K, V] | None = None
        self._lookups = 0

    def _full(self) -> dict[K, V]:
        if self._dict is None:
            h = self._history
            if self._step >= h.last_step:
                self._dict = dict(h.latest)
            else:
                d: dict[K, V] = {}
                for step, changes in h.changes:
                    if step > self._step:
                        break
                    d.update(changes)
                self._dict = d
        return self._dict

    def _at(self, key: object) -> object:
        if self._dict is None:
            self._lookups += 1
            if self._lookups <= self.LOOKUPS:
                return self._history.at(key, self._step)  # type: ignore[arg-type]
        return self._full().get(key, _MISSING)  # type: ignore[arg-type]

    def __getitem__(self, key: K) -> V:
        value = self._at(key)
        if value is _MISSING:
            raise KeyError(key)
        return value  # type: ignore[return-value]

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        value = self._at(key)
        return default if value is _MISSING else value  # type: ignore[return-value]

    def __contains__(self, key: object) -> bool:
        return self._at(key) is not _MISSING

    def __iter__(self) -> Iterator[K]:
        return iter(self._full())

    def __len__(self) -> int:
        return self._count

    def items(self) -> list[tuple[K, V]]:  # type: ignore[override]
        """Every (key, value), in order of first appearance."""
        return list(self._full().items())


class Overlay(Mapping[K, V]):
    """``base`` with some of its keys' values replaced (a replayed backward's grads)."""

    def __init__(self, base: Mapping[K, V], replaced: Mapping[K, V]) -> None:
        self._base = base
        self._replaced = replaced

    def __getitem__(self, key: K) -> V:
        if key in self._replaced:
            return self._replaced[key]
        return self._base[key]

    def __contains__(self, key: object) -> bool:
        return key in self._replaced or key in self._base

    def __iter__(self) -> Iterator[K]:
        return iter(self._base)

    def __len__(self) -> int:
        return len(self._base)
