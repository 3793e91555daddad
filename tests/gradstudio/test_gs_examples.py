"""The bundled examples load, evaluate without errors and show the seeds' facts."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradstudio.document.model import Document
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.results import Evaluation
from gradstudio.interchange.examples import EXAMPLES, EXAMPLES_DIR, build
from gradstudio.interchange.fileformat import dumps, load_document
from gradstudio.interchange.trust import TrustStore, trust_document

FILES = sorted(EXAMPLES_DIR.glob("*.gstudio"))


def _load(name: str, store: TrustStore) -> tuple[Document, Evaluation]:
    doc = load_document(EXAMPLES_DIR / f"{name}.gstudio", store)
    trust_document(doc, store)
    return doc, evaluate(doc)


def _facts(doc: Document, ev: Evaluation, label: str, step: int | None = None):
    node = doc.node_by_label(label)
    assert node is not None, label
    snap = ev.final if step is None else ev.snapshot(step)
    facts = snap.facts(node.id)
    assert facts is not None
    return facts


def test_there_is_one_file_per_example() -> None:
    assert [p.stem for p in FILES] == sorted(e.name for e in EXAMPLES)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_committed_file_is_up_to_date(example) -> None:
    path = EXAMPLES_DIR / f"{example.name}.gstudio"
    assert path.read_text("utf-8") == dumps(build(example)), (
        "run python -m gradstudio.interchange.examples"
    )


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_example_evaluates_without_errors(path: Path, store: TrustStore) -> None:
    doc, ev = _load(path.stem, store)
    assert ev.ok, ev.errors
    assert doc.meta["title"] and doc.meta["description"]
    assert all(not s.warnings for s in ev.steps)


def test_seed_000_is_leaf_cases(store: TrustStore) -> None:
    doc, ev = _load("000_is_leaf", store)
    leaf = {label: _facts(doc, ev, label).is_leaf for label in "abcdef"}
    assert leaf == {"a": True, "b": False, "c": False, "d": True, "e": True, "f": True}
    assert _facts(doc, ev, "b").grad_fn_name == "ToCopyBackward0"
    assert _facts(doc, ev, "e").requires_grad and not _facts(doc, ev, "d").requires_grad


def test_seed_001_w_grad_is_5(store: TrustStore) -> None:
    doc, ev = _load("001_leaf_grad", store)
    assert _facts(doc, ev, "w").grad.value == [5.0]
    a = _facts(doc, ev, "a")
    assert not a.is_leaf and a.grad_fn_name == "AddBackward0" and a.requires_grad


def test_seed_002_clone_accumulates_2_then_4(store: TrustStore) -> None:
    doc, ev = _load("006_clone_accumulates", store)
    first = doc.step_of(doc.node_by_label("b.backward(retain_graph=True)").id)
    assert _facts(doc, ev, "a", first).grad.value == 2.0
    assert _facts(doc, ev, "a").grad.value == 4.0
    assert _facts(doc, ev, "b_clone").grad_fn_name == "CloneBackward0"


def test_seed_002_detach_data_clone(store: TrustStore) -> None:
    doc, ev = _load("002_detach_data_clone", store)
    first = doc.step_of(doc.node_by_label("b.backward(retain_graph=True)").id)
    assert _facts(doc, ev, "a", first).grad.value == 2.0
    assert _facts(doc, ev, "a").grad.value == 0.0
    assert _facts(doc, ev, "b").grad_fn_name == "ZeroBackward0"
    assert _facts(doc, ev, "b_clone").value == 2.0
    assert (
        _facts(doc, ev, "b_detach", first).value == 0.0 and _facts(doc, ev, "b", first).value == 0.0
    )


def test_seed_003_linear_is_addmm(store: TrustStore) -> None:
    doc, ev = _load("003_linear_addmm", store)
    out = _facts(doc, ev, "out")
    assert out.grad_fn_name == "AddmmBackward0"
    names = [n.name if n else None for n in out.grad_fn.next_functions]
    assert names == ["AccumulateGrad", None, "TBackward0"]


def test_seed_004_custom_function(store: TrustStore) -> None:
    doc, ev = _load("004_custom_function", store)
    assert _facts(doc, ev, "a").grad.value == 10.0
    assert _facts(doc, ev, "b").grad.value == 9.0
    d = _facts(doc, ev, "d")
    assert d.grad_fn_name == "FuncBackward"


def test_mlp_step_updates_weights_and_clears_grads(store: TrustStore) -> None:
    doc, ev = _load("005_mlp_training_step", store)
    w1 = doc.node_by_label("w1")
    backward = doc.step_of(doc.node_by_label("loss.backward()").id)
    assert ev.snapshot(backward).facts(w1.id).grad is not None
    final = _facts(doc, ev, "w1")
    assert final.grad is None and final.version == 1 and final.is_leaf
    assert _facts(doc, ev, "loss").grad_fn_name == "NllLossBackward0"
