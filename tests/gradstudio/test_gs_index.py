"""Indexing nodes (``x[key]``, ``x[key] = v``), ``.T``/``.mT``: keys parsed, never evaluated."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gradstudio.catalogue import NodeKind, catalogue
from gradstudio.document.commands import AddNodeCommand, ConnectCommand, SetParamCommand
from gradstudio.document.index_key import PLACEHOLDER, Placeholder, Slice, parse_key
from gradstudio.document.model import Document
from gradstudio.document.undo import UndoStack
from gradstudio.document.values import EditError
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.fileformat import (
    DocumentError,
    from_json,
    load_document,
    save_document,
    to_json,
)
from gradstudio.interchange.pytorch_export import export_script
from gradstudio.interchange.pytorch_import import ImportProblem, import_snippet
from gradstudio.interchange.trust import TrustStore
from tests.gradstudio.snippets import INDEXING

SNIPPET = INDEXING

#: What the snippet gives under PyTorch 2.x (the torch-marked round trip checks it all).
EXPECTED: dict[str, tuple[str | None, Any]] = {
    "a": ("ViewBackward0", [1.0, 2.0, 3.0, 4.0]),
    "b": ("RsubBackward1", [1.0, 0.0, -1.0, -2.0]),
    "c": (None, [[0.0, 0.0], [0.0, 0.0]]),
    "d": ("SelectBackward0", [1.0, 2.0]),
    "e": ("PermuteBackward0", [[1.0, 3.0], [2.0, 4.0]]),
    "f": ("SelectBackward0", [2.0, 4.0]),
    "g": ("IndexBackward0", [3.0, 4.0]),
    "h": ("IndexBackward0", [[3.0, 4.0], [1.0, 2.0]]),
    "s": ("AddBackward0", 34.0),
}


def _x_doc() -> tuple[Document, str]:
    doc = Document()
    x = doc.new_node(
        "torch.tensor",
        params={"data": [[1.0, 2.0], [3.0, 4.0]], "requires_grad": True},
        label="x",
    )
    doc.add_node(x)
    return doc, x.id


def _index_node(doc: Document, source: str, key: str, label: str = "y") -> str:
    node = doc.new_node("Tensor.__getitem__", params={"key": key}, label=label)
    doc.add_node(node)
    doc.connect(source, "out", node.id, "input")
    return node.id


# ------------------------------------------------------------------------ the key parser


@pytest.mark.parametrize(
    ("text", "items", "is_tuple", "normal"),
    [
        ("0", (0,), False, "0"),
        ("-1", (-1,), False, "-1"),
        (" :, 1 ", (Slice(), 1), True, ":, 1"),
        ("1:3, None", (Slice(1, 3), None), True, "1:3, None"),
        ("..., 0", (Ellipsis, 0), True, "..., 0"),
        ("::2", (Slice(None, None, 2),), False, "::2"),
        ("-3:None:-1", (Slice(-3, None, -1),), False, "-3::-1"),
        ("0,", (0,), True, "0,"),
        ("()", (), True, "()"),
        (PLACEHOLDER, (Placeholder(),), False, PLACEHOLDER),
        (f"{PLACEHOLDER}, 0, {PLACEHOLDER}", (Placeholder(), 0, Placeholder()), True, None),
    ],
)
def test_keys_parse_into_items(
    text: str, items: tuple[Any, ...], is_tuple: bool, normal: str | None
) -> None:
    key = parse_key(text)
    assert key.items == items
    assert key.is_tuple == is_tuple
    assert key.text() == (normal or text)
    assert parse_key(key.text()) == key


def test_key_text_and_value_fill_the_placeholders() -> None:
    key = parse_key("index, 1:, index")
    assert key.placeholders == 2
    assert key.text(["mask", "idx"]) == "mask, 1:, idx"
    assert key.value(["M", "I"]) == ("M", slice(1, None, None), "I")
    with pytest.raises(ValueError, match="uses `index` 2 times, but 1 tensor is connected"):
        key.value(["M"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("foo()", r"a call \(foo\(\)\) is not allowed"),
        ("__import__('os')", r"a call \(__import__\('os'\)\) is not allowed"),
        ("foo", "the name 'foo' is not allowed"),
        ("0.5", "the value 0.5 is not allowed"),
        ("True", "the value True is not allowed"),
        ("[0, 1]", r"a list \(\[0, 1\]\) is not allowed"),
        ("(0, 1), 2", r"a tuple \(\(0, 1\)\) is not allowed"),
        ("1 + 1", "the expression '1 \\+ 1' is not allowed"),
        ("1:a", "the name 'a' is not allowed in a slice"),
        ("x.shape[0]:", "is not allowed in a slice"),
        ("..., 0, ...", "a single ellipsis"),
        ("", "the index key is empty"),
        ("0] + __import__('os').system('x')[0", "is not a valid index key"),
        ("0]\nimport os\n_[0", "is not a valid index key"),
        ("lambda: 0", "is not a valid index key|is not allowed"),
        ("0" * 300, "longer than"),
    ],
)
def test_rejected_keys_say_why(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_key(text)


def test_key_param_is_checked_on_every_edit() -> None:
    doc, x = _x_doc()
    y = _index_node(doc, x, "0", label="row")
    with pytest.raises(EditError, match=r"node 'row', parameter 'key': .*a call \(foo\(\)\)"):
        doc.set_param(y, "key", "foo()")
    with pytest.raises(EditError, match="node 'row'"):
        SetParamCommand(doc, y, "key", "__import__('os')")
    with pytest.raises(EditError, match="node 'z', parameter 'key'"):
        doc.new_node("Tensor.__getitem__", params={"key": "os.system"}, label="z")
    doc.set_param(y, "key", 1)  # a bare integer (what a literal editor gives) is a key too
    assert doc.node(y).params["key"] == "1"
    assert doc.validate() == []


def test_bad_key_in_a_file_is_a_document_error() -> None:
    data = {
        "format": "gradstudio",
        "version": 2,
        "order": ["n1", "n2"],
        "nodes": [
            {"id": "n1", "type": "torch.tensor", "label": "x", "position": [0, 0], "params": {}},
            {
                "id": "n2",
                "type": "Tensor.__getitem__",
                "label": "pick",
                "position": [0, 0],
                "params": {"key": "__import__('os').getcwd()"},
            },
        ],
        "edges": [{"from": ["n1", "out"], "to": ["n2", "input"]}],
    }
    with pytest.raises(DocumentError, match=r"node 'pick', parameter 'key': .*not allowed"):
        from_json(data, "bad.gstudio")


# ------------------------------------------------------------------------- evaluation


@pytest.mark.parametrize(
    ("key", "grad_fn", "value"),
    [
        ("0", "SelectBackward0", [1.0, 2.0]),
        ("-1", "SelectBackward0", [3.0, 4.0]),
        (":, 1", "SelectBackward0", [2.0, 4.0]),
        ("1:", "SliceBackward0", [[3.0, 4.0]]),
        ("0, None", "UnsqueezeBackward0", [[1.0, 2.0]]),
        ("..., 0", "SelectBackward0", [1.0, 3.0]),
        ("::-1", None, None),
    ],
)
def test_index_node_lets_the_engine_pick_the_backward(
    key: str, grad_fn: str | None, value: Any
) -> None:
    doc, x = _x_doc()
    y = _index_node(doc, x, key)
    ev = evaluate(doc)
    if grad_fn is None:
        error = ev.error_for(y)
        assert error is not None and "step must be greater than zero" in error.message
        return
    assert ev.ok, ev.errors
    facts = ev.final.facts(y)
    assert facts is not None
    assert facts.grad_fn_name == grad_fn
    assert facts.value == value


def test_tensor_index_comes_from_another_node() -> None:
    doc, x = _x_doc()
    mask = doc.new_node("torch.gt", params={"other": 2.0}, label="mask")
    doc.add_node(mask)
    doc.connect(x, "out", mask.id, "input")
    y = _index_node(doc, x, PLACEHOLDER)
    doc.connect(mask.id, "out", y, "index")
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    facts = ev.final.facts(y)
    assert facts is not None and facts.grad_fn_name == "IndexBackward0"
    assert facts.value == [3.0, 4.0]
    assert export_script(doc, facts=False).splitlines()[-1] == "y = x[mask]"


def test_placeholders_must_match_the_connected_tensors() -> None:
    doc, x = _x_doc()
    y = _index_node(doc, x, f"{PLACEHOLDER}, 0", label="pick")
    ev = evaluate(doc)
    error = ev.error_for(y)
    assert error is not None
    assert "uses `index` 1 time, but 0 tensors are connected" in error.message
    with pytest.raises(Exception, match="node 'pick': the key uses `index` 1 time"):
        export_script(doc)


def test_T_and_mT_nodes() -> None:
    doc, x = _x_doc()
    t = doc.new_node("Tensor.T", label="t")
    mt = doc.new_node("Tensor.mT", label="mt")
    for node in (t, mt):
        doc.add_node(node)
        doc.connect(x, "out", node.id, "input")
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    assert ev.final.facts(t.id).grad_fn_name == "PermuteBackward0"  # type: ignore[union-attr]
    assert ev.final.facts(mt.id).grad_fn_name == "TransposeBackward0"  # type: ignore[union-attr]
    assert export_script(doc, facts=False).splitlines()[-2:] == ["t = x.T", "mt = x.mT"]
    cat = catalogue()
    assert cat.by_attribute("T") is cat.get("Tensor.T")
    assert cat.by_attribute("mT") is cat.get("Tensor.mT")
    assert cat.by_attribute("grad") is cat.get("Tensor.grad")
    assert cat.by_attribute("data") is cat.get("Tensor.data")


def test_setitem_node_runs_in_place() -> None:
    doc, x = _x_doc()
    y = doc.new_node("torch.mul", params={"other": 2.0}, label="y")
    doc.add_node(y)
    doc.connect(x, "out", y.id, "input")
    put = doc.new_node("Tensor.__setitem__", params={"key": "0", "value": 5.0}, label="put")
    doc.add_node(put)
    doc.connect(y.id, "out", put.id, "input")
    assert put.type.kind is NodeKind.INPLACE
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    facts = ev.final.facts(put.id)
    assert facts is not None and facts.grad_fn_name == "CopySlices"
    assert facts.value == [[5.0, 5.0], [6.0, 8.0]]
    assert ev.final.facts(y.id).version == 1  # type: ignore[union-attr]
    assert export_script(doc, facts=False).splitlines()[-2:] == ["y[0] = 5.0", "put = y"]


# --------------------------------------------------------------------------- import


def test_snippet_imports_and_evaluates_like_pytorch() -> None:
    doc = import_snippet(SNIPPET)
    assert doc.validate() == []
    types = {n.label: n.type_id for n in doc.nodes()}
    assert types["a"] == "torch.Tensor.view"
    assert types["b"] == "torch.rsub"
    assert types["c"] == "torch.zeros_like"
    assert types["e"] == "Tensor.T"
    for label, key in {"d": "0", "f": ":, 1", "g": PLACEHOLDER, "h": PLACEHOLDER}.items():
        node = doc.node_by_label(label)
        assert node is not None and node.type_id == "Tensor.__getitem__"
        assert node.params["key"] == key
    (mask_edge,) = doc.inputs_of(doc.node_by_label("g").id, "index")  # type: ignore[union-attr]
    assert doc.node(mask_edge.src).label == "x > 2"
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    for label, (grad_fn, value) in EXPECTED.items():
        facts = ev.final.facts(doc.node_by_label(label).id)  # type: ignore[union-attr]
        assert facts is not None
        assert (facts.grad_fn_name, facts.value) == (grad_fn, value), label
    x = ev.final.facts(doc.node_by_label("x").id)  # type: ignore[union-attr]
    assert x is not None and x.grad is not None
    assert x.grad.value == [[2.0, 3.0], [2.0, 3.0]]


def test_snippet_exports_index_syntax() -> None:
    script = export_script(import_snippet(SNIPPET), facts=False)
    for line in (
        "b = torch.rsub(a, 2)",
        "c = torch.zeros_like(x)",
        "d = x[0]",
        "e = x.T",
        "f = x[:, 1]",
        "x_2 = torch.gt(x, 2)",
        "g = x[x_2]",
        "h = x[torch_tensor_1_0]",
    ):
        assert line in script.splitlines(), line


def test_import_index_forms() -> None:
    doc = import_snippet(
        "import torch\n"
        "x = torch.ones(3, 4, requires_grad=True)\n"
        "i = 2\n"
        "idx = torch.tensor([0, 2])\n"
        "a = x[..., -i]\n"
        "b = x[1:i, None]\n"
        "c = x[idx, ::2]\n"
        "d = x[[1, 0]]\n"
    )
    keys = {n.label: n.params.get("key") for n in doc.nodes()}
    assert keys["a"] == "..., -2"
    assert keys["b"] == "1:2, None"
    assert keys["c"] == "index, ::2"
    assert keys["d"] == "index"
    (edge,) = doc.inputs_of(doc.node_by_label("d").id, "index")  # type: ignore[union-attr]
    source = doc.node(edge.src)
    assert source.type_id == "torch.tensor" and source.params["data"] == [1, 0]
    assert evaluate(doc).ok


def test_import_setitem() -> None:
    doc = import_snippet(
        "import torch\n"
        "x = torch.ones(2, 2, requires_grad=True)\n"
        "w = torch.tensor([5., 6.])\n"
        "y = x * 1\n"
        "y[0] = 3.\n"
        "y[1, :] = w\n"
        "y[y > 4] = 0\n"
        "z = y.sum()\n"
    )
    puts = [n for n in doc.nodes() if n.type_id == "Tensor.__setitem__"]
    assert [n.params["key"] for n in puts] == ["0", "1, :", "index"]
    assert puts[0].params["value"] == 3.0
    assert doc.inputs_of(puts[1].id, "value")[0].src == doc.node_by_label("w").id  # type: ignore[union-attr]
    (z_in,) = doc.inputs_of(doc.node_by_label("z").id, "input")  # type: ignore[union-attr]
    assert z_in.src == puts[-1].id  # later uses of y read the assigned tensor
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    facts = ev.final.facts(puts[-1].id)
    assert facts is not None and facts.value == [[3.0, 3.0], [0.0, 0.0]]
    assert facts.grad_fn_name == "IndexPutBackward0"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("y = x[foo()]", "foo() is not a PyTorch function"),
        ("y = x[__import__('os')]", "__import__() is not a PyTorch function"),
        ("y = x[1.5]", "the index 1.5 cannot be represented"),
        ("y = x[0:0.5]", "0.5 in a slice must be an integer or None"),
        ("y = x[..., ...]", "a single ellipsis"),
        ("x[0] = 'a'", "must be a tensor or a number"),
        ("n = 3\nn[0] = 1", "n is not a tensor"),
    ],
)
def test_import_rejects_what_a_key_cannot_hold(line: str, message: str) -> None:
    source = "import torch\nx = torch.ones(2, 2)\n" + line + "\n"
    with pytest.raises(ImportProblem, match=re.escape(message)) as info:
        import_snippet(source)
    assert info.value.lineno == source.count("\n")


def test_zeros_like_and_rsub_evaluate() -> None:
    doc = import_snippet(
        "import torch\n"
        "x = torch.tensor([1., 2.], requires_grad=True)\n"
        "c = torch.ones_like(x, dtype=torch.float64)\n"
        "b = 2 - x\n"
    )
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    c = ev.final.facts(doc.node_by_label("c").id)  # type: ignore[union-attr]
    assert c is not None and c.dtype == "float64" and c.value == [1.0, 1.0]
    b = ev.final.facts(doc.node_by_label("b").id)  # type: ignore[union-attr]
    assert b is not None and b.grad_fn_name == "RsubBackward1"
    script = export_script(doc, facts=False)
    assert "c = torch.ones_like(x, dtype=torch.float64)" in script
    assert "b = torch.rsub(x, 2)" in script


def test_arange_with_one_argument_is_the_end() -> None:
    doc = import_snippet("import torch\nx = torch.arange(4.)\n")
    x = doc.node_by_label("x")
    assert x is not None and (x.params["start"], x.params["end"]) == (0, 4.0)
    assert evaluate(doc).final.facts(x.id).value == [0.0, 1.0, 2.0, 3.0]  # type: ignore[union-attr]


# ------------------------------------------------------------------ files and undo


def test_index_nodes_save_and_load(tmp_path: Path, store: TrustStore) -> None:
    doc = import_snippet(SNIPPET + "x2 = x.detach().clone()\nx2[x2 > 3] = 0.\n")
    path = tmp_path / "index.gstudio"
    save_document(doc, path, store)
    again = load_document(path, store)
    assert to_json(again) == to_json(doc)
    saved = json.loads(path.read_text())
    types = {n["type"] for n in saved["nodes"]}
    assert {"Tensor.__getitem__", "Tensor.__setitem__", "Tensor.T"} <= types
    g = again.node_by_label("g")
    assert g is not None and g.params["key"] == "index"
    assert len(again.inputs_of(g.id, "index")) == 1
    ours, theirs = evaluate(doc).to_json(), evaluate(again).to_json()
    assert ours == theirs


def test_adding_an_index_node_undoes_and_redoes() -> None:
    doc, x = _x_doc()
    mask = doc.new_node("torch.gt", params={"other": 2.0}, label="mask")
    doc.add_node(mask)
    doc.connect(x, "out", mask.id, "input")
    stack = UndoStack()
    empty = to_json(doc)
    add = AddNodeCommand(doc, "Tensor.__getitem__", (10.0, 20.0), params={"key": ":, 1"})
    stack.push(add)
    node_id = add.node_id
    assert doc.node(node_id).params["key"] == ":, 1"
    added = to_json(doc)
    with stack.macro("Wire the index"):
        stack.push(ConnectCommand(doc, x, "out", node_id, "input"))
        stack.push(ConnectCommand(doc, mask.id, "out", node_id, "index"))
        stack.push(SetParamCommand(doc, node_id, "key", PLACEHOLDER))
    wired = to_json(doc)
    assert evaluate(doc).final.facts(node_id).value == [3.0, 4.0]  # type: ignore[union-attr]
    stack.undo()
    assert to_json(doc) == added
    stack.undo()
    assert to_json(doc) == empty
    assert node_id not in {n.id for n in doc.nodes()}
    stack.redo()
    assert to_json(doc) == added
    stack.redo()
    assert to_json(doc) == wired
    assert doc.node(node_id).params["key"] == PLACEHOLDER


# ---------------------------------------------------------------------- under PyTorch


@pytest.mark.torch
def test_exported_snippet_runs_under_pytorch(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="PyTorch is the oracle the export is compared with")
    doc = import_snippet(SNIPPET)
    script = tmp_path / "indexing.py"
    script.write_text(export_script(doc))
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    theirs = {r["label"]: r for r in json.loads(proc.stdout.strip().splitlines()[-1])["nodes"]}
    ours = {r["label"]: r for r in evaluate(doc).to_json()["nodes"]}
    assert ours.keys() == theirs.keys()
    for label, (grad_fn, value) in EXPECTED.items():
        assert (theirs[label]["grad_fn"], theirs[label]["value"]) == (grad_fn, value), label
    for label, row in ours.items():
        for field in ("shape", "dtype", "grad_fn", "next_functions", "value", "grad", "version"):
            assert row[field] == theirs[label][field], (label, field)
