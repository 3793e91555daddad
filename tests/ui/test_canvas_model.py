"""The canvas's pure parts: value formatting, search ranking, layout vs. card sizes, port rules."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from gradstudio.catalogue import PortType, catalogue
from gradstudio.document.commands import AutoLayoutCommand
from gradstudio.document.layout import ROW_GAP, default_card_size
from gradstudio.document.model import Document
from gradstudio.interchange.examples import EXAMPLES, EXAMPLES_DIR
from gradstudio.interchange.fileformat import EXTENSION, loads
from tests.ui.uitools import add_source
from ui.canvas.layout import card_sizes, overlaps
from ui.canvas.node_facts import format_array, format_shape
from ui.canvas.style import NODE_WIDTH, card_height
from ui.palette.type_search import accepting, display_names, first_port, search

pytestmark = pytest.mark.gui

EXAMPLE_FILES = [EXAMPLES_DIR / f"{e.name}{EXTENSION}" for e in EXAMPLES]


@pytest.mark.parametrize(
    ("array", "text"),
    [
        (np.array(5.0, dtype=np.float32), "5."),
        (np.array([1.0, 2.5], dtype=np.float32), "[1., 2.5]"),
        (np.array([1, 2], dtype=np.int64), "[1, 2]"),
        (np.array([True, False]), "[True, False]"),
        (np.arange(10, dtype=np.float64), "[0., 1., 2., 3., 4., 5., …]"),
        (np.zeros((2, 2), dtype=np.float32), "[[0., 0.], [0., 0.]]"),
        (np.array([], dtype=np.float32), "[]"),
        (np.array([np.nan, np.inf, -np.inf]), "[nan, inf, -inf]"),
        (np.array([0.123456]), "[0.1235]"),
    ],
)
def test_values_are_written_like_pytorch(array: np.ndarray, text: str) -> None:
    assert format_array(array) == text


def test_shapes() -> None:
    assert format_shape(()) == "scalar"
    assert format_shape((3,)) == "(3,)"
    assert format_shape((2, 3)) == "(2, 3)"


def test_search_ranks_titles_first_and_understands_f_prefix() -> None:
    types = catalogue().types()
    assert search(types, "add")[0].id == "torch.add"
    assert search(types, "F.linear")[0].id == "torch.nn.functional.linear"
    assert search(types, "backward")[0].id == "Tensor.backward"
    assert search(types, "")[0].id == types[0].id
    assert search(types, "zzzzqq") == []


def test_duplicate_titles_are_qualified() -> None:
    names = display_names(catalogue().types())
    assert names["torch.nn.functional.relu"] == "F.relu"
    assert names["torch.relu"] == "torch.relu"
    assert names["torch.add"] == "add"


def test_wire_filters_and_ports() -> None:
    cat = catalogue()
    takes_tensor = accepting(PortType.TENSOR, from_output=True)
    assert takes_tensor(cat.get("torch.exp"))
    assert not takes_tensor(cat.get("torch.tensor"))
    gives_list = accepting(PortType.TENSORS, from_output=False)
    assert gives_list(cat.get("torch.autograd.grad"))
    assert first_port(cat.get("torch.add"), PortType.TENSOR, inputs=True) == "input"
    assert first_port(cat.get("gradstudio.select"), PortType.TENSORS, inputs=True) == "list"


def test_auto_layout_lays_out_overlapping_cards_with_their_real_heights() -> None:
    doc = Document()
    for i in range(4):
        doc.add_node(doc.new_node("torch.add", (0, i * 10.0)))
    assert overlaps(doc)
    AutoLayoutCommand(doc, card_sizes(doc)).redo()
    assert not overlaps(doc)
    height = card_height(catalogue().get("torch.add"))
    ys = sorted(n.y for n in doc.nodes())
    assert all(b - a == height + ROW_GAP for a, b in itertools.pairwise(ys))
    assert AutoLayoutCommand(doc, card_sizes(doc)).moves_nothing  # already tidy: left alone


def test_the_core_default_card_size_holds_every_studio_card() -> None:
    for node_type in catalogue().types():
        width, height = default_card_size(node_type)
        assert width >= NODE_WIDTH and height >= card_height(node_type), node_type.id


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_shipped_examples_open_without_tidying(path: Path) -> None:
    """The importer's default card size leaves room for the studio's real cards."""
    assert not overlaps(loads(path.read_text("utf-8")))


def test_port_tooltips_explain_types(window) -> None:  # noqa: ANN001
    a = window.canvas.add_node("torch.add", QPointF(0, 0))
    item = window.canvas.graph_scene.node_item(a)
    other = item.port("other", True)
    assert "a tensor" in other.describe(1)
    assert "or a number (now 1)" in other.describe(1)
    grad = window.canvas.add_node("torch.autograd.grad", QPointF(400, 0))
    grads = window.canvas.graph_scene.node_item(grad).port("grads", False)
    assert "a list of tensors" in grads.describe()


def test_cards_show_source_setup_before_running(window) -> None:  # noqa: ANN001
    a = add_source(window, "a", [1.0, 2.0], True)
    facts = window.canvas.graph_scene.facts_of(a)
    assert facts.status == "none"
    item = window.canvas.graph_scene.node_item(a)
    assert item.height == card_height(item.node_type)
