"""The per-tensor index of what each step changed, and what a scrub must re-read.

The oracle is the definition: the facts after step P are every step's changes up
to P applied in order (what ``Evaluation.snapshot`` once built by replaying the
steps), and a node left out of ``nodes_changed_since`` must show the very same
objects at both positions.
"""

from __future__ import annotations

import itertools
import random

import pytest

from gradstudio.document.model import Document
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.facts import StepResult
from gradstudio.evaluation.history import AsOf, History
from gradstudio.evaluation.plan import prepare
from gradstudio.evaluation.playhead import Playhead
from gradstudio.evaluation.results import Evaluation
from gradstudio.evaluation.runner import Runner
from gradstudio.interchange.pytorch_import import import_snippet
from tests.gradstudio.test_playhead import RETAIN

#: An in-place op on a tensor already used (its version and grad_fn change), then backward.
INPLACE = """\
import torch
w = torch.tensor([1., 2., 3.], requires_grad=True)
a = torch.mul(w, 2)
b = torch.exp(a)
c = torch.add(b, 1)
c.mul_(3)
d = torch.sum(c)
d.backward()
"""


def replayed(ev: Evaluation, step: int) -> tuple[dict, dict]:
    facts: dict = {}
    fns: dict = {}
    for result in ev.steps[: step + 1]:
        facts.update(result.changed)
        fns.update(result.grad_fns)
    return facts, fns


def test_history_answers_each_step_by_bisection() -> None:
    h: History[str, int] = History()
    h.add(0, {"a": 1})
    h.add(2, {"b": 2, "a": 3})
    h.add(5, {"a": 4})
    assert [dict(h.as_of(s)) for s in range(-1, 7)] == [
        {},
        {"a": 1},
        {"a": 1},
        {"a": 3, "b": 2},
        {"a": 3, "b": 2},
        {"a": 3, "b": 2},
        {"a": 4, "b": 2},
        {"a": 4, "b": 2},
    ]
    assert list(h.as_of(2)) == ["a", "b"] and "b" not in h.as_of(1)
    with pytest.raises(KeyError):
        h.as_of(1)["b"]


@pytest.mark.parametrize("lookups", [0, 10_000], ids=["as-dict", "by-bisection"])
@pytest.mark.parametrize("code", [RETAIN, INPLACE], ids=["retain", "inplace"])
def test_snapshot_is_the_replay_of_the_steps(
    code: str, lookups: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(AsOf, "LOOKUPS", lookups)
    ev = evaluate(import_snippet(code))
    assert ev.ok, ev.errors
    for step in range(-1, len(ev.steps)):
        facts, fns = replayed(ev, step)
        ev._cache = None
        snap = ev.snapshot(step)
        for ref, value in facts.items():
            assert snap.facts(ref.node_id, ref.port, ref.index) is value
        assert snap.facts("no such node") is None
        assert {k: snap.grad_fn(k) for k in fns} == fns
        assert snap.items() == list(facts.items())
        assert dict(snap.grad_fns()) == fns


@pytest.mark.parametrize("code", [RETAIN, INPLACE], ids=["retain", "inplace"])
def test_changed_between_names_every_difference(code: str) -> None:
    ev = evaluate(import_snippet(code))
    for a, b in itertools.product(range(-1, len(ev.steps)), repeat=2):
        refs, keys = ev.changed_between(a, b)
        (fa, ga), (fb, gb) = replayed(ev, a), replayed(ev, b)
        differ = {r for r in fa.keys() | fb.keys() if fa.get(r) is not fb.get(r)}
        assert differ <= refs, (a, b)
        assert {k for k in ga.keys() | gb.keys() if ga.get(k) is not gb.get(k)} <= keys


@pytest.mark.parametrize("code", [RETAIN, INPLACE], ids=["retain", "inplace"])
def test_a_scrub_rereads_every_node_that_changed(code: str) -> None:
    """From any position to any other (replays inside backward included): a node not
    named keeps the same facts object, running role and pending state."""
    doc = import_snippet(code)
    ev = evaluate(doc)
    playhead = Playhead()
    playhead.set_evaluation(ev)
    positions = playhead.positions()

    def shown() -> dict[str, tuple]:
        n = playhead.effective_step
        return {
            node.id: (
                playhead.facts(node.id),
                node.id == playhead.executing_node,
                node.id in playhead.touched_nodes(),
                ev.plan.step_of[node.id] > n,
            )
            for node in doc.nodes()
        }

    seen = {}
    for position in positions:
        playhead.set_position(*position)
        seen[position] = shown()
    for before, after in itertools.product(positions, repeat=2):
        playhead.set_position(*after)
        named = playhead.nodes_changed_since(*before)
        for node_id, was in seen[before].items():
            now = seen[after][node_id]
            same = was[0] is now[0] and was[1:] == now[1:]
            assert same or node_id in named, (before, after, doc.node(node_id).label)


def random_graph(seed: int, n: int = 40) -> Document:
    """Leaves, unary and binary ops on recent outputs, a sum, two backwards (the first
    keeps the graph) and a retain_grad: the kind of graph the studio benchmarks."""
    rng = random.Random(seed)
    doc = Document()
    ids = []
    for i in range(4):
        data = [rng.uniform(-1, 1) for _ in range(3)]
        node = doc.new_node("torch.tensor", (0, 0), {"data": data, "requires_grad": i != 3})
        doc.add_node(node)
        ids.append(node.id)
    for _ in range(n):
        unary = rng.random() < 0.4
        op = rng.choice(
            ["torch.tanh", "torch.exp", "torch.neg"] if unary else ["torch.add", "torch.mul"]
        )
        node = doc.new_node(op, (0, 0))
        doc.add_node(node)
        sources = rng.sample(ids[-8:], 1 if unary else 2)
        for port, src in zip(("input", "other"), sources, strict=False):
            doc.connect(src, "out", node.id, port)
        ids.append(node.id)
    retain = doc.new_node("Tensor.retain_grad", (0, 0))
    doc.add_node(retain)
    doc.connect(ids[-3], "out", retain.id, "input")
    total = doc.new_node("torch.sum", (0, 0))
    doc.add_node(total)
    doc.connect(ids[-1], "out", total.id, "input")
    for retain_graph in (True, None):
        backward = doc.new_node("Tensor.backward", (0, 0), {"retain_graph": retain_graph})
        doc.add_node(backward)
        doc.connect(total.id, "out", backward.id, "input")
    return doc


#: An in-place op that saves a tensor: backward frees what a node made after the
#: tensor itself was recorded.
INPLACE_SAVING = """\
import torch
w = torch.tensor([1., 2., 3.], requires_grad=True)
a = torch.mul(w, 2)
c = torch.add(a, 1)
c.mul_(w)
d = torch.sum(c)
d.backward()
"""


@pytest.mark.parametrize("seed", range(5))
def test_the_index_answers_what_reading_every_tensor_says(seed: int) -> None:
    """Steps record only what they changed; the oracle reads every tensor (and every
    grad_fn) again after every step: the index must answer the same at each step."""
    import engine

    snippet = INPLACE if seed == 3 else INPLACE_SAVING
    plan = prepare(random_graph(seed) if seed < 3 else import_snippet(snippet))
    runner = Runner(plan, engine)
    full: list[tuple[dict, dict]] = []

    def read_everything(result: StepResult) -> None:
        scratch = StepResult(-1, "")
        tensors = {
            ref: None if t is None else runner.tensor_facts(t, scratch)
            for ref, t in runner.live.items()
        }
        fns = {key: runner.fn_facts(fn) for key, fn in runner.fn_objects.items()}
        full.append((tensors, fns))

    ev = runner.run(None, None, read_everything)
    assert ev.ok, ev.errors
    assert len(full) == len(ev.steps)
    for step, (tensors, fns) in enumerate(full):
        snap = ev.snapshot(step)
        assert {ref for ref, _ in snap.items()} == tensors.keys()
        for ref, facts in tensors.items():
            got = snap.facts(ref.node_id, ref.port, ref.index)
            assert (facts is None and got is None) or facts.same_as(got), (step, ref)
        for key, facts in fns.items():
            assert facts.same_as(snap.grad_fns().get(key)), (step, key)
