"""The catalogue derives one node type per engine function and declares the rest once."""

from __future__ import annotations

import ast

import pytest

from engine.catalog import functions
from gradstudio.catalogue import (
    TYPE_ALIASES,
    CodeCall,
    NodeInputError,
    NodeKind,
    PortType,
    catalogue,
)
from gradstudio.document.model import Document
from gradstudio.evaluation.evaluate import evaluate

SIGNATURES = functions()


def test_every_engine_function_has_exactly_one_node_type() -> None:
    cat = catalogue()
    ids = [t.id for t in cat.types()]
    assert len(ids) == len(set(ids))
    for sig in SIGNATURES:
        assert sig.qualname in cat, sig.qualname


@pytest.mark.parametrize("sig", SIGNATURES, ids=lambda s: s.qualname)
def test_derived_type_mirrors_its_signature(sig) -> None:
    t = catalogue().get(sig.qualname)
    assert [p.name for p in t.inputs] == [p.name for p in sig.inputs]
    assert [p.name for p in t.outputs] == list(sig.outputs)
    for p in sig.params:
        spec = t.param(p.name)
        assert spec.required == p.required
        spec.check(spec.default)  # the default a new node gets is itself valid
    for port in sig.inputs:
        if port.scalar_ok:
            assert t.param(port.name).kind == "optional_number"
    assert t.category == sig.category
    if sig.mutates and sig.namespace == "torch.nn.functional":  # ``F.leaky_relu_``
        assert (t.id, t.kind, t.methods) == (sig.qualname, NodeKind.INPLACE, ())
    elif sig.mutates:
        assert (t.id, t.kind) == (f"Tensor.{sig.name}", NodeKind.INPLACE)
    else:
        assert t.kind in (NodeKind.OP, NodeKind.SOURCE)


@pytest.mark.parametrize("node_type", catalogue().types(), ids=lambda t: t.id)
def test_every_type_writes_valid_python(node_type) -> None:
    inputs = {
        p.name: (["t0", "t1"] if p.variadic else ("lst" if p.type is PortType.TENSORS else "t0"))
        for p in node_type.inputs
    }
    try:
        code = node_type.code(CodeCall(inputs, node_type.defaults(), "cpu"))
    except NodeInputError:
        # two tensors on an optional port may not fit the defaults (an index key
        # without `index`): leave the optional variadic ports empty
        for p in node_type.inputs:
            if p.variadic and p.optional:
                inputs[p.name] = []
        code = node_type.code(CodeCall(inputs, node_type.defaults(), "cpu"))
    ast.parse(code)


@pytest.mark.parametrize(
    "node_type",
    [t for t in catalogue().types() if t.kind in (NodeKind.OP, NodeKind.INPLACE)],
    ids=lambda t: t.id,
)
def test_every_op_evaluates_or_reports_an_error_on_its_node(node_type) -> None:
    """Wire a float tensor into every input: the step either works or records an error."""
    doc = Document()
    source = doc.new_node("torch.tensor", params={"data": [[1.0, 2.0], [3.0, 4.0]]}, label="x")
    doc.add_node(source)
    node = doc.new_node(node_type.id)
    doc.add_node(node)
    for port in node_type.inputs:
        if port.type is PortType.TENSOR:
            doc.connect(source.id, "out", node.id, port.name)
    result = evaluate(doc)
    step = result.result_for(node.id)
    assert step.status in ("ok", "error")
    if step.status == "error":
        assert step.error is not None and step.error.message and step.error.explanation


def test_hand_declared_types_are_not_engine_functions() -> None:
    engine_names = {s.qualname for s in SIGNATURES}
    for t in catalogue().types():
        if t.kind in (
            NodeKind.TENSOR_ACTION,
            NodeKind.INPLACE,
            NodeKind.ACTION,
            NodeKind.CUSTOM_FUNCTION,
        ):
            if t.kind is NodeKind.INPLACE and t.functions == (t.id,):
                continue  # an in-place functional (``F.leaky_relu_``) keeps its own name
            assert t.id not in engine_names


def test_aliases_resolve_renamed_types() -> None:
    cat = catalogue()
    assert cat.resolve("action.backward") == "Tensor.backward"
    assert cat.get("source.tensor").id == "torch.tensor"
    with pytest.raises(KeyError):
        cat.resolve("no.such.type")
    for alias in TYPE_ALIASES:
        assert cat.get(alias).id == TYPE_ALIASES[alias]


def test_palette_categories_cover_every_type() -> None:
    cat = catalogue()
    assert set(cat.categories()) == {t.category for t in cat.types()}
    assert cat.categories()[0] == "creation"


def test_param_checks_give_messages() -> None:
    spec = catalogue().get("torch.tensor").param("data")
    with pytest.raises(ValueError, match="rectangular"):
        spec.check([[1.0], [1.0, 2.0]])
    assert catalogue().get("torch.sum").param("dtype").check("torch.double") == "float64"
