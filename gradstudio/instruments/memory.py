"""Memory per step: bytes held by tensor values, by saved tensors, by ``.grad``.

Computed from an evaluation's recorded facts, so it shows what the seeds say in
words: only leaves (and ``retain_grad()`` tensors) keep ``.grad``; a grad_fn holds
its saved tensors until backward frees them (unless ``retain_graph=True``).

Counting: a tensor is ``numel * element_size`` bytes, each distinct tensor once; a
view of a recorded tensor (``TensorFacts.base_id``) shares its base's storage and
adds nothing (a view of an unrecorded tensor, or a ``detach()``, counts its own
elements).
A saved tensor that *is* one of the document's tensors (``SavedValue.ref``: ``x``
saved by ``MulBackward0``) costs nothing extra while that tensor lives; the others
(intermediates the graph alone keeps) are ``private_bytes``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial

from gradstudio.evaluation.facts import GradFnFacts, GradValue, OutputRef, TensorFacts
from gradstudio.evaluation.results import Evaluation
from gradstudio.instruments.records import nbytes


@dataclass(frozen=True)
class SavedBytes:
    """What one grad_fn holds for backward."""

    key: int
    name: str
    bytes: int
    #: Of ``bytes``, the saved tensors no document tensor holds.
    private_bytes: int
    #: How many saved tensors backward has released.
    freed: int


@dataclass(frozen=True)
class TensorBytes:
    ref: OutputRef
    label: str
    bytes: int  # 0 for a view of another recorded tensor


@dataclass(frozen=True)
class GradBytes:
    ref: OutputRef
    label: str
    bytes: int
    #: A non-leaf's ``.grad`` kept by ``retain_grad()``.
    retained: bool


@dataclass(frozen=True, eq=False)
class MemoryStep:
    """The memory picture right after one step.

    The totals are kept per step (the timeline's strip draws every step's); the
    itemised ``values``, ``saved`` and ``grads`` are worked out when first asked
    for, since holding every tensor at every step grows as steps × tensors.
    """

    step: int
    node_id: str
    values_bytes: int
    saved_bytes: int
    saved_private_bytes: int
    grad_bytes: int
    retained_grad_bytes: int
    #: How many grad_fns hold or have freed saved tensors (``saved``), and how many
    #: tensors have a ``.grad`` (``grads``).
    saved_count: int
    grad_count: int
    #: The items, all (None) or the first n of ``saved`` and ``grads`` (values empty).
    _itemise: Callable[[int | None], Detail] = field(repr=False)

    @cached_property
    def _items(self) -> Detail:
        return self._itemise(None)

    def head(self, n: int) -> tuple[tuple[SavedBytes, ...], tuple[GradBytes, ...]]:
        """The first ``n`` of ``saved`` and of ``grads``, without itemising the rest
        (what the inspector lists at every position)."""
        items = self.__dict__.get("_items") or self._itemise(n)
        return items[1][:n], items[2][:n]

    @property
    def values(self) -> tuple[TensorBytes, ...]:
        return self._items[0]

    @property
    def saved(self) -> tuple[SavedBytes, ...]:
        return self._items[1]

    @property
    def grads(self) -> tuple[GradBytes, ...]:
        return self._items[2]

    @property
    def total_bytes(self) -> int:
        """Values, plus what only the graph keeps, plus gradients."""
        return self.values_bytes + self.saved_private_bytes + self.grad_bytes


Detail = tuple[tuple[TensorBytes, ...], tuple[SavedBytes, ...], tuple[GradBytes, ...]]


def memory(ev: Evaluation) -> list[MemoryStep]:
    """One ``MemoryStep`` per step that ran (steps after an error are left out).

    Linear in what the steps changed: a running account per distinct tensor (counted
    through the first document tensor that holds it, as ``_picture`` does) and per
    grad_fn is corrected by each step's changes only.
    """
    facts: dict[OutputRef, TensorFacts | None] = {}
    place: dict[OutputRef, int] = {}
    holders: dict[int, dict[int, OutputRef]] = {}  # tensor_id -> {first seen: ref}
    # tensor_id -> value, grad, retained bytes, has a .grad
    tensor_bytes: dict[int, tuple[int, int, int, int]] = {}
    fn_bytes: dict[int, tuple[int, int, int]] = {}  # grad_fn key -> saved, private, listed
    values = grads = retained = saved = private = saved_count = grad_count = 0
    steps: list[MemoryStep] = []
    for result in ev.steps:
        if result.status != "ok":
            break
        touched: set[int] = set()
        for ref, f in result.changed.items():
            old = facts.get(ref)
            if old is not None:
                touched.add(old.tensor_id)
                del holders[old.tensor_id][place[ref]]
            facts[ref] = f
            place.setdefault(ref, len(place))
            if f is not None:
                touched.add(f.tensor_id)
                holders.setdefault(f.tensor_id, {})[place[ref]] = ref
        for tid in touched:
            v, g, r, c = tensor_bytes.pop(tid, (0, 0, 0, 0))
            values, grads, retained, grad_count = (
                values - v,
                grads - g,
                retained - r,
                grad_count - c,
            )
            held = holders.get(tid)
            if held:
                f = facts[held[min(held)]]
                assert f is not None
                g = nbytes(f.grad) if f.grad is not None else 0
                v, r = 0 if f.base_id is not None else nbytes(f), 0 if f.is_leaf else g
                c = int(f.grad is not None)
                tensor_bytes[tid] = (v, g, r, c)
                values, grads, retained, grad_count = (
                    values + v,
                    grads + g,
                    retained + r,
                    grad_count + c,
                )
            else:
                holders.pop(tid, None)
        for key, fn in result.grad_fns.items():
            s, p, c = fn_bytes.get(key, (0, 0, 0))
            s2, p2, freed = _saved_of(fn)
            c2 = int(bool(s2 or freed))
            fn_bytes[key] = (s2, p2, c2)
            saved, private, saved_count = saved + s2 - s, private + p2 - p, saved_count + c2 - c
        itemise = partial(_detail_at, ev, len(steps))
        steps.append(
            MemoryStep(
                result.step,
                result.node_id,
                values,
                saved,
                private,
                grads,
                retained,
                saved_count,
                grad_count,
                itemise,
            )
        )
    return steps


def carried_over(steps: list[MemoryStep], ev: Evaluation) -> list[MemoryStep]:
    """``memory(ev)`` from the steps of a run with the same structure (``same_structure``:
    values alone differ, and bytes do not depend on values): the same numbers, itemised
    from ``ev``."""
    return [
        MemoryStep(
            m.step,
            m.node_id,
            m.values_bytes,
            m.saved_bytes,
            m.saved_private_bytes,
            m.grad_bytes,
            m.retained_grad_bytes,
            m.saved_count,
            m.grad_count,
            partial(_detail_at, ev, i),
        )
        for i, m in enumerate(steps)
    ]


def _detail_at(ev: Evaluation, index: int, head: int | None = None) -> Detail:
    """The itemised picture after the ``index``-th step (the facts replayed up to it);
    ``head``: only the first that many saved and grads entries, no values."""
    if head is None:
        facts: dict[OutputRef, TensorFacts | None] = {}
        grad_fns: dict[int, GradFnFacts] = {}
        for result in ev.steps[: index + 1]:
            facts.update(result.changed)
            grad_fns.update(result.grad_fns)
        return _picture(ev, facts, grad_fns)
    # the first few of each, in the same order, looked up rather than replayed
    facts_in_order, fns_in_order = ev.in_order(index)
    saved: list[SavedBytes] = []
    for key, fn in fns_in_order:
        if len(saved) >= head:
            break
        total, private, freed = _saved_of(fn)
        if total or freed:
            saved.append(SavedBytes(key, fn.name, total, private, freed))
    grads: list[GradBytes] = []
    seen: set[int] = set()
    for ref, f in facts_in_order:
        if len(grads) >= head:
            break
        if f is None or f.tensor_id in seen:
            continue
        seen.add(f.tensor_id)
        if f.grad is not None:
            label = ev.plan.display_label(ref)
            grads.append(GradBytes(ref, label, nbytes(f.grad), retained=not f.is_leaf))
    return (), tuple(saved), tuple(grads)


def _saved_of(fn: GradFnFacts) -> tuple[int, int, int]:
    """Bytes a grad_fn holds in saved tensors, of them not held by the document, and how
    many of its saved tensors backward has freed."""
    total = private = freed = 0
    for s in fn.saved:
        if s.kind == "freed":
            freed += 1
        elif s.kind == "tensor" and isinstance(s.value, GradValue):
            size = nbytes(s.value)
            total += size
            private += 0 if s.ref is not None else size
    return total, private, freed


def freed_by(steps: list[MemoryStep], step: int) -> int:
    """Saved-tensor bytes released by ``step`` (a backward without ``retain_graph``)."""
    if step <= 0 or step >= len(steps):
        return 0
    return max(0, steps[step - 1].saved_bytes - steps[step].saved_bytes)


def _picture(
    ev: Evaluation,
    facts: dict[OutputRef, TensorFacts | None],
    grad_fns: dict[int, GradFnFacts],
) -> Detail:
    values = []
    grads = []
    seen: set[int] = set()
    for ref, f in facts.items():
        if f is None or f.tensor_id in seen:
            continue
        seen.add(f.tensor_id)
        label = ev.plan.display_label(ref)
        values.append(TensorBytes(ref, label, 0 if f.base_id is not None else nbytes(f)))
        if f.grad is not None:
            grads.append(GradBytes(ref, label, nbytes(f.grad), retained=not f.is_leaf))
    saved = []
    for key, fn in grad_fns.items():
        total, private, freed = _saved_of(fn)
        if total or freed:
            saved.append(SavedBytes(key, fn.name, total, private, freed))
    return tuple(values), tuple(saved), tuple(grads)
