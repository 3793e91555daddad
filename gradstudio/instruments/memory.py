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

from dataclasses import dataclass

from gradstudio.evaluation.evaluate import (
    Evaluation,
    GradFnFacts,
    GradValue,
    OutputRef,
    TensorFacts,
)
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


@dataclass(frozen=True)
class MemoryStep:
    """The memory picture right after one step."""

    step: int
    node_id: str
    values: tuple[TensorBytes, ...]
    saved: tuple[SavedBytes, ...]
    grads: tuple[GradBytes, ...]

    @property
    def values_bytes(self) -> int:
        return sum(v.bytes for v in self.values)

    @property
    def saved_bytes(self) -> int:
        return sum(s.bytes for s in self.saved)

    @property
    def saved_private_bytes(self) -> int:
        return sum(s.private_bytes for s in self.saved)

    @property
    def grad_bytes(self) -> int:
        return sum(g.bytes for g in self.grads)

    @property
    def retained_grad_bytes(self) -> int:
        return sum(g.bytes for g in self.grads if g.retained)

    @property
    def total_bytes(self) -> int:
        """Values, plus what only the graph keeps, plus gradients."""
        return self.values_bytes + self.saved_private_bytes + self.grad_bytes


def memory(ev: Evaluation) -> list[MemoryStep]:
    """One ``MemoryStep`` per step that ran (steps after an error are left out)."""
    facts: dict[OutputRef, TensorFacts | None] = {}
    grad_fns: dict[int, GradFnFacts] = {}
    steps = []
    for result in ev.steps:
        if result.status != "ok":
            break
        facts.update(result.changed)
        grad_fns.update(result.grad_fns)
        steps.append(_picture(ev, result.step, result.node_id, facts, grad_fns))
    return steps


def freed_by(steps: list[MemoryStep], step: int) -> int:
    """Saved-tensor bytes released by ``step`` (a backward without ``retain_graph``)."""
    if step <= 0 or step >= len(steps):
        return 0
    return max(0, steps[step - 1].saved_bytes - steps[step].saved_bytes)


def _picture(
    ev: Evaluation,
    step: int,
    node_id: str,
    facts: dict[OutputRef, TensorFacts | None],
    grad_fns: dict[int, GradFnFacts],
) -> MemoryStep:
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
        total = private = freed = 0
        for s in fn.saved:
            if s.kind == "freed":
                freed += 1
            elif s.kind == "tensor" and isinstance(s.value, GradValue):
                size = nbytes(s.value)
                total += size
                private += 0 if s.ref is not None else size
        if total or freed:
            saved.append(SavedBytes(key, fn.name, total, private, freed))
    return MemoryStep(step, node_id, tuple(values), tuple(saved), tuple(grads))
