"""The .gstudio format: round trip, schema, migrations, aliases, atomic saves, fuzzing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradstudio.document.groups import Group
from gradstudio.document.model import Document
from gradstudio.interchange.fileformat import (
    VERSION,
    DocumentError,
    dumps,
    from_json,
    load_document,
    loads,
    save_document,
    to_json,
)
from gradstudio.interchange.pytorch_import import import_snippet
from gradstudio.interchange.trust import TrustStore

SNIPPET = """\
import torch
w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)
a = torch.add(w, x)
y = a * w
y.backward(retain_graph=True)
"""

FUNCTION_SNIPPET = """\
import torch
from torch.autograd import Function
class Double(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
x = torch.tensor([1.], requires_grad=True)
y = Double.apply(x)
"""


def test_round_trip_keeps_everything(tmp_path: Path, store: TrustStore) -> None:
    doc = import_snippet(SNIPPET)
    doc.set_meta("title", "Seed")
    doc.set_setting("seed", 7)
    path = tmp_path / "doc.gstudio"
    save_document(doc, path, store)
    again = load_document(path, store)
    assert to_json(again) == to_json(doc)
    assert json.loads(path.read_text())["format"] == "gradstudio"
    assert json.loads(path.read_text())["version"] == VERSION


def test_version_1_files_are_migrated() -> None:
    old = {
        "format": "gradstudio",
        "version": 1,
        "device": "cpu",
        "title": "old",
        "nodes": [
            {
                "id": "b",
                "type": "torch.mul",
                "label": "b",
                "x": 5,
                "y": 6,
                "step": 1,
                "params": {"other": 2},
            },
            {
                "id": "a",
                "type": "source.tensor",
                "label": "a",
                "step": 0,
                "params": {"data": [1.0]},
            },
        ],
        "edges": [{"source": "a", "source_port": "out", "target": "b", "target_port": "input"}],
    }
    doc = from_json(old, "old.gstudio")
    assert doc.order == ("a", "b")
    assert doc.node("a").type_id == "torch.tensor"  # renamed type loads through its alias
    assert doc.node("b").position == (5.0, 6.0)
    assert doc.meta["title"] == "old"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"format": "gradstudio", "version": 99, "nodes": [], "edges": [], "order": []},
            "newer GradStudio",
        ),
        ({"format": "other"}, "not a GradStudio document"),
        ({"format": "gradstudio", "version": 2, "nodes": [], "edges": []}, "'order' is a required"),
        (
            {
                "format": "gradstudio",
                "version": 2,
                "edges": [],
                "order": ["n1"],
                "nodes": [
                    {
                        "id": "n1",
                        "type": "torch.nope",
                        "label": "z",
                        "position": [0, 0],
                        "params": {},
                    }
                ],
            },
            "node 'z' has unknown type",
        ),
        (
            {
                "format": "gradstudio",
                "version": 2,
                "order": ["n2", "n1"],
                "nodes": [
                    {
                        "id": "n1",
                        "type": "torch.tensor",
                        "label": "x",
                        "position": [0, 0],
                        "params": {},
                    },
                    {
                        "id": "n2",
                        "type": "torch.exp",
                        "label": "e",
                        "position": [0, 0],
                        "params": {},
                    },
                ],
                "edges": [{"from": ["n1", "out"], "to": ["n2", "input"]}],
            },
            "node 'e' .* contradicts the data flow",
        ),
    ],
)
def test_bad_documents_give_one_clear_error(data: dict, message: str) -> None:
    with pytest.raises(DocumentError, match=message) as info:
        from_json(data, "bad.gstudio")
    assert str(info.value).startswith("bad.gstudio: ")


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="no such file"):
        load_document(tmp_path / "missing.gstudio")
    with pytest.raises(DocumentError, match="folder"):
        load_document(tmp_path)
    bad = tmp_path / "bad.gstudio"
    bad.write_bytes(b"\xff\xfe garbage")
    with pytest.raises(DocumentError, match="not UTF-8"):
        load_document(bad)
    bad.write_text('{"format": "gradstudio", "version": NaN}')
    with pytest.raises(DocumentError, match="not valid JSON"):
        load_document(bad)


def test_save_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: TrustStore) -> None:
    path = tmp_path / "doc.gstudio"
    doc = import_snippet(SNIPPET)
    save_document(doc, path, store)
    before = path.read_bytes()
    doc.set_meta("title", "changed")

    def crash(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(DocumentError, match="No space left"):
        save_document(doc, path, store)
    assert path.read_bytes() == before
    assert not list(tmp_path.glob(".doc.gstudio.*"))  # the temporary file is cleaned up


def test_trust_follows_content_hash(tmp_path: Path, store: TrustStore) -> None:
    path = tmp_path / "f.gstudio"
    path.write_text(dumps(import_snippet(FUNCTION_SNIPPET)))
    doc = load_document(path, store)
    assert not doc.trusted and doc.source_hash
    from gradstudio.interchange.trust import trust_document

    trust_document(doc, store)
    assert load_document(path, store).trusted
    doc.set_meta("title", "edited")
    save_document(doc, path, store)  # a trusted document's new bytes stay trusted
    assert load_document(path, store).trusted
    path.write_text(path.read_text().replace("x * 2", "x * 3"))
    assert not load_document(path, store).trusted
    plain = tmp_path / "plain.gstudio"
    plain.write_text(dumps(import_snippet(SNIPPET)))
    assert load_document(plain, store).trusted  # nothing to run, nothing to trust


def test_damaged_trust_store_reads_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "trusted.json"
    path.write_text("{not json")
    store = TrustStore(path)
    assert not store.is_trusted("sha256:00")
    store.trust("sha256:00")
    assert store.is_trusted("sha256:00")
    store.forget("sha256:00")
    assert not store.is_trusted("sha256:00")


def test_default_trust_store_lives_in_the_config_dir_private(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """One store for the command line and the studio (whose QSettings folder is
    ``GradStudio``), readable by the user alone."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    store = TrustStore()
    assert store.path == tmp_path / "GradStudio" / "trusted.json"
    store.trust("sha256:00")
    assert store.path.stat().st_mode & 0o777 == 0o600
    store.path.chmod(0o644)
    store.trust("sha256:01")  # rewriting makes it private again
    assert store.path.stat().st_mode & 0o777 == 0o600


# ------------------------------------------------------------------------------ fuzzing


def _grouped(doc: Document) -> Document:
    """The snippet with nested groups, so the fuzzers also reach every group field."""
    ids = [n.id for n in doc.nodes()]
    doc.add_groups(
        [
            Group("g2", "inner", ids[2:3], parent="g1", collapsed=True),
            Group("g1", "outer", ids[:2], "#336699", kind="module", meta={"class": "Linear"}),
        ]
    )
    return doc


VALID = to_json(_grouped(import_snippet(SNIPPET)))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


PATHS = _paths(VALID)[1:]


def _replace(doc: object, path: tuple, new: object) -> object:
    if not path:
        return new
    copy = json.loads(json.dumps(doc))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return copy


def _load_or_documented_error(data: bytes | str) -> None:
    try:
        doc = loads(data, "fuzz.gstudio")
    except DocumentError as exc:
        assert str(exc).startswith("fuzz.gstudio: ")
        return
    assert isinstance(doc, Document)
    assert doc.validate() == []


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.binary(max_size=200))
def test_fuzz_bytes(data: bytes) -> None:
    _load_or_documented_error(data)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(json_values)
def test_fuzz_json_values(value: object) -> None:
    _load_or_documented_error(json.dumps(value))


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(PATHS), json_values)
def test_fuzz_mutated_documents(path: tuple, new: object) -> None:
    _load_or_documented_error(json.dumps(_replace(VALID, path, new)))


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.integers(min_value=0, max_value=len(json.dumps(VALID))), st.integers(0, 40))
def test_fuzz_truncated_and_spliced(cut: int, repeat: int) -> None:
    text = json.dumps(VALID)
    _load_or_documented_error(text[:cut])
    _load_or_documented_error(text[:cut] + "[" * repeat * 100 + text[cut:])


def test_deep_nesting_is_a_documented_error() -> None:
    _load_or_documented_error("[" * 100_000)
    data = _replace(VALID, ("nodes", 0, "params", "data"), None)
    text = json.dumps(data).replace("null", "[" * 5000 + "1" + "]" * 5000)
    _load_or_documented_error(text)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(PATHS), json_values)
def test_compiled_schema_check_agrees_with_jsonschema(path: tuple, new: object) -> None:
    """The fast compiled check (draft-07 rendering) accepts exactly what the documented
    2020-12 schema accepts, so valid files never meet the slow path and invalid ones
    never slip through."""
    import fastjsonschema
    import jsonschema

    from gradstudio.interchange.fileformat import _fast_check, schema

    data = _replace(VALID, path, new)
    try:
        _fast_check()(data)
        fast_ok = True
    except fastjsonschema.JsonSchemaException:
        fast_ok = False
    slow_ok = jsonschema.Draft202012Validator(schema()).is_valid(data)
    assert fast_ok == slow_ok
