"""Keyword arguments declared once in the engine's catalogue (``div``'s ``rounding_mode``,
``round``'s ``decimals``, ``std``/``var``'s ``unbiased`` and ``correction``) reach the
palette's node types, the file format and the importer from that one declaration;
PyTorch agrees on their values in ``test_gs_torch_roundtrip`` (``catalogue_keywords``)."""

from __future__ import annotations

import pytest

from gradstudio.catalogue import catalogue
from gradstudio.document.model import Document
from gradstudio.interchange.fileformat import DocumentError, dumps, loads, to_json
from gradstudio.interchange.pytorch_import import import_snippet
from tests.gradstudio.snippets import CATALOGUE_KEYWORDS


@pytest.mark.parametrize(
    ("type_id", "name", "kind", "default", "choices"),
    [
        ("torch.div", "rounding_mode", "optional_str", None, ("trunc", "floor")),
        ("Tensor.div_", "rounding_mode", "optional_str", None, ("trunc", "floor")),
        ("torch.round", "decimals", "int", 0, ()),
        ("Tensor.round_", "decimals", "int", 0, ()),
        ("torch.std", "unbiased", "optional_bool", None, ()),
        ("torch.var", "correction", "optional_number", None, ()),
    ],
)
def test_the_node_type_has_the_declared_parameter(
    type_id: str, name: str, kind: str, default: object, choices: tuple[str, ...]
) -> None:
    spec = catalogue().get(type_id).param(name)
    assert (spec.kind, spec.default, spec.choices, spec.required) == (kind, default, choices, False)


def test_a_rounding_mode_is_chosen_among_none_and_the_modes() -> None:
    from gradstudio.params import param_kind

    spec = catalogue().get("torch.div").param("rounding_mode")
    options = param_kind(spec.kind).options(spec.choices)
    assert options == [("default (None)", None), ("trunc", "trunc"), ("floor", "floor")]


def test_the_keywords_survive_a_file_round_trip() -> None:
    doc = import_snippet(CATALOGUE_KEYWORDS)
    params = {n.label: n.params for n in doc.nodes()}
    assert params["f"]["rounding_mode"] == "floor"
    assert params["r"]["decimals"] == 1
    assert params["s"]["unbiased"] is False
    assert params["v"]["correction"] == 0
    assert to_json(loads(dumps(doc))) == to_json(doc)


@pytest.mark.parametrize(
    ("label", "name", "value", "message"),
    [
        ("f", "rounding_mode", '"round"', "expected one of 'trunc', 'floor', got 'round'"),
        ("r", "decimals", "1.5", "expected an integer, got 1.5"),
        ("s", "unbiased", '"no"', "expected true or false, got 'no'"),
    ],
)
def test_a_file_with_a_wrong_value_is_refused(
    label: str, name: str, value: str, message: str
) -> None:
    doc = import_snippet(CATALOGUE_KEYWORDS)
    node = doc.node_by_label(label)
    assert node is not None
    old = dumps(doc)
    held = {"rounding_mode": '"floor"', "decimals": "1", "unbiased": "false"}[name]
    text = old.replace(f'"{name}": {held}', f'"{name}": {value}', 1)
    assert text != old
    with pytest.raises(DocumentError, match=message):
        loads(text, "wrong.gstudio")


def test_a_new_node_starts_without_them() -> None:
    doc = Document()
    node = doc.new_node("torch.std", (0, 0), {}, "s")
    assert node.params["unbiased"] is None and node.params["correction"] is None
