"""The backward graph kept up to date along the timeline equals the graph walked afresh.

``ScrubModel`` follows the changes between two positions (and walks the graph
again after a long jump); the oracle is ``model_at``, which walks every grad_fn
reachable at the position.  At every step of every example, visited in order,
backwards, and in a scrambled order, the two must show the same boxes, links and
outputs, and the delta must be exactly what differs from the position before.
"""

from __future__ import annotations

import random

import pytest

from gradstudio.document.model import Document
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.grad_fn_index import index_for
from gradstudio.evaluation.results import Evaluation
from gradstudio.interchange.examples import EXAMPLES, build
from ui.backward.model import GraphModel, model_at
from ui.backward.scrub_model import ScrubModel


def random_graph(n: int, seed: int) -> Document:
    """Leaves, unary and binary ops on recent results, a sum and its backward (the
    shape of ``bench/bench_ui.py``'s graphs)."""
    rng = random.Random(seed)
    doc = Document()
    ids: list[str] = []
    for i in range(max(4, n // 20)):
        data = {"data": [rng.uniform(-1, 1) for _ in range(4)], "requires_grad": i % 2 == 0}
        node = doc.new_node("torch.tensor", (0, 0), data, f"p{i}")
        doc.add_node(node)
        ids.append(node.id)
    while len(ids) < n:
        recent = ids[-30:]
        if rng.random() < 0.45:
            node = doc.new_node(rng.choice(("torch.tanh", "torch.exp", "torch.neg")), (0, 0))
            doc.add_node(node)
            doc.connect(rng.choice(recent), "out", node.id, "input")
        else:
            node = doc.new_node(rng.choice(("torch.add", "torch.mul")), (0, 0))
            doc.add_node(node)
            a, b = rng.sample(recent, 2)
            doc.connect(a, "out", node.id, "input")
            doc.connect(b, "out", node.id, "other")
        ids.append(node.id)
    total = doc.new_node("torch.sum", (0, 0), label="loss")
    doc.add_node(total)
    doc.connect(ids[-1], "out", total.id, "input")
    backward = doc.new_node("Tensor.backward", (0, 0))
    doc.add_node(backward)
    doc.connect(total.id, "out", backward.id, "input")
    return doc


def same(scrubbed: GraphModel, walked: GraphModel) -> bool:
    by_flow = {link.flow: link for link in walked.links}
    return (
        scrubbed.boxes == walked.boxes
        and {link.flow: link for link in scrubbed.links} == by_flow
        and len(scrubbed.links) == len(walked.links)
        and sorted(scrubbed.layering) == sorted(walked.layering)
        and scrubbed.roots == walked.roots
    )


def walk(evaluation: Evaluation, order: list[int], show_saved: bool) -> None:
    index = index_for(evaluation)
    scrub = ScrubModel(evaluation, index, show_saved, {})
    before = GraphModel()
    for step in order:
        snapshot = evaluation.snapshot(step)
        delta = scrub.move_to(snapshot)
        now = scrub.model
        walked = model_at(evaluation, snapshot, index, show_saved, {})
        assert same(now, walked), step
        assert now.fn_count == walked.fn_count
        changed = {b for b in now.boxes if before.boxes.get(b) != now.boxes[b]}
        assert set(delta.boxes) >= changed, step
        assert all(now.boxes[b] == box for b, box in delta.boxes.items())
        assert delta.removed == before.boxes.keys() - now.boxes.keys(), step
        flows_before = {link.flow for link in before.links}
        flows_now = {link.flow for link in now.links}
        assert delta.links_added == flows_now - flows_before, step
        assert delta.links_removed == flows_before - flows_now, step
        assert delta.roots == before.roots ^ now.roots, step
        before = now


def orders(n: int, seed: str) -> list[int]:
    steps = list(range(n))
    rng = random.Random(seed)
    jumps = [rng.randrange(n) for _ in range(3 * n)]
    return steps + steps[::-1] + rng.sample(steps, n) + jumps


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
@pytest.mark.parametrize("show_saved", [True, False])
def test_the_scrubbed_model_is_the_walked_one_at_every_step(example, show_saved: bool) -> None:  # noqa: ANN001
    evaluation = evaluate(build(example))
    walk(evaluation, orders(len(evaluation.steps), example.name), show_saved)


def test_a_big_random_graph_scrubbed_step_by_step_and_by_jumps() -> None:
    """Hundreds of grad_fns, some outputs used by several nodes, a backward at the end:
    single steps follow the changes, long jumps walk afresh; both agree with the oracle."""
    evaluation = evaluate(random_graph(240, seed=3))
    n = len(evaluation.steps)
    rng = random.Random(5)
    order = [*range(n), n - 1, n // 2, n // 2 + 1, n // 2 - 1, 0, n - 1]
    order += [rng.randrange(n) for _ in range(60)] + list(range(n - 1, n - 40, -1))
    walk(evaluation, order, True)
