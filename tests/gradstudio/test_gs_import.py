"""Importing PyTorch snippets: parsed with ast, never executed; errors carry line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.examples import EXAMPLES
from gradstudio.interchange.pytorch_import import ImportProblem, import_snippet


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_seed_snippets_import_with_their_names(example) -> None:
    doc = import_snippet(example.code, trusted=True)
    labels = {n.label for n in doc.nodes()}
    assert {"a"} <= labels or {"w"} <= labels or {"x"} <= labels
    assert doc.validate() == []


def test_seed_000_doctest_form_imports() -> None:
    with pytest.raises(ImportProblem, match="'torch' is not defined"):
        import_snippet(">>> a = torch.rand(10, requires_grad=True)\n>>> a.is_leaf\nTrue\n")
    doc = import_snippet(
        ">>> import torch\n>>> a = torch.rand(10, requires_grad=True)\n>>> a.is_leaf\nTrue\n"
        ">>> b = torch.rand(10, requires_grad=True).cuda()\n>>> b.is_leaf\nFalse\n"
    )
    b = doc.node_by_label("b")
    assert b is not None and b.type_id == "Tensor.to" and b.params["device"] == "cuda"


def test_import_never_executes(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with pytest.raises(ImportProblem, match="line 2") as info:
        import_snippet(f"import torch\nopen({str(marker)!r}, 'w')\n")
    assert info.value.lineno == 2
    assert not marker.exists()


@pytest.mark.parametrize(
    ("code", "line", "message"),
    [
        ("import torch\nfor i in range(3):\n    pass\n", 2, "For statement"),
        ("import os\n", 1, "only torch"),
        ("import torch\nx = torch.nonexistent(3)\n", 2, "not in GradStudio's catalogue"),
        ("import torch\ny = x + 1\n", 2, "'x' is not defined"),
        ("import torch\nx = torch.ones(2)\nx.data = torch.zeros(2)\n", 3, "assigning to .data"),
        ("import torch\nclass A:\n    pass\n", 2, "not an autograd.Function"),
        ("import torch\nx = torch.ones(2)\ny = x[0.5]\n", 3, "cannot be represented"),
        ("import torch\nx = torch.ones(2)\ny = x[1:foo]\n", 3, "'foo' is not defined"),
        ("import torch\nx = torch.ones(2)\nx[0] += 1\n", 3, "names only"),
        ("x = (\n", 1, "not valid Python"),
    ],
)
def test_unsupported_statements_name_their_line(code: str, line: int, message: str) -> None:
    with pytest.raises(ImportProblem, match=message) as info:
        import_snippet(code)
    assert info.value.lineno == line


def test_function_class_becomes_a_custom_node() -> None:
    example = next(e for e in EXAMPLES if e.name == "004_custom_function")
    doc = import_snippet(example.code)
    d = doc.node_by_label("d")
    assert d is not None and d.type_id == "torch.autograd.Function"
    assert d.params["class_name"] == "Func"
    assert d.params["source"].startswith("class Func(Function):")
    assert "ctx.save_for_backward(x, y, out)" in d.params["source"]
    assert d.params["args"] == [{"name": "x"}, {"name": "y"}, {"name": "z", "value": 4}]
    assert [p.name for p in d.type.inputs] == ["x", "y", "z"]
    wired = {e.dst_port: doc.node(e.src).label for e in doc.edges() if e.dst == d.id}
    assert wired == {"x": "a", "y": "b"}
    assert not doc.trusted


def test_operators_methods_and_constants() -> None:
    doc = import_snippet(
        "import torch\nimport torch.nn.functional as F\n"
        "k = 2 * 3\n"
        "x = torch.ones(2, 3, requires_grad=True)\n"
        "y = (k * x).sum(dim=1)\n"
        "z = 1 / y\n"
        "s = F.softmax(x, dim=-1)\n"
        "x2 = x.detach().requires_grad_()\n"
        "x2.retain_grad()\n"
        "m = x @ x.t()\n"
    )
    types = {n.label: n.type_id for n in doc.nodes()}
    assert types["y"] == "torch.sum" and types["z"] == "torch.mul" and types["m"] == "torch.matmul"
    assert doc.node_by_label("x").params["size"] == [2, 3]
    assert doc.node_by_label("k * x").params["other"] == 6
    assert doc.node_by_label("s").params["dim"] == -1
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    assert ev.final.facts(doc.node_by_label("z").id).value == pytest.approx([1 / 18, 1 / 18])


def test_device_expression_maps_to_the_documents_device() -> None:
    doc = import_snippet(
        "import torch\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "x = torch.ones(2, device=device)\ny = x.to(device)\n"
    )
    assert doc.node_by_label("x").params["device"] == "default"
    assert doc.node_by_label("y").params["device"] == "default"


def test_grad_zero_and_set_to_none() -> None:
    doc = import_snippet(
        "import torch\nw = torch.ones(2, requires_grad=True)\nw.sum().backward()\n"
        "w.grad.zero_()\nw.grad = None\n"
    )
    kinds = [(n.type_id, n.params.get("set_to_none")) for n in doc.nodes()[-2:]]
    assert kinds == [("gradstudio.zero_grad", False), ("gradstudio.zero_grad", True)]
    ev = evaluate(doc)
    assert ev.ok and ev.final.facts(doc.node_by_label("w").id).grad is None
    assert ev.snapshot(doc.step_of(doc.order[-2])).facts(doc.node_by_label("w").id).grad.value == [
        0.0,
        0.0,
    ]


def test_autograd_backward_keeps_every_tensor_and_gradient() -> None:
    """``torch.autograd.backward([y1, y2], ...)``: both roots count (PyTorch: [5, 7])."""
    doc = import_snippet(
        "import torch\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y1 = x * 3\n"
        "y2 = x ** 2\n"
        "torch.autograd.backward([y1, y2], grad_tensors=[torch.ones(2), torch.ones(2)])\n"
    )
    rows = {label: facts for label, _, facts in evaluate(doc).rows()}
    assert rows["x"].grad.value == [5.0, 7.0]


#: Calls whose ints are each a different argument, and what the engine computes for them.
POSITIONAL_INTS = {
    "torch.roll(x, 1, 1)": [[2.0, 0.0, 1.0], [5.0, 3.0, 4.0]],  # shifts 1, dims 1 (makemore)
    "x.roll(1, 0)": [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]],
    "torch.movedim(x, 0, 1)": [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]],
    "x.tile(1, 2)": [[0.0, 1.0, 2.0, 0.0, 1.0, 2.0], [3.0, 4.0, 5.0, 3.0, 4.0, 5.0]],
    "x.view(3, 2)": [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]],
}


@pytest.mark.parametrize("call", POSITIONAL_INTS)
def test_ints_bind_to_the_arguments_the_call_gives_them(call: str) -> None:
    """A size param takes the rest of the ints only where the function takes ``*sizes``
    or it is the last positional one: ``roll(x, 1, 1)`` was read as shifts (1, 1)."""
    doc = import_snippet(f"import torch\nx = torch.arange(6.0).reshape(2, 3)\ny = {call}\n")
    rows = {label: f for label, _, f in evaluate(doc).rows() if f is not None}
    assert rows["y"].array.tolist() == POSITIONAL_INTS[call]


def test_more_positional_arguments_than_the_function_takes_are_refused() -> None:
    with pytest.raises(ImportProblem, match="more arguments"):
        import_snippet("import torch\nx = torch.ones(3)\ny = torch.roll(x, 1, 0, 2)\n")
