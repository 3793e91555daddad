"""Hostile files and snippets: loading stays linear, folding bounded, messages one line.

The bombs of issue 9 run in a child process under an address-space limit, so that a
regression fails the test instead of eating the machine's memory.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gradstudio.cli import main
from gradstudio.document.clipboard import copy_nodes
from gradstudio.document.commands import PasteCommand
from gradstudio.document.model import Document
from gradstudio.document.values import EditError
from gradstudio.interchange.fileformat import (
    DocumentError,
    dumps,
    load_document,
    loads,
    save_document,
)
from gradstudio.interchange.pytorch_import import ImportProblem, import_snippet
from tests.gradstudio.snippets import SEED_001

ROOT = Path(__file__).resolve().parents[2]


def document(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "format": "gradstudio",
        "version": 2,
        "nodes": nodes,
        "edges": edges,
        "order": [n["id"] for n in nodes],
    }


def node(node_id: str, type_id: str = "torch.ones", label: str | None = None) -> dict[str, Any]:
    return {
        "id": node_id,
        "type": type_id,
        "label": label or node_id,
        "position": [0, 0],
        "params": {},
    }


# ------------------------------------------------------------------------ linear loading


def test_edges_into_one_cat_load_in_linear_time() -> None:
    """10,000 edges into one ``cat`` took 40 s when each edge rescanned the port."""
    count = 10_000
    edges = [{"from": ["x", "out"], "to": ["c", "tensors"], "slot": i} for i in range(count)]
    text = json.dumps(document([node("x"), node("c", "torch.cat")], edges))
    t0 = time.process_time()
    doc = loads(text)
    assert time.process_time() - t0 < 4.0
    assert len(doc.inputs_of("c", "tensors")) == count


def test_a_taken_slot_is_still_refused() -> None:
    edges = [{"from": ["x", "out"], "to": ["c", "tensors"], "slot": 3}] * 2
    with pytest.raises(DocumentError, match="slot 3 of 'tensors' is taken"):
        loads(json.dumps(document([node("x"), node("c", "torch.cat")], edges)))


def test_schema_errors_on_huge_files_are_one_short_line() -> None:
    nodes = [node(f"n{i}") for i in range(100_001)]
    t0 = time.process_time()
    with pytest.raises(DocumentError) as caught:
        loads(json.dumps(document(nodes, [])))
    assert time.process_time() - t0 < 10.0
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400
    assert "100000" in message and "nodes" in message


def test_a_long_value_in_a_schema_error_is_cut() -> None:
    bad = node("x")
    bad["label"] = ["A" * 100_000]
    with pytest.raises(DocumentError) as caught:
        loads(json.dumps(document([bad], [])))
    assert len(str(caught.value)) < 400 and "label" in str(caught.value)


# ------------------------------------------------------------------------ lone surrogates


def test_a_lone_surrogate_is_refused_at_load(tmp_path: Path) -> None:
    path = tmp_path / "surrogate.gstudio"
    text = json.dumps(document([node("x", label="\ud800")], []))  # ensure_ascii: "\\ud800"
    path.write_text(text, encoding="ascii")
    with pytest.raises(DocumentError, match="not valid Unicode"):
        load_document(path)
    out, err = io.StringIO(), io.StringIO()
    assert main(["run", str(path)], out, err) == 2
    assert err.getvalue().count("\n") == 1 and "Traceback" not in err.getvalue()


def test_an_escaped_surrogate_pair_still_loads() -> None:
    text = json.dumps(document([node("x", label="smile \U0001f600")], []))
    assert "\\ud83d\\ude00" in text
    assert loads(text).node("x").label == "smile \U0001f600"


def test_saving_a_lone_surrogate_is_a_document_error_and_keeps_the_file(tmp_path: Path) -> None:
    path = tmp_path / "keep.gstudio"
    doc = import_snippet(SEED_001)
    save_document(doc, path)
    before = path.read_bytes()
    doc.set_label(doc.nodes()[0].id, "bad \udcff")
    with pytest.raises(DocumentError, match="not valid Unicode"):
        save_document(doc, path)
    assert path.read_bytes() == before


# ------------------------------------------------------------------------ terminal output


def test_run_table_escapes_control_characters(tmp_path: Path) -> None:
    doc = Document()
    labels = ["esc\x1b[2Jx", "nul\x00x", "cr\rx", "bel\x07x"]
    for i, label in enumerate(labels):
        doc.add_node(doc.new_node("torch.ones", label=label, node_id=f"n{i}"))
    path = tmp_path / "control.gstudio"
    path.write_text(dumps(doc), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["run", str(path)], out, err) == 0
    table = out.getvalue()
    assert not any(c in table for c in "\x1b\x00\r\x07")
    assert "esc\\x1b[2Jx" in table and "cr\\rx" in table
    assert len(table.splitlines()) == 2 + len(labels)


# ------------------------------------------------------------------------ import bombs

BOMBS = {
    "x = 'a' * (10 ** 10)": "over 1,000,000 items",
    "x = [0.0] * 10**9": "over 1,000,000 items",
    "x = 2 ** 2 ** 2 ** 2 ** 2 ** 2": "exponent over 64",
    "x = ((((2 ** 64) ** 64) ** 64) ** 64) ** 64": "over 4,096 bits",
    "r = [0.0] * 1000\nx = [r] * 1000 * 1000": "over 1,000,000 items",
    "x = [[[0.0] * 100] * 100] * 100 + [[[1.0]]]": "over 1,000,000 items",
}

CHILD = """
import json, resource, sys, time, tracemalloc
limit = 2 << 30
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.path.insert(0, sys.argv[1])
from gradstudio.interchange.pytorch_import import ImportProblem, import_snippet
results = []
for source in json.loads(sys.argv[2]):
    tracemalloc.start()
    t0 = time.process_time()
    try:
        import_snippet("import torch\\n" + source + "\\n")
        outcome = "imported"
    except ImportProblem as exc:
        outcome = str(exc)
    except MemoryError:
        outcome = "MemoryError"
    seconds = time.process_time() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    results.append([outcome, seconds, peak])
print(json.dumps(results))
"""


def test_constant_folding_is_bounded_in_size_and_time() -> None:
    sources = list(BOMBS)
    run = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT), json.dumps(sources)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    for source, (outcome, seconds, peak) in zip(sources, json.loads(run.stdout), strict=True):
        assert "cannot fold this constant" in outcome and BOMBS[source] in outcome, source
        assert outcome.count("\n") == 0
        assert seconds < 5.0, source
        assert peak < 64 << 20, source  # bytes traced by the import itself


def test_folding_a_reasonable_constant_still_works() -> None:
    doc = import_snippet(
        "import torch\nx = torch.tensor([0.5] * 4 + [1.0] * (2 ** 2), requires_grad=True)\n"
    )
    (x,) = doc.nodes()
    assert x.params["data"] == [0.5] * 4 + [1.0] * 4


def test_folding_time_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from gradstudio.interchange import folding

    monkeypatch.setattr(folding, "MAX_SECONDS", 0.0)
    with pytest.raises(ImportProblem, match="takes over 0 seconds"):
        import_snippet("import torch\nx = 1 + 1\n")


def test_an_oversized_snippet_is_refused() -> None:
    with pytest.raises(ImportProblem, match="GradStudio imports snippets of up to"):
        import_snippet("x = 1\n" * 200_000)


def test_a_lone_surrogate_on_the_clipboard_is_refused() -> None:
    source = import_snippet(SEED_001)
    text = copy_nodes(source, list(source.order)).replace('"label": "w"', '"label": "\\udc80"')
    assert "\\udc80" in text
    doc = Document(trusted=True)
    with pytest.raises(EditError, match="not valid Unicode"):
        PasteCommand(doc, text)
    assert len(doc) == 0
