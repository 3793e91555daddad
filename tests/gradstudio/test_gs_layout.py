"""Auto-layout, headless: columns by data flow and time, rows stacked by card sizes."""

from __future__ import annotations

import itertools

from gradstudio.catalogue import catalogue
from gradstudio.document.commands import AutoLayoutCommand
from gradstudio.document.layout import (
    COLUMN_GAP,
    DEFAULT_CARD_WIDTH,
    ROW_GAP,
    auto_layout,
    columns_by_flow_and_time,
    default_card_size,
)
from gradstudio.document.model import Document
from gradstudio.document.undo import UndoStack
from gradstudio.interchange.pytorch_import import import_snippet

BACKWARD = """\
import torch
w = torch.tensor([1.], requires_grad=True)
y = (w * 3).sum()
y.backward()
g = w.grad
"""


def _stack_of(n: int, type_id: str = "torch.add") -> Document:
    doc = Document()
    for i in range(n):
        doc.add_node(doc.new_node(type_id, (0, i * 10.0)))
    return doc


def _boxes_overlap(doc: Document, positions: dict[str, tuple[float, float]]) -> bool:
    boxes = []
    for node in doc.nodes():
        w, h = default_card_size(node.type)
        x, y = positions[node.id]
        boxes.append((x, y, x + w, y + h))
    return any(
        a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
        for a, b in itertools.combinations(boxes, 2)
    )


def test_layout_places_reads_after_backward_to_its_right() -> None:
    doc = import_snippet(BACKWARD)
    col = columns_by_flow_and_time(doc, doc.graph)
    by_label = {n.label: col[n.id] for n in doc.nodes()}
    backward = next(n.id for n in doc.nodes() if n.type_id == "Tensor.backward")
    assert by_label["g"] > col[backward] > by_label["y"] > by_label["w"]


def test_layout_stacks_cards_by_their_given_heights() -> None:
    doc = _stack_of(4)
    ids = list(doc.order)
    heights = dict(zip(ids, (100.0, 300.0, 50.0, 120.0)))
    positions = auto_layout(doc, {n: (196.0, h) for n, h in heights.items()})
    assert {x for x, _ in positions.values()} == {0.0}
    ys = [positions[n][1] for n in ids]  # one column, in step order
    assert all(b - a == heights[n] + ROW_GAP for n, (a, b) in zip(ids, itertools.pairwise(ys)))


def test_layout_without_sizes_uses_the_default_card_size() -> None:
    doc = _stack_of(3, "torch.exp")
    (_, h) = default_card_size(catalogue().get("torch.exp"))
    ys = sorted(y for _, y in auto_layout(doc).values())
    assert all(b - a == h + ROW_GAP for a, b in itertools.pairwise(ys))


def test_default_card_size_grows_with_port_rows() -> None:
    cat = catalogue()
    one_row = default_card_size(cat.get("torch.exp"))
    three_rows = next(t for t in cat.types() if len(t.inputs) == 3)
    assert one_row[0] == default_card_size(three_rows)[0] == DEFAULT_CARD_WIDTH
    assert default_card_size(three_rows)[1] > one_row[1]


def test_a_wide_card_widens_its_column() -> None:
    doc = import_snippet("import torch\nw = torch.tensor([1.])\ny = torch.exp(w)\n")
    w, y = (doc.node_by_label(label) for label in "wy")
    assert w is not None and y is not None
    positions = auto_layout(doc, {w.id: (300.0, 100.0), y.id: (196.0, 100.0)})
    assert positions[y.id][0] == 300.0 + COLUMN_GAP
    assert auto_layout(doc)[y.id][0] == DEFAULT_CARD_WIDTH + COLUMN_GAP


def test_imported_snippets_are_laid_out_without_overlaps() -> None:
    doc = import_snippet(BACKWARD + "z = torch.add(w, g)\nq = torch.mul(z, z)\n")
    assert not _boxes_overlap(doc, {n.id: n.position for n in doc.nodes()})


def test_auto_layout_command_passes_sizes_and_records_only_moves() -> None:
    doc, stack = _stack_of(3), UndoStack()
    before = {n.id: n.position for n in doc.nodes()}
    sizes = {n: (196.0, 200.0) for n in doc.order}
    command = AutoLayoutCommand(doc, sizes)
    assert not command.moves_nothing and command.text == "Auto-layout"
    stack.push(command)
    ys = sorted(n.y for n in doc.nodes())
    assert all(b - a == 200.0 + ROW_GAP for a, b in itertools.pairwise(ys))
    assert AutoLayoutCommand(doc, sizes).moves_nothing  # already laid out
    assert not AutoLayoutCommand(doc).moves_nothing  # default heights differ
    stack.undo()
    assert {n.id: n.position for n in doc.nodes()} == before


def test_new_nodes_land_in_the_nearest_free_spot() -> None:
    """Backward from the same node twice does not stack the second on the first, and a
    spot already free is kept."""
    from gradstudio.document.autograd_edits import backward_from
    from gradstudio.document.layout import default_card_size, free_spot
    from gradstudio.document.model import Document

    doc = Document(trusted=True)
    x = doc.new_node("torch.ones", (0, 0), {"size": []}, "x")
    doc.add_node(x)
    first = backward_from(doc, x.id)
    first.redo()
    second = backward_from(doc, x.id)
    second.redo()
    a, b = [n for n in doc.nodes() if n.type_id == "Tensor.backward"]
    w, h = default_card_size(a.type)
    assert abs(a.x - b.x) >= w or abs(a.y - b.y) >= h  # side by side, not on top
    ones = doc.catalogue.get("torch.ones")
    assert free_spot(doc, ones, 5000.0, 5000.0) == (5000.0, 5000.0)


def _wire_crossings(doc: Document, positions: dict[str, tuple[float, float]]) -> int:
    """Wires drawn straight from a card's right side to the next card's left side."""

    def side(a: tuple, b: tuple, c: tuple) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    wires = []
    for u, v, *_ in doc.graph.edges:
        (wu, hu), (_, hv) = default_card_size(doc.node(u).type), default_card_size(doc.node(v).type)
        wires.append(
            (
                (positions[u][0] + wu, positions[u][1] + hu / 2),
                (positions[v][0], positions[v][1] + hv / 2),
            )
        )
    return sum(
        side(c, d, a) * side(c, d, b) < 0 and side(a, b, c) * side(a, b, d) < 0
        for (a, b), (c, d) in itertools.combinations(wires, 2)
    )


def test_auto_layout_orders_columns_against_wire_crossings() -> None:
    """The backward graph's ordering step orders the canvas too: the MLP step's 27 cards
    had 18 crossing wires (barycentre rows); now at most 5, and the other examples none."""
    from gradstudio.interchange.examples import EXAMPLES, build

    for example in EXAMPLES:
        doc = build(example)
        positions = auto_layout(doc)
        assert not _boxes_overlap(doc, positions)
        most = 5 if example.name.startswith("005") else 0
        assert _wire_crossings(doc, positions) <= most, example.name
