"""The studio reads the engine's public functions as learners write them.

Every declared function is a node type (``test_gs_declared_once`` runs each one's
example); here: the spellings programs use (``x.argmax()``, ``torch.clip``,
``torch.linalg.det``, ``xx, yy = torch.meshgrid(...)``) import to those nodes, evaluate,
and export to code that imports back to the same document.
"""

from __future__ import annotations

import engine
from engine.catalog import FUNCTIONS, functions
from engine.not_ops import not_an_op
from gradstudio.catalogue import catalogue
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.pytorch_export import export_script
from gradstudio.interchange.pytorch_import import import_snippet

#: Tensor methods whose arguments come in another order than the function's
#: (``x.where(condition, y)`` is ``torch.where(condition, x, y)``): a node for the method
#: needs a declaration of its own.
REORDERED_METHODS = {"where", "polygamma"}

PROGRAM = """\
import torch
import torch.nn.functional as F
x = torch.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], requires_grad=True)
a = x.argmax()
b = x.argmin(dim=1, keepdim=True)
c = x.clip(-1, 1)
d = torch.clip(x, 0, 1)
e = torch.linalg.det(x[:, :2])
u, v = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="ij")
r = torch.randint(0, 10, (3,))
h = F.one_hot(torch.tensor([0, 2]), 3)
f = torch.full_like(x, 2.0)
s = x.argsort(dim=1, descending=True)
k = torch.logical_and(x > 0, x < 4)
q, w = torch.linalg.qr(x.T)
n = torch.linalg.vector_norm(x, dim=1)
m, i = x.max(1)
"""


def types_of(code: str) -> list[str]:
    return [n.type_id for n in import_snippet(code, trusted=True).nodes()]


def test_every_declared_function_has_its_node_type_under_each_name() -> None:
    for sig in functions():
        method_id = sig.mutates and sig.namespace != "torch.nn.functional"  # ``Tensor.add_``
        node_type = catalogue().get(f"Tensor.{sig.name}" if method_id else sig.qualname)
        if sig.namespace != "torch.Tensor":
            for name in (sig.name, *sig.aliases):
                assert catalogue().by_function(f"{sig.namespace}.{name}") is node_type
        if sig.method:
            for name in (sig.name, *sig.aliases):
                assert catalogue().by_method(name) is not None, name


def test_a_method_that_is_also_a_public_function_imports() -> None:
    """``x.argmax()`` as well as ``torch.argmax(x)``: the method of every public
    function that tensors have is a node (what is not an op is not)."""
    missing = []
    for name in dir(engine.Tensor):
        fn = getattr(engine, name, None)
        if name.startswith("_") or not callable(fn) or isinstance(fn, type):
            continue
        if not_an_op(f"torch.{name}") or name in REORDERED_METHODS:
            continue
        if catalogue().by_method(name) is None:
            missing.append(name)
    assert missing == []


def test_learners_spellings_import_evaluate_and_export_back() -> None:
    doc = import_snippet(PROGRAM, trusted=True)
    found = [n.type_id for n in doc.nodes()]
    for type_id in (
        "torch.argmax",
        "torch.argmin",
        "torch.clamp",
        "torch.linalg.det",
        "torch.meshgrid",
        "torch.randint",
        "torch.nn.functional.one_hot",
        "torch.full_like",
        "torch.argsort",
        "torch.logical_and",
        "torch.linalg.qr",
        "torch.linalg.vector_norm",
    ):
        assert type_id in found, type_id
    result = evaluate(doc)
    assert result.ok, [e.message for e in result.errors]
    values = {n["label"]: n for n in result.to_json()["nodes"]}
    assert values["a"]["dtype"] == "int64" and values["a"]["value"] == 4
    assert values["b"]["value"] == [[1], [2]]
    assert values["u"]["shape"] == [3, 2] and values["r"]["dtype"] == "int64"
    assert values["x.max(1).values"]["value"] == [3.0, 5.0]  # ``m``: the node's first port
    assert values["x.max(1).indices"]["value"] == [2, 1]
    code = export_script(doc, facts=False)
    assert "torch.argmax(x)" in code and "torch.linalg.det(" in code
    assert types_of(code) == found


def test_an_alias_is_the_same_node_and_function() -> None:
    clamp = FUNCTIONS["torch.clamp"]
    assert clamp.aliases == ("clip",) and FUNCTIONS["torch.Tensor.clamp_"].aliases == ("clip_",)
    assert engine.clip is engine.clamp and engine.Tensor.clip is engine.Tensor.clamp
    assert engine.Tensor.clip_ is engine.Tensor.clamp_
    assert types_of("import torch\nx = torch.ones(2)\ny = x.clip(0, 1)\n")[-1] == "torch.clamp"


def test_an_output_returned_under_a_flag_is_its_own_port() -> None:
    """``unique`` returns ``counts`` second when only ``return_counts`` is set: the
    declaration says which flag each output needs, so results land on their ports."""
    code = (
        "import torch\n"
        "x = torch.tensor([3, 1, 3, 2, 1, 3])\n"
        "v, c = torch.unique(x, return_counts=True)\n"
        "w, i, n = x.unique(return_inverse=True, return_counts=True)\n"
        "s = c + 1\n"
    )
    doc = import_snippet(code, trusted=True)
    result = evaluate(doc)
    assert result.ok, [e.message for e in result.errors]
    values = {n["label"]: n.get("value") for n in result.to_json()["nodes"]}
    assert values["s"] == [3, 2, 4]
    unique = catalogue().get("torch.unique")
    assert unique.returned({"return_counts": True}) == ["output", "counts"]
    again = import_snippet(export_script(doc, facts=False), trusted=True)
    assert {n["label"]: n.get("value") for n in evaluate(again).to_json()["nodes"]}["s"] == [
        3,
        2,
        4,
    ]
