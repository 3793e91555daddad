"""The memory budget: a step whose outputs would not fit is refused before it allocates
(issue 9, part 4).  Budgets here are small, so nothing big is ever asked for."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gradstudio.cli import main
from gradstudio.document.model import Document
from gradstudio.evaluation.budget import GIB, format_size, parse_size
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.plan import prepare
from gradstudio.evaluation.results import Evaluation
from gradstudio.evaluation.worker import run_plan
from gradstudio.interchange.fileformat import save_document
from gradstudio.interchange.trust import TrustStore
from tests.hostile import hostile

MIB = 1 << 20


def _node(doc: Document, type_id: str, label: str, params: dict | None = None, *inputs) -> str:  # noqa: ANN002
    node = doc.new_node(type_id, (0, 0), params or {}, label)
    doc.add_node(node)
    for src, port in inputs:
        doc.connect(src, "out", node.id, port)
    return node.id


def _refusal(ev: Evaluation) -> str:
    (error,) = ev.errors
    assert error.exc_type == "MemoryBudgetError" and error.title == "Over the memory budget"
    assert "\n" not in error.message
    return error.message


def test_the_bombs_of_issue_9_are_refused_at_the_default_budget() -> None:
    """arange to 2e8, [20000, 1] + [1, 20000], many edges into one cat of a 1M tensor,
    expand(-1) then clone: each is one line naming the node, and nothing is allocated."""
    doc = Document()
    _node(doc, "torch.arange", "r", {"start": 0, "end": 200_000_000})
    assert _refusal(evaluate(doc)) == "`r` would allocate 1.5 GiB; the budget is 1 GiB"
    doc = Document()
    a = _node(doc, "torch.zeros", "a", {"size": [20000, 1]})
    b = _node(doc, "torch.zeros", "b", {"size": [1, 20000]})
    _node(doc, "torch.add", "sum", {}, (a, "input"), (b, "other"))
    assert _refusal(evaluate(doc)) == "`sum` would allocate 1.5 GiB; the budget is 1 GiB"
    doc = Document()
    x = _node(doc, "torch.zeros", "x", {"size": [1_000_000]})
    cat = _node(doc, "torch.cat", "big")
    for _ in range(5000):
        doc.connect(x, "out", cat, "tensors")
    assert _refusal(evaluate(doc)) == "`big` would allocate 18.6 GiB; the budget is 1 GiB"
    doc = Document()
    x = _node(doc, "torch.zeros", "x", {"size": [1_000_000, 1]})
    e = _node(doc, "torch.Tensor.expand", "e", {"size": [-1, 1_000_000]}, (x, "input"))
    _node(doc, "torch.clone", "c", {}, (e, "input"))
    assert _refusal(evaluate(doc)) == "`e` would allocate 3.6 TiB; the budget is 1 GiB"


def test_arange_is_refused_from_its_parameters() -> None:
    doc = Document()
    _node(doc, "torch.arange", "r", {"start": 0, "end": 200_000_000})
    ev = evaluate(doc, memory_budget=GIB)
    assert _refusal(ev) == "`r` would allocate 1.5 GiB; the budget is 1 GiB"
    assert ev.steps[0].status == "error" and not ev.steps[0].changed


def test_a_broadcast_add_is_refused_from_the_input_shapes() -> None:
    doc = Document()
    a = _node(doc, "torch.zeros", "a", {"size": [2000, 1]})
    b = _node(doc, "torch.zeros", "b", {"size": [1, 2000]})
    _node(doc, "torch.add", "big", {}, (a, "input"), (b, "other"))
    ev = evaluate(doc, memory_budget=8 * MIB)
    assert _refusal(ev) == "`big` would allocate 15.3 MiB; the budget is 8 MiB"
    assert [s.status for s in ev.steps] == ["ok", "ok", "error"]


def test_cat_of_many_edges_from_one_tensor() -> None:
    doc = Document()
    x = _node(doc, "torch.zeros", "x", {"size": [100_000]})
    cat = _node(doc, "torch.cat", "big")
    for _ in range(50):
        doc.connect(x, "out", cat, "tensors")
    ev = evaluate(doc, memory_budget=16 * MIB)
    assert _refusal(ev) == "`big` would allocate 19.1 MiB; the budget is 16 MiB"


def test_expand_then_clone_is_refused_at_the_expand() -> None:
    doc = Document()
    x = _node(doc, "torch.zeros", "x", {"size": [2000, 1]})
    e = _node(doc, "torch.Tensor.expand", "wide", {"size": [-1, 2000]}, (x, "input"))
    _node(doc, "torch.clone", "copy", {}, (e, "input"))
    ev = evaluate(doc, memory_budget=8 * MIB)
    assert _refusal(ev) == "`wide` would allocate 15.3 MiB; the budget is 8 MiB"


def test_matmul_outer_product() -> None:
    doc = Document()
    a = _node(doc, "torch.zeros", "a", {"size": [3000, 1]})
    b = _node(doc, "torch.zeros", "b", {"size": [1, 3000]})
    _node(doc, "torch.matmul", "outer", {}, (a, "input"), (b, "other"))
    assert "`outer` would allocate 34.3 MiB" in _refusal(evaluate(doc, memory_budget=16 * MIB))


def test_the_budget_is_document_wide() -> None:
    doc = Document()
    _node(doc, "torch.zeros", "a", {"size": [1000, 150]})  # 0.57 MiB
    _node(doc, "torch.ones", "b", {"size": [1000, 150]})
    ev = evaluate(doc, memory_budget=MIB)
    assert _refusal(ev) == (
        "`b` would allocate 585.9 KiB with 585.9 KiB already held; the budget is 1 MiB"
    )


def test_steps_within_the_budget_run_and_no_budget_means_none() -> None:
    doc = Document()
    a = _node(doc, "torch.zeros", "a", {"size": [1000, 1]})
    b = _node(doc, "torch.zeros", "b", {"size": [1, 1000]})
    _node(doc, "torch.add", "sum", {}, (a, "input"), (b, "other"))
    assert evaluate(doc).ok
    assert evaluate(doc, memory_budget=None).ok
    assert not evaluate(doc, memory_budget=MIB).ok


def test_sizes_no_shape_rule_knows_are_checked_before_they_are_recorded() -> None:
    """Indexing: only running it tells the size; the copy into the timeline is refused."""
    doc = Document()
    x = _node(doc, "torch.zeros", "x", {"size": [1000, 1]})
    i = _node(doc, "torch.zeros", "i", {"size": [500], "dtype": "int64"})
    _node(doc, "Tensor.__getitem__", "rows", {"key": ":, index"}, (x, "input"), (i, "index"))
    ev = evaluate(doc, memory_budget=MIB)
    assert "`rows` would allocate 1.9 MiB" in _refusal(ev)


def test_a_memory_error_in_function_code_is_one_line() -> None:
    ev = evaluate(hostile("import numpy\nnumpy.ones(2**44, dtype=numpy.uint8)"))
    (error,) = ev.errors
    assert error.exc_type == "MemoryError" and error.title == "Out of memory"
    assert error.message == "`f` ran out of memory allocating 16 TiB; the budget is 1 GiB"


def test_the_worker_caps_its_address_space_beside_the_budget() -> None:
    """3 GiB inside Function code, which no shape rule sees, fails in the worker."""
    doc = hostile("import numpy\nnumpy.ones(3 * 2**30, dtype=numpy.uint8)")
    ev = run_plan(prepare(doc, memory_budget=256 * MIB))
    (error,) = ev.errors
    assert error.exc_type == "MemoryError"
    assert error.message == "`f` ran out of memory allocating 3 GiB; the budget is 256 MiB"
    assert run_plan(prepare(hostile())).ok  # the worker lives on, its cap lifted


@pytest.mark.parametrize(
    ("text", "size"),
    [("2GiB", 2 * GIB), ("512M", 512 * MIB), ("1.5g", GIB * 3 // 2), ("4096", 4096)],
)
def test_parse_size(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "-1G", "0"])
def test_parse_size_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_size(text)


def test_format_size() -> None:
    assert format_size(2 * GIB) == "2 GiB"
    assert format_size(20_000_000_000) == "18.6 GiB"
    assert format_size(512) == "512 bytes"


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


def test_cli_memory_budget(tmp_path: Path) -> None:
    doc = Document()
    _node(doc, "torch.arange", "r", {"start": 0, "end": 1_000_000})
    path = tmp_path / "r.gstudio"
    save_document(doc, path, TrustStore(tmp_path / "t"))
    assert _cli("run", str(path))[0] == 0
    code, _, err = _cli("run", str(path), "--memory-budget", "1MiB")
    assert code == 1
    assert (
        "error in step 1 'r': MemoryBudgetError: "
        "`r` would allocate 7.6 MiB; the budget is 1 MiB" in err
    )
    code, out, err = _cli("run", str(path), "--memory-budget", "lots")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
