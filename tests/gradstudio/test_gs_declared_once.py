"""Declared once, usable everywhere.

Every public engine function and every in-place method in the engine's table has a
node type that imports from PyTorch code, evaluates, and exports back to code that
re-imports to the same document; with PyTorch installed, the document evaluated on
PyTorch gives the engine's values and autograd facts.  The code comes from a document
built with the declaration's sample inputs (``Signature.example``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from engine.catalog import Signature, functions
from gradstudio.catalogue import PortType, catalogue
from gradstudio.document.model import Document
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.pytorch_export import export_script
from gradstudio.interchange.pytorch_import import import_snippet

SIGNATURES = functions()
EXACT = ("shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "next_functions", "version")


def sample_data(shape: tuple[int, ...], held: str | None = None) -> Any:
    """Distinct, non-zero values of mixed sign (no ties, no 0 for ``abs``/``relu``), or
    what the declaration's example says the input holds."""
    n = int(np.prod(shape)) if shape else 1
    wave = np.sin(np.arange(1, n + 1))
    if held == "index":
        values: Any = np.arange(n) % 2
    elif held == "mask":
        values = wave > 0
    elif held == "positive":
        values = np.round(np.abs(wave) + 0.5, 3)
    elif held == "probability":
        values = np.round(np.abs(wave) * 0.8 + 0.1, 3)
    else:
        values = np.round(wave * 1.7 + 0.1, 3)
    return values.reshape(shape).tolist()


def document_for(sig: Signature) -> tuple[Document, str]:
    """Sources for the sample inputs, then one node of the function's type."""
    node_type = catalogue().get(sig.qualname)
    example = sig.example
    doc = Document()
    node = doc.new_node(node_type.id, params=dict(example.params), label="out")
    sources: list[tuple[str, str]] = []
    for i, port in enumerate(node_type.inputs):
        held = example.values.get(port.name)
        for j, shape in enumerate(example.shapes(port.name, port.variadic)):
            data = sample_data(shape, held)
            grad = held in (None, "probability")
            src = doc.new_node(
                "torch.tensor",
                params={"data": data, "requires_grad": grad},
                label=f"x{i}_{j}",
            )
            doc.add_node(src)
            if sig.mutates and i == 0:  # write into a non-leaf, as real programs do
                leaf, src = src, doc.new_node("torch.clone", label="y")
                doc.add_node(src)
                doc.connect(leaf.id, "out", src.id, "input")
            sources.append((src.id, port.name))
    doc.add_node(node)
    for src_id, port in sources:
        doc.connect(src_id, "out", node.id, port)
    return doc, node_type.id


def structure(doc: Document) -> list[Any]:
    labels = {n.id: n.label for n in doc.nodes()}
    nodes = [(n.label, n.type_id, sorted(n.params.items())) for n in doc.nodes()]
    edges = sorted((labels[e.src], e.src_port, labels[e.dst], e.dst_port) for e in doc.edges())
    return [nodes, edges]


@pytest.mark.parametrize("sig", SIGNATURES, ids=lambda s: s.qualname)
def test_imports_evaluates_and_exports_back(sig: Signature) -> None:
    doc, type_id = document_for(sig)
    code = export_script(doc, facts=False)
    imported = import_snippet(code, trusted=True)
    assert type_id in [n.type_id for n in imported.nodes()], code
    result = evaluate(imported)
    assert result.ok, [e.message for e in result.errors]
    again = import_snippet(export_script(imported, facts=False), trusted=True)
    assert structure(again) == structure(imported)


@pytest.mark.torch
@pytest.mark.parametrize("sig", SIGNATURES, ids=lambda s: s.qualname)
def test_runs_under_torch_with_the_same_facts(sig: Signature) -> None:
    torch = pytest.importorskip("torch")
    doc, _ = document_for(sig)
    ours = evaluate(doc).to_json()
    theirs = evaluate(doc, backend=torch).to_json()
    assert ours["errors"] == theirs["errors"] == []
    for a, b in zip(ours["nodes"], theirs["nodes"], strict=True):
        assert {k: a.get(k) for k in EXACT} == {k: b.get(k) for k in EXACT}, a["label"]
        if not sig.example.deterministic and a["node"] == doc.node_by_label("out").id:
            continue
        for key in ("value", "grad"):
            x, y = a.get(key), b.get(key)
            assert (x is None) == (y is None), (a["label"], key)
            if x is not None:
                assert np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True), (a["label"], key)


NN_FUNCTIONAL = "torch.nn.functional"


def test_every_in_place_method_is_in_the_table() -> None:
    """The table generates the in-place methods: none is kept by hand."""
    import engine

    mutating = {s.name for s in SIGNATURES if s.mutates and s.namespace != NN_FUNCTIONAL}
    assert {"add_", "tanh_", "relu_", "zero_", "copy_"} <= mutating
    for name in mutating:
        assert callable(getattr(engine.Tensor, name))
        assert catalogue().by_method(name) is not None
    # PyTorch's in-place functionals (``F.leaky_relu_``) have no method twin
    functional = {s.name for s in SIGNATURES if s.mutates and s.namespace == NN_FUNCTIONAL}
    assert {"leaky_relu_", "elu_", "hardtanh_"} <= functional
    for name in functional:
        assert callable(getattr(engine.nn.functional, name))
        assert not hasattr(engine.Tensor, name)
        assert catalogue().by_function(f"{NN_FUNCTIONAL}.{name}") is not None
    for sig in SIGNATURES:
        if sig.inplace:
            assert f"torch.Tensor.{sig.inplace}" in {s.qualname for s in SIGNATURES}


def test_ports_keep_their_tensor_type() -> None:
    for sig in SIGNATURES:
        node_type = catalogue().get(sig.qualname)
        assert all(p.type is PortType.TENSOR for p in node_type.inputs)
