"""Two runs that differ only in values: ``same_structure`` says so, and what is built
from the structure alone (memory per step) carries over exactly."""

from __future__ import annotations

import dataclasses

from gradstudio.document.model import Document
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.playhead import Playhead
from gradstudio.evaluation.structure import same_structure, structure
from gradstudio.instruments.memory import MemoryStep, memory
from gradstudio.interchange.pytorch_import import import_snippet

#: A retained non-leaf, a leaf used twice, saved tensors freed by the first backward.
PROGRAM = """\
import torch
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
c = torch.mul(a, b)
c.retain_grad()
d = torch.add(c, a)
e = torch.sum(d)
e.backward()
"""


def _doc() -> Document:
    return import_snippet(PROGRAM)


def _node(doc: Document, label: str) -> str:
    return next(n.id for n in doc.nodes() if n.label == label)


def _numbers(steps: list[MemoryStep]) -> list[tuple]:
    fields = [f.name for f in dataclasses.fields(MemoryStep) if not f.name.startswith("_")]
    return [tuple(getattr(m, name) for name in fields) for m in steps]


def test_a_run_with_other_values_has_the_same_structure() -> None:
    doc = _doc()
    before = evaluate(doc)
    doc.set_param(_node(doc, "a"), "data", [5.0, -6.0])
    after = evaluate(doc)
    assert same_structure(before, after) and structure(after) is structure(after)
    b = _node(doc, "b")  # b.grad is a's value
    assert after.final.facts(b).grad.array.tolist() == [5.0, -6.0]  # type: ignore[union-attr]
    assert before.final.facts(b).grad.array.tolist() == [1.0, 2.0]  # type: ignore[union-attr]


def test_another_shape_flag_or_label_is_another_structure() -> None:
    doc = _doc()
    first = evaluate(doc)
    doc.set_param(_node(doc, "a"), "data", [1.0, 2.0, 3.0])
    doc.set_param(_node(doc, "b"), "data", [3.0, 4.0, 5.0])
    assert not same_structure(first, evaluate(doc))  # other shapes
    doc = _doc()
    doc.set_param(_node(doc, "b"), "requires_grad", False)
    assert not same_structure(first, evaluate(doc))  # no AccumulateGrad for b
    doc = _doc()
    doc.set_label(_node(doc, "c"), "product")
    assert not same_structure(first, evaluate(doc))  # the boxes name it


def test_a_rename_shown_by_the_playhead_is_another_structure() -> None:
    doc = _doc()
    first, second = evaluate(doc), evaluate(doc)
    assert same_structure(first, second)
    playhead = Playhead()
    playhead.set_evaluation(second)
    playhead.relabel(_node(doc, "c"), "product")
    assert not same_structure(first, second)


def test_memory_of_a_rerun_with_other_values_carries_over_exactly() -> None:
    doc = _doc()
    playhead = Playhead()
    playhead.set_evaluation(evaluate(doc))
    old = playhead.memory_steps()
    doc.set_param(_node(doc, "a"), "data", [7.0, 8.0])
    ev = evaluate(doc)
    playhead.set_evaluation(ev)
    carried, fresh = playhead.memory_steps(), memory(ev)
    assert carried is not old and _numbers(carried) == _numbers(fresh)
    for c, f in zip(carried, fresh, strict=True):  # itemised from the new run
        assert (c.values, c.saved, c.grads) == (f.values, f.saved, f.grads)
        assert c.head(1) == f.head(1)
    doc.set_param(_node(doc, "a"), "data", [7.0, 8.0, 9.0])
    doc.set_param(_node(doc, "b"), "data", [1.0, 1.0, 1.0])
    ev = evaluate(doc)
    playhead.set_evaluation(ev)  # other shapes: counted afresh
    assert _numbers(playhead.memory_steps()) == _numbers(memory(ev)) != _numbers(fresh)


def test_a_run_described_while_it_arrives_is_described_as_a_whole() -> None:
    from gradstudio.evaluation.plan import prepare
    from gradstudio.evaluation.structure import warm
    from gradstudio.evaluation.worker import run_plan

    doc = _doc()
    arrived = run_plan(prepare(doc), taken=warm)  # described batch by batch
    assert structure(arrived) == structure(evaluate(doc))
    ev = evaluate(doc)
    warm(ev)
    before = structure(ev)
    ev.steps[2] = dataclasses.replace(ev.steps[2], status="error")  # a result replaced
    assert structure(ev) != before and structure(ev)[3][2][1] == "error"
