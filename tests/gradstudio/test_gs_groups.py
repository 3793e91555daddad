"""Groups: the document's rules and events, the commands and undo, clipboard, file v3."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gradstudio.document.clipboard import copy_nodes
from gradstudio.document.commands import PasteCommand, RemoveNodesCommand
from gradstudio.document.events import (
    DocumentEvent,
    GroupAdded,
    GroupChanged,
    GroupRemoved,
    NodeRemoved,
)
from gradstudio.document.group_commands import (
    CollapseGroupCommand,
    DeleteGroupCommand,
    GroupCommand,
    MoveGroupCommand,
    RecolorGroupCommand,
    RenameGroupCommand,
    UngroupCommand,
)
from gradstudio.document.groups import MAX_DEPTH, Group
from gradstudio.document.model import Document
from gradstudio.document.undo import UndoStack
from gradstudio.document.values import EditError
from gradstudio.interchange.fileformat import (
    VERSION,
    DocumentError,
    dumps,
    from_json,
    loads,
    to_json,
)
from gradstudio.interchange.pytorch_export import export_script
from gradstudio.interchange.pytorch_import import import_snippet

SNIPPET = """\
import torch
w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)
a = torch.add(w, x)
b = torch.add(w, 1)
y = torch.mul(a, b)
y.backward()
"""


@pytest.fixture
def doc() -> Document:
    return import_snippet(SNIPPET)


def ids(doc: Document, *labels: str) -> list[str]:
    return [doc.node_by_label(label).id for label in labels]  # type: ignore[union-attr]


def recorded(doc: Document) -> list[DocumentEvent]:
    events: list[DocumentEvent] = []
    doc.subscribe(events.append)
    return events


def state(doc: Document) -> dict[str, Any]:
    return to_json(doc)


# ------------------------------------------------------------------------ document


def test_nested_groups_added_as_a_batch_in_any_order(doc: Document) -> None:
    w, x, a = ids(doc, "w", "x", "a")
    events = recorded(doc)
    revision = doc.revision
    doc.add_groups(
        [
            Group("inner", "inputs", {w, x}, parent="outer"),
            Group("outer", "model.fc1 (Linear)", {a}, kind="module", meta={"class": "Linear"}),
        ]
    )
    assert doc.group_of(w).id == "inner"  # type: ignore[union-attr]
    assert doc.group_of(a).id == "outer"  # type: ignore[union-attr]
    assert doc.group_of(ids(doc, "y")[0]) is None
    assert doc.group_members("outer") == {w, x, a}
    assert doc.group_children("outer") == ["inner"]
    assert events == [GroupAdded("outer"), GroupAdded("inner")]  # parents first
    assert doc.revision == revision  # a frame never changes what the graph computes
    with pytest.raises(TypeError):
        doc.groups["x"] = Group("x", "t", {w})  # type: ignore[index]


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        ([Group("g", "t", {"nope"})], "'nope', which is not a node"),
        ([Group("g", "t", {"n1"}), Group("h", "u", {"n1"})], "is in both group 't' and group 'u'"),
        (
            [Group("g", "t", {"n1"}, parent="h"), Group("h", "u", {"n2"}, parent="g")],
            "nested inside itself",
        ),
        ([Group("g", "t", {"n1"}, parent="zz")], "'zz', which is not a group"),
        ([Group("g", "t", frozenset())], "holds no node"),
        ([Group("g", "", {"n1"})], "group title"),
        ([Group("g", "two\nlines", {"n1"})], "group title"),
        ([Group("g", "x" * 201, {"n1"})], "group title"),
        ([Group("g", "t", {"n1"}, color="red")], "#rrggbb"),
        ([Group("g", "t", {"n1"}, kind="class")], "kind must be one of"),
        ([Group("g", "t", {"n1"}, meta={"k": 3})], "meta entries are texts"),  # type: ignore[dict-item]
        ([Group("1bad id", "t", {"n1"})], "not a valid group id"),
        ([Group("g", "t", {"n1"}), Group("g", "t", {"n2"})], "already exists"),
    ],
)
def test_invalid_groups_are_refused_with_a_reason(
    doc: Document, groups: list[Group], message: str
) -> None:
    before = dict(doc.groups)
    with pytest.raises(EditError, match=message):
        doc.add_groups(groups)
    assert dict(doc.groups) == before


def test_colour_is_normalised_and_update_is_checked(doc: Document) -> None:
    w, x = ids(doc, "w", "x")
    doc.add_group(Group("g", "t", {w}, color="#AbCdEf"))
    assert doc.group("g").color == "#abcdef"
    events = recorded(doc)
    doc.update_group("g", title="renamed", members={w, x})
    assert doc.group("g").members == {w, x}
    assert isinstance(events[-1], GroupChanged) and events[-1].new.title == "renamed"
    with pytest.raises(EditError, match="#rrggbb"):
        doc.update_group("g", color="#12345")
    with pytest.raises(EditError, match="id cannot change"):
        doc.update_group("g", id="h")
    with pytest.raises(EditError, match="no group"):
        doc.update_group("zz", title="x")


def test_removing_nodes_empties_and_drops_groups_up_the_chain(doc: Document) -> None:
    w, x, a = ids(doc, "w", "x", "a")
    doc.add_groups([Group("outer", "o", set()), Group("inner", "i", {w}, parent="outer")])
    doc.add_group(Group("side", "s", {x, a}))
    events = recorded(doc)
    doc.remove_node(x)
    assert doc.group("side").members == {a}
    stack = UndoStack()
    stack.push(RemoveNodesCommand(doc, [w]))
    assert set(doc.groups) == {"side"}  # inner emptied, then outer (which held only it)
    assert [e for e in events if isinstance(e, GroupRemoved)] == [
        GroupRemoved("inner"),
        GroupRemoved("outer"),
    ]
    assert NodeRemoved(w) in events
    stack.undo()
    assert doc.group_of(w).id == "inner"  # type: ignore[union-attr]
    assert doc.group("inner").parent == "outer"


def test_remove_group_keeps_members_and_lifts_children(doc: Document) -> None:
    w, x, a = ids(doc, "w", "x", "a")
    doc.add_groups(
        [
            Group("top", "t", {a}),
            Group("mid", "m", {x}, parent="top"),
            Group("low", "l", {w}, parent="mid"),
        ]
    )
    doc.remove_group("mid")
    assert doc.group("low").parent == "top"
    assert doc.group_of(x) is None and x in doc


def test_reset_takes_the_groups_over(doc: Document) -> None:
    doc.add_group(Group("g", "t", set(ids(doc, "w"))))
    other = Document()
    other.reset(doc)
    assert other.groups == doc.groups and other.group_of(ids(doc, "w")[0]) is not None


# ------------------------------------------------------------------------ commands


def test_group_command_undo_redo(doc: Document) -> None:
    w, x = ids(doc, "w", "x")
    before = state(doc)
    stack = UndoStack()
    cmd = GroupCommand(doc, [w, x], "inputs")
    stack.push(cmd)
    after = state(doc)
    assert doc.group(cmd.group_id).members == {w, x}
    assert stack.undo_text == "Group 2 nodes"
    stack.undo()
    assert state(doc) == before and not doc.groups
    stack.redo()
    assert state(doc) == after


def test_grouping_inside_a_frame_nests_and_a_whole_frame_goes_inside(doc: Document) -> None:
    w, x, a, b = ids(doc, "w", "x", "a", "b")
    stack = UndoStack()
    outer = GroupCommand(doc, [w, x, a], "outer")
    stack.push(outer)
    inner = GroupCommand(doc, [w, x], "inner")
    stack.push(inner)
    assert doc.group(inner.group_id).parent == outer.group_id
    assert doc.group(outer.group_id).members == {a}
    # the whole outer frame (all its nodes) plus b: the frame nests whole
    around = GroupCommand(doc, [w, x, a, b], "around")
    stack.push(around)
    assert doc.group(outer.group_id).parent == around.group_id
    assert doc.group(around.group_id).members == {b}
    assert doc.group(inner.group_id).members == {w, x}  # untouched inside
    stack.undo()
    stack.undo()
    assert doc.group(outer.group_id).members == {w, x, a}


def test_grouping_nothing_is_refused(doc: Document) -> None:
    with pytest.raises(EditError, match="select the nodes"):
        GroupCommand(doc, [])


def test_ungroup_rename_recolour_collapse_are_undoable(doc: Document) -> None:
    w, x = ids(doc, "w", "x")
    stack = UndoStack()
    cmd = GroupCommand(doc, [w, x], "g")
    stack.push(cmd)
    gid = cmd.group_id
    stack.push(RenameGroupCommand(doc, gid, "inputs"))
    stack.push(RecolorGroupCommand(doc, gid, "#FF8800"))
    stack.push(CollapseGroupCommand(doc, gid, True))
    group = doc.group(gid)
    assert (group.title, group.color, group.collapsed) == ("inputs", "#ff8800", True)
    with pytest.raises(EditError, match="group title"):
        RenameGroupCommand(doc, gid, "  ")
    with pytest.raises(EditError, match="#rrggbb"):
        RecolorGroupCommand(doc, gid, "orange")
    stack.push(UngroupCommand(doc, gid))
    assert not doc.groups and w in doc
    for expected in [("inputs", "#ff8800", True), ("inputs", "#ff8800", False)]:
        stack.undo()
        group = doc.group(gid)
        assert (group.title, group.color, group.collapsed) == expected
    stack.undo()
    stack.undo()
    assert doc.group(gid).title == "g" and doc.group(gid).color is None


def test_moving_a_group_moves_every_node_inside_in_one_step(doc: Document) -> None:
    w, x, a = ids(doc, "w", "x", "a")
    doc.add_groups([Group("o", "o", {a}), Group("i", "i", {w, x}, parent="o")])
    start = {n: doc.node(n).position for n in (w, x, a)}
    stack = UndoStack()
    for _ in range(5):  # a drag: one push per mouse move
        stack.push(MoveGroupCommand(doc, "o", 10, -2))
    assert len(stack) == 1
    for n, (x0, y0) in start.items():
        assert doc.node(n).position == (x0 + 50, y0 - 10)
    stack.undo()
    assert {n: doc.node(n).position for n in start} == start


def test_delete_group_with_its_nodes_is_one_undo_step(doc: Document) -> None:
    w, x, a = ids(doc, "w", "x", "a")
    doc.add_groups([Group("o", "o", {a}), Group("i", "i", {w, x}, parent="o")])
    before = state(doc)
    stack = UndoStack()
    stack.push(DeleteGroupCommand(doc, "o"))
    assert not doc.groups and w not in doc and a not in doc
    assert stack.undo_text == "Delete group o"
    stack.undo()
    assert state(doc) == before
    stack.redo()
    assert not doc.groups


# ----------------------------------------------------------------------- clipboard


def test_copy_paste_of_a_whole_group_keeps_it_with_new_ids(doc: Document) -> None:
    w, x, a = ids(doc, "w", "x", "a")
    doc.add_groups(
        [Group("o", "layer", {a}, color="#112233"), Group("i", "in", {w, x}, parent="o")]
    )
    text = copy_nodes(doc, [w, x, a])
    stack = UndoStack()
    paste = PasteCommand(doc, text)
    stack.push(paste)
    new = [g for gid, g in doc.groups.items() if gid not in ("o", "i")]
    assert sorted(g.title for g in new) == ["in", "layer"]
    by_title = {g.title: g for g in new}
    assert by_title["in"].parent == by_title["layer"].id
    assert by_title["layer"].color == "#112233"
    assert doc.group_members(by_title["layer"].id) == set(paste.node_ids)
    stack.undo()
    assert set(doc.groups) == {"o", "i"}


def test_copying_part_of_a_group_copies_no_frame(doc: Document) -> None:
    w, x, a = ids(doc, "w", "x", "a")
    doc.add_groups([Group("o", "layer", {a}), Group("i", "in", {w, x}, parent="o")])
    data = json.loads(copy_nodes(doc, [w, x]))
    assert [(g["title"], g.get("parent")) for g in data["groups"]] == [("in", None)]
    assert json.loads(copy_nodes(doc, [w]))["groups"] == []


@pytest.mark.parametrize(
    "groups",
    [
        [{"id": "g", "title": "t", "members": ["elsewhere"]}],
        [{"id": "g", "title": "t", "members": ["a"], "parent": "g"}],
        [{"id": "g", "title": "t", "members": "a"}],
        [{"id": "g", "title": "\x1b[2J", "members": ["a"]}],
        [{"id": "g", "title": "t", "members": [["a"]]}],
    ],
)
def test_damaged_clipboard_groups_are_one_clear_error(
    doc: Document, groups: list[dict[str, Any]]
) -> None:
    text = json.dumps(
        {
            "format": "gradstudio-clipboard",
            "nodes": [
                {"id": "a", "type": "torch.ones", "label": "a", "params": {}, "position": [0, 0]}
            ],
            "edges": [],
            "groups": groups,
        }
    )
    with pytest.raises(EditError) as caught:
        PasteCommand(doc, text)
    assert "\n" not in str(caught.value)


# ------------------------------------------------------------------------- file v3


def grouped_json(doc: Document) -> dict[str, Any]:
    w, x, a = ids(doc, "w", "x", "a")
    doc.add_groups(
        [
            Group(
                "o", "model.fc1 (Linear)", {a}, "#336699", True, "module", None, {"class": "Linear"}
            ),
            Group("i", "loop ×3", {w, x}, kind="loop", parent="o", meta={"iterations": "3"}),
        ]
    )
    return to_json(doc)


def test_groups_round_trip_through_the_file(doc: Document) -> None:
    data = grouped_json(doc)
    assert data["version"] == VERSION == 4
    again = loads(dumps(doc))
    assert again.groups == doc.groups
    assert to_json(again) == data


def test_version_2_files_migrate_to_empty_groups(doc: Document) -> None:
    data = to_json(doc)
    data["version"] = 2
    del data["groups"]
    migrated = from_json(data, "old.gstudio")
    assert not migrated.groups
    assert to_json(migrated)["groups"] == [] and to_json(migrated)["version"] == VERSION


def test_groups_are_refused_in_a_version_2_file(doc: Document) -> None:
    data = grouped_json(doc)
    data["version"] = 2
    with pytest.raises(DocumentError):
        from_json(data, "old.gstudio")


def _with_groups(doc: Document, groups: Any) -> str:
    data = to_json(doc)
    data["groups"] = groups
    return json.dumps(data)


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        ([{"id": "g", "title": "t", "members": ["zz"]}], "not a node (at groups/0/members/0)"),
        (
            [
                {"id": "g", "title": "t", "members": ["n1"]},
                {"id": "g", "title": "u", "members": ["n2"]},
            ],
            "two groups have the id 'g' (at groups/1)",
        ),
        (
            [
                {"id": "g", "title": "t", "members": ["n1"], "parent": "h"},
                {"id": "h", "title": "u", "members": ["n2"], "parent": "g"},
            ],
            "nested inside itself (at groups)",
        ),
        ([{"id": "g", "title": "t", "members": ["n1", "n1"]}], "lists a node twice (at groups/0)"),
        (
            [
                {"id": "g", "title": "t", "members": ["n1"]},
                {"id": "h", "title": "u", "members": ["n1"]},
            ],
            "in two groups, 't' and 'u' (at groups/1/members/0)",
        ),
        ([{"id": "g", "title": "t", "members": ["n1"], "parent": "q"}], "(at groups/0/parent)"),
        ([{"id": "g", "title": "t", "members": []}], "holds no node (at groups)"),
        ([{"id": "g", "title": "t", "members": ["n1"], "color": "blue"}], "(at groups/0/color)"),
        ([{"id": "g", "title": "t\u2028x", "members": ["n1"]}], "group title"),
        ([{"id": "g", "title": "t", "members": ["n1"], "kind": "class"}], "(at groups/0/kind)"),
        ({"id": "g"}, "(at groups)"),
        ([{"id": "g", "title": "t", "members": ["n1"], "meta": {"k": 1}}], "(at groups/0/meta/k)"),
    ],
)
def test_hostile_groups_in_a_file_are_a_one_line_error(
    doc: Document, groups: Any, message: str
) -> None:
    with pytest.raises(DocumentError) as caught:
        loads(_with_groups(doc, groups), "bad.gstudio")
    text = str(caught.value)
    assert text.startswith("bad.gstudio: ") and "\n" not in text
    assert message in text


def test_a_huge_group_list_is_refused_quickly_in_one_line(doc: Document) -> None:
    groups = [{"id": f"g{i}", "title": "t", "members": ["n1"]} for i in range(100_001)]
    with pytest.raises(DocumentError) as caught:
        loads(_with_groups(doc, groups), "big.gstudio")
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 400


def _chain_document(count: int, depth: int) -> Document:
    """``count`` one-node groups, nested in chains ``depth`` deep."""
    big = Document()
    for i in range(count):
        big.add_node(big.new_node("torch.ones", label=f"t{i}", node_id=f"n{i}"))
    big.add_groups(
        [
            Group(f"g{i}", f"step {i}", {f"n{i}"}, parent=f"g{i - 1}" if i % depth else None)
            for i in range(count)
        ]
    )
    return big


def test_many_groups_load() -> None:
    big = _chain_document(3000, 60)
    again = loads(dumps(big))
    assert len(again.groups) == 3000 and again.group_of("n2999").parent == "g2998"  # type: ignore[union-attr]


def test_nesting_deeper_than_the_limit_is_refused() -> None:
    ok = _chain_document(MAX_DEPTH, MAX_DEPTH)
    data = to_json(ok)
    data["nodes"].append(
        {"id": "x", "type": "torch.ones", "label": "x", "position": [0, 0], "params": {}}
    )
    data["order"].append("x")
    data["groups"].append(
        {"id": "gx", "title": "t", "members": ["x"], "parent": f"g{MAX_DEPTH - 1}"}
    )
    with pytest.raises(DocumentError, match=f"nested more than {MAX_DEPTH} groups deep"):
        loads(json.dumps(data), "deep.gstudio")


# -------------------------------------------------------------------------- export


def test_export_names_each_group_in_a_comment(doc: Document) -> None:
    grouped_json(doc)
    doc.update_group("o", title='fc1 """ + \\ (Linear)')
    script = export_script(doc, facts=False)
    lines = script.splitlines()
    outer = lines.index('# ── group: fc1 """ + \\ (Linear)')
    assert lines[outer + 1] == "# ── group: loop ×3"  # nested: entered together
    assert lines[outer + 2].startswith("w = ")
    assert script.count("# ── group:") == 2  # a, in the outer frame, enters nothing new
    compile(script, "<export>", "exec")


# -------------------------------------------------------------------------- layout

MLP = """\
import torch
import torch.nn.functional as F
x = torch.tensor([[0., 1.], [1., 0.]])
w1 = torch.tensor([[0.5, -0.4], [0.3, 0.8]], requires_grad=True)
b1 = torch.tensor([0.1, -0.1], requires_grad=True)
w2 = torch.tensor([[0.7, -0.5], [-0.3, 0.6]], requires_grad=True)
b2 = torch.tensor([0.0, 0.1], requires_grad=True)
h = F.relu(F.linear(x, w1, b1))
logits = F.linear(h, w2, b2)
loss = logits.sum()
loss.backward()
with torch.no_grad():
    w1 -= 0.1 * w1.grad
    w2 -= 0.1 * w2.grad
"""


def _box(doc: Document, node_ids: frozenset[str], positions: dict) -> tuple:
    from gradstudio.document.layout import default_card_size

    xs, ys, xe, ye = [], [], [], []
    for n in node_ids:
        x, y = positions[n]
        w, h = default_card_size(doc.node(n).type)
        xs.append(x)
        ys.append(y)
        xe.append(x + w)
        ye.append(y + h)
    return min(xs), min(ys), max(xe), max(ye)


def _overlap(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_auto_layout_keeps_each_group_a_block_of_its_own() -> None:
    from gradstudio.document.layout import GROUP_PAD, GROUP_TITLE, auto_layout

    doc = import_snippet(MLP)
    lab = {n.label: n.id for n in doc.nodes()}
    linear1 = [lab[k] for k in lab if "w1, b1" in k]
    doc.add_groups(
        [
            Group("l1", "layer 1", {lab["w1"], lab["b1"], *linear1}, kind="module"),
            Group("inner", "relu", {lab["h"]}, parent="l1"),
            Group("l2", "layer 2", {lab["w2"], lab["b2"], lab["logits"]}, kind="module"),
            Group("sgd", "SGD", {lab[k] for k in lab if "-=" in k or "0.1 *" in k}),
        ]
    )
    positions = auto_layout(doc)
    assert set(positions) == set(doc.order)
    frames = {}
    for gid in doc.groups:
        x0, y0, x1, y1 = _box(doc, doc.group_members(gid), positions)
        frames[gid] = (x0 - GROUP_PAD / 2, y0 - GROUP_TITLE, x1 + GROUP_PAD / 2, y1 + GROUP_PAD / 2)
    for gid, frame in frames.items():
        inside = doc.group_members(gid)
        for n in doc.order:
            if n not in inside:
                assert not _overlap(frame, _box(doc, frozenset({n}), positions)), (gid, n)
    assert not _overlap(frames["l1"], frames["l2"]) and not _overlap(frames["l2"], frames["sgd"])
    assert auto_layout(doc) == positions  # the same every time


def test_auto_layout_survives_a_wire_back_into_an_earlier_group() -> None:
    from gradstudio.document.layout import auto_layout

    doc = import_snippet(SNIPPET)
    w, x, a, b = ids(doc, "w", "x", "a", "b")
    doc.add_groups([Group("g", "first", {w, b}), Group("h", "second", {x, a})])  # a -> ... -> b
    positions = auto_layout(doc)
    assert set(positions) == set(doc.order)
