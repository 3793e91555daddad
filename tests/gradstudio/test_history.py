"""The per-tensor index of what each step changed, and what a scrub must re-read.

The oracle is the definition: the facts after step P are every step's changes up
to P applied in order (what ``Evaluation.snapshot`` once built by replaying the
steps), and a node left out of ``nodes_changed_since`` must show the very same
objects at both positions.
"""

from __future__ import annotations

import itertools

import pytest

from gradstudio.evaluation.evaluate import Evaluation, evaluate
from gradstudio.evaluation.history import AsOf, History
from gradstudio.evaluation.playhead import Playhead
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
