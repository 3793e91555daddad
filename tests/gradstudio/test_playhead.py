"""The playhead: the position, its events, and the facts at it (headless).

Inside a backward step the ``.grad`` of every tensor must be what PyTorch's
``.grad`` is after that many grad_fn executions: checked against PyTorch itself
(post-hooks on every node read ``.grad`` as the engine goes) and, without torch,
against the values PyTorch gave (kept below).
"""

from __future__ import annotations

import pytest

from gradstudio.document.model import Document
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.playhead import EvaluationShown, Playhead, PlayheadEvent, PositionChanged
from gradstudio.evaluation.results import Evaluation
from gradstudio.interchange.pytorch_import import import_snippet
from tests.gradstudio.snippets import SEED_001

#: Two backwards over a leaf used twice and a non-leaf that retains its grad.
RETAIN = """\
import torch
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
c = torch.mul(a, b)
c.retain_grad()
d = torch.add(c, a)
e = torch.sum(d)
e.backward(retain_graph=True)
f = torch.mul(c, 2)
g = torch.sum(f)
g.backward()
"""
LABELS = ("a", "b", "c")

#: PyTorch 2.13's ``.grad`` of a, b, c after each grad_fn execution of the two backwards.
PYTORCH_REPLAY = [
    [
        ("SumBackward0", {"a": None, "b": None, "c": None}),
        ("AddBackward0", {"a": None, "b": None, "c": None}),
        ("MulBackward0", {"a": None, "b": None, "c": [1.0, 1.0]}),
        ("AccumulateGrad", {"a": [4.0, 5.0], "b": None, "c": [1.0, 1.0]}),
        ("AccumulateGrad", {"a": [4.0, 5.0], "b": [1.0, 2.0], "c": [1.0, 1.0]}),
    ],
    [
        ("SumBackward0", {"a": [4.0, 5.0], "b": [1.0, 2.0], "c": [1.0, 1.0]}),
        ("MulBackward0", {"a": [4.0, 5.0], "b": [1.0, 2.0], "c": [1.0, 1.0]}),
        ("MulBackward0", {"a": [4.0, 5.0], "b": [1.0, 2.0], "c": [3.0, 3.0]}),
        ("AccumulateGrad", {"a": [10.0, 13.0], "b": [1.0, 2.0], "c": [3.0, 3.0]}),
        ("AccumulateGrad", {"a": [10.0, 13.0], "b": [3.0, 6.0], "c": [3.0, 3.0]}),
    ],
]


def played(code: str) -> tuple[Document, Evaluation, Playhead]:
    doc = import_snippet(code)
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    playhead = Playhead()
    playhead.set_evaluation(ev)
    return doc, ev, playhead


def replay_grads(doc: Document, ev: Evaluation, playhead: Playhead) -> list[list[tuple]]:
    """Per backward step, per execution: (grad_fn name, {label: .grad}) at the playhead."""
    out = []
    for result in ev.steps:
        if result.trace is None:
            continue
        rows = []
        for k, ex in enumerate(result.trace.executions, start=1):
            playhead.set_position(result.step, k)
            grads = {}
            for label in LABELS:
                facts = playhead.facts(doc.node_by_label(label).id)
                grads[label] = None if facts is None or facts.grad is None else facts.grad.value
            rows.append((ex.name, grads))
        out.append(rows)
    return out


def test_grad_grows_inside_a_replay_as_pytorch_reports() -> None:
    doc, ev, playhead = played(RETAIN)
    assert replay_grads(doc, ev, playhead) == PYTORCH_REPLAY


@pytest.mark.torch
def test_replay_grads_are_pytorchs_after_every_execution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Runs the snippet under PyTorch with a post-hook on every grad_fn (installed as
    each ``backward()`` starts) that reads every tensor's ``.grad``."""
    import torch

    namespace: dict[str, object] = {}
    backwards: list[list[tuple]] = []
    hooked: set = set()  # a node is hooked once, though both backwards run it

    def read(name: str):  # noqa: ANN202
        def hook(grad_inputs, grad_outputs) -> None:  # noqa: ANN001
            grads = {k: namespace[k].grad for k in LABELS}  # type: ignore[attr-defined]
            backwards[-1].append(
                (name, {k: None if g is None else g.tolist() for k, g in grads.items()})
            )

        return hook

    original = torch.Tensor.backward

    def backward(self, *args, **kwargs) -> None:  # noqa: ANN001, ANN002, ANN003
        stack = [self.grad_fn]
        while stack:
            fn = stack.pop()
            if fn is None or fn in hooked:
                continue
            hooked.add(fn)
            fn.register_hook(read(fn.name().removeprefix("torch::autograd::")))
            stack.extend(n for n, _ in fn.next_functions)
        backwards.append([])
        original(self, *args, **kwargs)

    monkeypatch.setattr(torch.Tensor, "backward", backward)
    exec(RETAIN, namespace)  # the test's own snippet, run by PyTorch
    assert backwards == PYTORCH_REPLAY
    doc, ev, playhead = played(RETAIN)
    assert replay_grads(doc, ev, playhead) == backwards


def test_positions_and_events() -> None:
    _, ev, playhead = played(SEED_001)
    events: list[PlayheadEvent] = []
    playhead.subscribe(events.append)
    positions = playhead.positions()
    n = len(ev.steps)
    backward = ev.traces[0]
    assert [p for p in positions if p[1] is None] == [(i, None) for i in range(n - 1)] + [
        (-1, None)
    ]
    step = -1 if backward.step == n - 1 else backward.step
    replays = [r for s, r in positions if s == step and r is not None]
    assert replays == list(range(len(backward.executions) + 1))
    playhead.go_to_step(0)
    playhead.go_to_step(0)  # no change, no event
    assert events == [PositionChanged(0, None)]
    playhead.go_to_step(n + 5)  # clamped to the end
    assert (playhead.step, playhead.effective_step, playhead.at_end) == (-1, n - 1, True)
    playhead.go_to_replay(99)
    assert playhead.replay == len(backward.executions) == playhead.replayed
    count = len(events)
    playhead.set_evaluation(ev)  # one event: it stands for the new position too
    assert events[count:] == [EvaluationShown()]


def test_executing_grad_fn_its_node_touched_nodes_and_flows() -> None:
    doc, ev, playhead = played(SEED_001)
    ids = {label: doc.node_by_label(label).id for label in ("w", "x", "a", "b", "y")}
    trace = ev.traces[0]
    playhead.go_to_step(trace.step)
    assert playhead.current is None and playhead.touched_nodes() == frozenset()
    assert playhead.caption().replay == "backward ran 5 grad_fn nodes"
    playhead.go_to_replay(0)
    assert playhead.caption().replay == "grad_fn 0 / 5: backward about to start"
    assert playhead.edge_gradients() == {}
    playhead.go_to_replay(1)  # y's MulBackward0 sends gradients to a and b
    assert playhead.current.name == "MulBackward0"
    assert playhead.executing_node == ids["y"]
    assert playhead.touched_nodes() == {ids["y"], ids["a"], ids["b"]}
    assert playhead.caption().replay == "grad_fn 1 / 5: MulBackward0 → y"
    flows = playhead.edge_gradients()
    key = playhead.current.key
    assert flows[("next", key, 0)].value == [2.0]  # d(a*b)/da = b = w + 1
    assert flows[("next", key, 1)].value == [3.0]  # d(a*b)/db = a = w + x
    assert playhead.current_flows() >= {("next", key, 0), ("next", key, 1)}
    playhead.go_to_replay(4)  # AccumulateGrad of w: writes w.grad
    assert playhead.current.name == "AccumulateGrad"
    assert playhead.executing_node == ids["w"]
    assert ids["w"] in playhead.touched_nodes()
    assert playhead.facts(ids["w"]).grad.value == [5.0]
    assert playhead.facts(ids["x"]).grad is None
    caption = playhead.caption()
    assert (
        caption.text == f"{caption.step} · {caption.node} ({caption.node_type}) · {caption.replay}"
    )


def test_no_evaluation_answers_nothing() -> None:
    playhead = Playhead()
    assert playhead.snapshot() is None and playhead.trace_at() is None
    assert playhead.positions() == [] and playhead.caption().step == "no steps"
    playhead.go_to_step(3)
    playhead.go_to_replay(2)
    assert (playhead.step, playhead.replay) == (-1, None)


def test_a_rerun_keeps_the_replay_position_only_where_it_still_exists() -> None:
    doc, ev, playhead = played(SEED_001)
    playhead.go_to_step(ev.traces[0].step)
    playhead.go_to_replay(2)
    playhead.set_evaluation(evaluate(doc))  # the same graph again (live mode after an edit)
    assert (playhead.step, playhead.replay) == (-1, 2)
    assert playhead.current.name == "AddBackward0"
    playhead.set_evaluation(evaluate(import_snippet(SEED_001.replace("y.backward()\n", ""))))
    assert (playhead.step, playhead.replay) == (-1, None)
