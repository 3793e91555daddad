"""The backward-graph layout on plain data: layers, spacing, and inputs it must survive."""

from __future__ import annotations

import itertools

from ui.backward.model import NODE_GAP, Box, GraphModel, layout


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
