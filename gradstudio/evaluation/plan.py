"""The plan of an evaluation: an immutable copy of the document's steps, wiring and
settings, made on the UI thread (``prepare``) and run anywhere (``Plan.run``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gradstudio.catalogue import NodeType
from gradstudio.evaluation.budget import DEFAULT_BUDGET
from gradstudio.evaluation.facts import OutputRef, StepResult
from gradstudio.evaluation.results import Evaluation
from gradstudio.evaluation.runner import CancelCheck, Progress, Runner

if TYPE_CHECKING:
    from gradstudio.document.model import Document


@dataclass(frozen=True)
class PlanStep:
    node_id: str
    label: str
    type: NodeType
    params: Mapping[str, Any]
    inputs: Mapping[str, tuple[tuple[str, str], ...]]  # port -> (src node, src port) in slot order


@dataclass(frozen=True)
class Plan:
    """An immutable copy of what evaluation needs from a document."""

    steps: tuple[PlanStep, ...]
    device: str
    seed: int
    trusted: bool
    labels: Mapping[str, str]
    step_of: Mapping[str, int]
    #: ``doc.revision`` when prepared: a result is current while the document's matches.
    revision: int = 0
    #: Bytes of tensor data the whole run may hold (``None``: no limit); see ``budget``.
    memory_budget: int | None = DEFAULT_BUDGET

    def display_label(self, ref: OutputRef) -> str:
        label = self.labels[ref.node_id]
        step = self.steps[self.step_of[ref.node_id]]
        if ref.index is not None:
            return f"{label}[{ref.index}]"
        if len(step.type.outputs) > 1:
            return f"{label}.{ref.port}"
        return label

    def run(
        self,
        cancel: CancelCheck | None = None,
        progress: Progress | None = None,
        backend: Any = None,
        on_step: Callable[[StepResult], None] | None = None,
    ) -> Evaluation:
        """Run every step; ``on_step`` sees each step's result as soon as it is final."""
        if backend is None:
            import engine as backend
        return Runner(self, backend).run(cancel, progress, on_step)


def prepare(
    doc: Document, device: str | None = None, memory_budget: int | None = DEFAULT_BUDGET
) -> Plan:
    """Copy the document's steps, wiring and settings (cheap; call on the UI thread)."""
    wiring: dict[str, dict[str, list[tuple[int, str, str]]]] = {}
    for edge in doc.edges():
        ports = wiring.setdefault(edge.dst, {})
        ports.setdefault(edge.dst_port, []).append((edge.slot, edge.src, edge.src_port))
    steps = []
    for node in doc.nodes():
        inputs = wiring.get(node.id, {})
        steps.append(
            PlanStep(
                node.id,
                node.label,
                node.type,
                dict(node.params),
                {p: tuple((s, sp) for _, s, sp in sorted(v)) for p, v in inputs.items()},
            )
        )
    return Plan(
        steps=tuple(steps),
        device=device or doc.settings["device"],
        seed=doc.settings["seed"],
        trusted=doc.trusted,
        labels={n.id: n.label for n in doc.nodes()},
        step_of={s.node_id: i for i, s in enumerate(steps)},
        revision=doc.revision,
        memory_budget=memory_budget,
    )


def with_params(plan: Plan, doc: Document, node_ids: Iterable[str]) -> Plan:
    """``prepare(doc)``, made from ``plan`` (prepared from ``doc`` before) when only the
    parameters of ``node_ids`` changed since: editing a value copies one step, not the
    whole document (a 5,000-node graph takes tens of milliseconds to copy)."""
    steps = list(plan.steps)
    for node_id in node_ids:
        index = plan.step_of[node_id]
        steps[index] = replace(steps[index], params=dict(doc.node(node_id).params))
    return replace(plan, steps=tuple(steps), revision=doc.revision)
