"""The document model: typed connections, the execution order and its validation."""

from __future__ import annotations

import pytest

from gradstudio.document.events import EdgeAdded, NodeAdded, NodeMoved, OrderChanged, ParamChanged
from gradstudio.document.model import Document
from gradstudio.document.values import EditError


def _chain(doc: Document) -> tuple[str, str, str]:
    x = doc.new_node("torch.tensor", label="x", params={"data": [1.0], "requires_grad": True})
    doc.add_node(x)
    y = doc.new_node("torch.mul", label="y", params={"other": 2})
    doc.add_node(y)
    doc.connect(x.id, "out", y.id, "input")
    s = doc.new_node("torch.sum", label="s")
    doc.add_node(s)
    doc.connect(y.id, "out", s.id, "input")
    return x.id, y.id, s.id


def test_new_nodes_go_last_with_unique_labels() -> None:
    doc = Document()
    a = doc.new_node("torch.add")
    doc.add_node(a)
    b = doc.new_node("torch.add")
    doc.add_node(b)
    assert doc.order == (a.id, b.id)
    assert (a.label, b.label) == ("add", "add_2")
    assert doc.step_of(b.id) == 1


def test_events_announce_every_change() -> None:
    doc = Document()
    events = []
    unsubscribe = doc.subscribe(events.append)
    x, y, _ = _chain(doc)
    doc.move_node(x, 10, 20)
    doc.set_param(y, "other", 3)
    unsubscribe()
    doc.move_node(x, 0, 0)
    kinds = [type(e) for e in events]
    assert kinds.count(NodeAdded) == 3 and kinds.count(EdgeAdded) == 2
    assert NodeMoved(x, 10.0, 20.0) in events
    assert ParamChanged(y, "other", 2, 3) in events
    assert not any(isinstance(e, NodeMoved) and e.x == 0 for e in events)


def test_positions_do_not_make_results_stale() -> None:
    doc = Document()
    x, _, _ = _chain(doc)
    revision = doc.revision
    doc.move_node(x, 5, 5)
    doc.set_label(x, "input")
    assert doc.revision == revision
    doc.set_param(x, "data", [2.0])
    assert doc.revision == revision + 1


def test_connect_refuses_cycles_naming_the_node() -> None:
    doc = Document()
    _, y, s = _chain(doc)
    z = doc.new_node("torch.mul", label="z")
    doc.add_node(z)
    doc.connect(s, "out", z.id, "input")
    with pytest.raises(EditError, match="cycle through node 'y'") as info:
        doc.connect(z.id, "out", y, "other")
    assert info.value.node_id == y
    with pytest.raises(EditError, match="cannot use its own output"):
        doc.connect(z.id, "out", z.id, "other")


def test_connect_refuses_wrong_port_types() -> None:
    doc = Document()
    x, _, _ = _chain(doc)
    grad = doc.new_node("torch.autograd.grad", label="g")
    doc.add_node(grad)
    pick = doc.new_node("gradstudio.select", label="pick")
    doc.add_node(pick)
    with pytest.raises(EditError, match="takes a list of tensors"):
        doc.connect(x, "out", pick.id, "list")
    assert doc.can_connect(grad.id, "grads", pick.id, "list") is None
    assert "no output" in (doc.can_connect(grad.id, "nope", pick.id, "list") or "")


def test_order_must_follow_data_flow() -> None:
    doc = Document()
    x, y, s = _chain(doc)
    with pytest.raises(EditError, match=r"node 'y' .* uses node 'x'"):
        doc.set_order([y, x, s])
    assert doc.allowed_steps(y) == range(1, 2)
    free = doc.new_node("torch.tensor", label="free")
    doc.add_node(free)
    assert doc.allowed_steps(free.id) == range(0, 4)
    doc.move_step(free.id, 0)
    assert doc.order[0] == free.id
    with pytest.raises(EditError, match="between steps"):
        doc.move_step(s, 0)


def test_connect_against_order_is_refused_by_the_document() -> None:
    doc = Document()
    late = doc.new_node("torch.mul", label="late")
    doc.add_node(late)
    early = doc.new_node("torch.tensor", label="early")
    doc.add_node(early)
    with pytest.raises(EditError, match="contradicts the data flow"):
        doc.connect(early.id, "out", late.id, "input")
    assert doc.order_with_edge(early.id, late.id) == [early.id, late.id]


def test_single_inputs_take_one_edge_variadic_many() -> None:
    doc = Document()
    x, y, _ = _chain(doc)
    with pytest.raises(EditError, match="already connected"):
        doc.connect(x, "out", y, "input")
    cat = doc.new_node("torch.cat", label="c")
    doc.add_node(cat)
    e1 = doc.connect(x, "out", cat.id, "tensors")
    e2 = doc.connect(y, "out", cat.id, "tensors")
    assert (e1.slot, e2.slot) == (0, 1)
    assert doc.inputs_of(cat.id, "tensors") == [e1, e2]


def test_params_are_checked() -> None:
    doc = Document()
    x, y, _ = _chain(doc)
    with pytest.raises(EditError, match="parameter 'data'"):
        doc.set_param(x, "data", "not data")
    with pytest.raises(EditError, match="no parameter"):
        doc.set_param(x, "nope", 1)
    with pytest.raises(EditError, match="already labelled"):
        doc.set_label(y, "x")


def test_remove_node_removes_its_edges() -> None:
    doc = Document()
    _, y, s = _chain(doc)
    doc.remove_node(y)
    assert doc.edges() == []
    assert doc.order[-1] == s
    assert doc.validate() == []


def test_settings_are_checked() -> None:
    doc = Document()
    events = []
    doc.subscribe(events.append)
    doc.set_setting("device", "cuda")
    assert doc.settings["device"] == "cuda"
    with pytest.raises(EditError):
        doc.set_setting("device", "tpu")
    assert not any(isinstance(e, OrderChanged) for e in events)


def test_a_documents_nodes_read_its_own_catalogue() -> None:
    """A document made with its own catalogue answers with that catalogue's types, never
    the studio-wide one's."""
    from dataclasses import replace

    from gradstudio.catalogue import Catalogue, catalogue

    studio = catalogue()
    renamed = replace(studio.get("torch.add"), title="plus (own catalogue)")
    own = Catalogue([renamed, *(t for t in studio.types() if t.id != "torch.add")])
    doc = Document(own)
    node = doc.new_node("torch.add")
    doc.add_node(node)
    assert doc.node(node.id).type.title == "plus (own catalogue)"
    assert studio.get("torch.add").title != "plus (own catalogue)"
