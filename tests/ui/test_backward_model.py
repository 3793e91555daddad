"""The backward-graph layout on plain data: layers, spacing, crossings, and inputs it must
survive."""

from __future__ import annotations

import itertools

import pytest

from gradstudio.document.layered import count_crossings, make_proper
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.grad_fn_index import index_for
from gradstudio.interchange.examples import EXAMPLES, build
from ui.backward.model import (
    NODE_GAP,
    Box,
    GraphModel,
    arrange,
    layers_of,
    layout,
    union_model,
)


def chain_model(names: list[str], extra: tuple[tuple[str, str], ...] = ()) -> GraphModel:
    model = GraphModel()
    for name in names:
        model.boxes[("fn", name)] = Box(("fn", name), "fn", name)
    pairs = list(itertools.pairwise(names)) + list(extra)
    model.layering = [(("fn", a), ("fn", b)) for a, b in pairs]
    return model


def sizes_of(model: GraphModel) -> dict:
    return {box_id: (80.0, 30.0) for box_id in model.boxes}


def test_layers_follow_the_layering_edges_and_never_overlap() -> None:
    model = chain_model(["out", "mul", "add"], extra=(("out", "a"), ("mul", "b"), ("mul", "c")))
    for name in "abc":
        model.boxes[("fn", name)] = Box(("fn", name), "fn", name)
    pos = layout(model, sizes_of(model), vertical=True)
    assert set(pos) == set(model.boxes)
    y = {box_id[1]: yx[1] for box_id, yx in pos.items()}
    assert y["out"] > y["mul"] > y["add"]  # outputs at the bottom, like torchviz
    assert y["b"] == y["c"] == y["add"]
    row = sorted(pos[("fn", n)][0] for n in ("add", "b", "c"))
    assert all(b - a >= 80.0 + NODE_GAP - 1e-9 for a, b in itertools.pairwise(row))
    across = layout(model, sizes_of(model), vertical=False)
    assert across[("fn", "out")][0] > across[("fn", "add")][0]


def test_repeated_edges_count_once() -> None:
    once = chain_model(["a", "b", "c"], extra=(("a", "c"),))
    twice = chain_model(["a", "b", "c"], extra=(("a", "c"), ("a", "c"), ("a", "b")))
    assert layout(once, sizes_of(once)) == layout(twice, sizes_of(twice))


def test_a_cycle_is_laid_out_anyway() -> None:
    """Autograd graphs are acyclic; a broken model must still place every box, not hang."""
    model = chain_model(["a", "b", "c"], extra=(("c", "a"), ("b", "b")))
    pos = layout(model, sizes_of(model))
    assert set(pos) == set(model.boxes)
    assert len({p for p in pos.values()}) == 3


def test_an_unused_branch_sits_next_to_its_input_not_in_the_output_row() -> None:
    """``d = tanh(h3)`` computed and never used: its box goes beside h3, not to the top."""
    model = chain_model(["loss", "h5", "h4", "h3", "h2", "h1", "acc", "leaf"])
    for name in ("d", "tanh"):
        model.boxes[("fn", name)] = Box(("fn", name), "fn", name)
    model.layering += [(("fn", "d"), ("fn", "tanh")), (("fn", "tanh"), ("fn", "h3"))]
    pos = layout(model, sizes_of(model), vertical=True)
    y = {box_id[1]: yx[1] for box_id, yx in pos.items()}
    assert y["tanh"] == y["h4"] and y["d"] == y["h5"]
    assert y["loss"] == max(y.values())  # the real output alone in the bottom row


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_examples_are_drawn_without_crossings_or_overlaps(example) -> None:  # noqa: ANN001
    """Every example's backward graph (the MLP step's 21 boxes included) has no crossing,
    and no two boxes overlap, top-to-bottom or left-to-right."""
    evaluation = evaluate(build(example))
    model = union_model(evaluation, index_for(evaluation))
    sizes = {box_id: (60.0 + 7.0 * len(box.title), 34.0) for box_id, box in model.boxes.items()}
    for vertical in (True, False):
        placement = arrange(model, sizes, vertical)
        assert placement.crossings == 0
        rects = [
            (x - sizes[b][0] / 2, y - sizes[b][1] / 2, x + sizes[b][0] / 2, y + sizes[b][1] / 2)
            for b, (x, y) in placement.positions.items()
        ]
        for a, b in itertools.combinations(rects, 2):
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)


def test_the_mlp_step_untangles() -> None:
    """The MLP step's graph as first ordered crosses itself; the layout removes them all."""
    example = next(e for e in EXAMPLES if e.name.startswith("005"))
    evaluation = evaluate(build(example))
    model = union_model(evaluation, index_for(evaluation))
    layers, succ, _ = layers_of(model)
    first = {box_id: i for i, box_id in enumerate(model.boxes)}
    edges = [(a, b) for a in model.boxes for b in succ[a]]
    given = make_proper([sorted(layer, key=first.__getitem__) for layer in layers], edges)
    assert count_crossings(given) >= 3
    sizes = dict.fromkeys(model.boxes, (100.0, 30.0))
    assert arrange(model, sizes).crossings == 0


def test_a_long_edge_is_routed_between_the_layers_it_spans() -> None:
    """``out → a`` spans two layers: it gets one waypoint, in the middle layer's row."""
    model = chain_model(["out", "mid", "a"], extra=(("out", "a"),))
    pos = arrange(model, sizes_of(model), vertical=True)
    route = pos.routes[(("fn", "out"), ("fn", "a"))]
    assert len(route) == 1 and route[0][1] == pos.positions[("fn", "mid")][1]
    assert abs(route[0][0] - pos.positions[("fn", "mid")][0]) >= 40.0 + NODE_GAP


def test_the_memo_keeps_what_equal_grad_fns_share_and_stays_bounded() -> None:
    from ui.backward.model import Memo, prune_memo, union_model

    memo: Memo = {}
    evaluations = [evaluate(build(e)) for e in EXAMPLES] * 2
    for ev in evaluations:
        prune_memo(memo)
        assert not any(type(k) is int for k in memo)  # no grad_fn object of a run before
        model = union_model(ev, index_for(ev), memo=memo)
        drawn = sum(1 for k in memo if type(k) is int)
        assert len(memo) - drawn <= 3 * drawn + 1000
    prune_memo(memo)
    rerun = evaluate(build(EXAMPLES[-1]))  # new facts objects, equal grad_fns
    again = union_model(rerun, index_for(rerun), memo=memo)
    assert all(again.boxes[k] is box for k, box in model.boxes.items() if k[0] == "fn")
