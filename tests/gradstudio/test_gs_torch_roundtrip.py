"""Against real PyTorch: exported scripts and imported snippets report the engine's facts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pytest

from gradstudio.document.model import Document
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.examples import EXAMPLES, build
from gradstudio.interchange.pytorch_export import FACTS_HELPER, export_script
from gradstudio.interchange.pytorch_import import import_snippet
from tests.gradstudio.snippets import (
    ADAPTIVE_SIZES,
    CATALOGUE_KEYWORDS,
    INDEXING,
    NON_FINITE,
    SMALL_INTS,
)

pytestmark = pytest.mark.torch
pytest.importorskip("torch", reason="PyTorch is the oracle these tests compare with")

EXACT = (
    "shape",
    "dtype",
    "device",
    "requires_grad",
    "is_leaf",
    "grad_fn",
    "next_functions",
    "retains_grad",
    "version",
)

EXTRA_SNIPPETS = {
    "inplace_and_retain": """\
import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
y.retain_grad()
z = y.sum()
z.backward(retain_graph=True)
y2 = y.clone()
y2.mul_(3)
t = y2.sum()
t.backward()
""",
    "grad_and_views": """\
import torch
import torch.nn.functional as F
x = torch.tensor([[1., -2.], [3., 4.]], requires_grad=True)
y = x.t().unsqueeze(0)
s = F.log_softmax(y, dim=2)
m = s.mean()
gx, = torch.autograd.grad(m, [x], create_graph=True)
q = (gx * gx).sum()
q.backward()
""",
    "indexing_and_T": INDEXING,
    "non_finite_numbers": NON_FINITE,
    "catalogue_keywords": CATALOGUE_KEYWORDS,
    "small_ints": SMALL_INTS,
    "adaptive_sizes": ADAPTIVE_SIZES,
    "index_keys": """\
import torch
x = torch.arange(24.).reshape(2, 3, 4).requires_grad_()
i = 1
a = x[-1]
b = x[0, 1:3, None]
c = x[..., 0]
d = x[:, ::2, i]
e = x[:]
f = x.mT
g = x[[1, 0]]
idx = torch.tensor([2, 0])
h = x[1, idx]
k = x[0][x[0] > 5]
s = a.sum() + b.sum() + c.sum() + d.sum() + e.sum() + f.sum() + g.sum() + h.sum() + k.sum()
s.backward()
""",
    "setitem": """\
import torch
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
w = torch.tensor([10., 20.], requires_grad=True)
y = x * 2
y[0] = 5.
y[1, :] = w
m = y > 6
y[m] = 0.
z = y.clone()
z[0, -1] = 3
s = (y * z).sum()
s.backward()
""",
}


DRIVER = """
import contextlib, io, json, runpy, sys, traceback
results = {}
for name, path in json.loads(sys.argv[1]).items():
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name="__main__")
        results[name] = json.loads(out.getvalue().strip().splitlines()[-1])
    except BaseException:
        results[name] = {"error": traceback.format_exc()}
print(json.dumps(results))
"""


def _run_torch(scripts: dict[str, str], tmp_path: Path) -> dict[str, Any]:
    """Run several scripts in one PyTorch process (importing torch once is the slow part)."""
    paths = {}
    for i, (name, script) in enumerate(scripts.items()):
        paths[name] = str(tmp_path / f"script_{i}.py")
        Path(paths[name]).write_text(script)
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(paths)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _random_nodes(doc: Document) -> set[str]:
    """Nodes whose values depend on random (or uninitialised) sources: values differ."""
    seeds = {
        n.id
        for n in doc.nodes()
        if n.type_id in ("torch.rand", "torch.randn")
        or (n.type_id == "torch.Tensor" and n.params["data"] is None)
    }
    out = set(seeds)
    for node_id in seeds:
        out |= nx.descendants(doc.graph, node_id)
    return out


def _close(a: Any, b: Any) -> bool:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True))


def _compare(ours: dict[str, Any], theirs: dict[str, Any], skip_values: set[str]) -> list[str]:
    problems = []
    for key in EXACT:
        if ours.get(key) != theirs.get(key):
            problems.append(
                f"{ours['label']}.{key}: engine {ours.get(key)!r}, torch {theirs.get(key)!r}"
            )
    if ours.get("node") in skip_values:
        return problems
    for key in ("value", "grad"):
        a, b = ours.get(key), theirs.get(key)
        if (a is None) != (b is None) or (a is not None and not _close(a, b)):
            problems.append(f"{ours['label']}.{key}: engine {a!r}, torch {b!r}")
    return problems


def _export_docs() -> dict[str, Document]:
    docs = {e.name: build(e) for e in EXAMPLES}
    docs.update({name: import_snippet(code) for name, code in EXTRA_SNIPPETS.items()})
    for doc in docs.values():
        doc.set_trusted(True)
    return docs


SNIPPETS = {e.name: e.code for e in EXAMPLES} | EXTRA_SNIPPETS


def _round_trip_names(doc: Document) -> list[str]:
    """Labels that are the snippet's own variable names (assigned once)."""
    return sorted(
        n.label
        for n in doc.tensor_nodes()
        if n.label.isidentifier()
        and doc.node_by_label(n.label + "_2") is None
        and len(n.type.outputs) == 1
    )


@pytest.fixture(scope="module")
def torch_facts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    scripts = {f"export:{name}": export_script(doc) for name, doc in _export_docs().items()}
    for name, code in SNIPPETS.items():
        names = _round_trip_names(import_snippet(code, trusted=True))
        scripts[f"snippet:{name}"] = (
            code
            + FACTS_HELPER
            + "\nimport json\nprint(json.dumps({'nodes': "
            + f"[_facts(n, n, globals()[n]) for n in {names!r}]}}))\n"
        )
    return _run_torch(scripts, tmp_path_factory.mktemp("torch"))


@pytest.mark.parametrize("name", sorted(_export_docs()))
def test_exported_documents_match_torch(name: str, torch_facts: dict[str, Any]) -> None:
    doc = _export_docs()[name]
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    ours = ev.to_json()
    theirs = torch_facts[f"export:{name}"]
    assert "error" not in theirs, theirs.get("error")
    assert [r["label"] for r in ours["nodes"]] == [r["label"] for r in theirs["nodes"]]
    skip = _random_nodes(doc)
    problems = [
        p for a, b in zip(ours["nodes"], theirs["nodes"], strict=True) for p in _compare(a, b, skip)
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_round_trip_snippet_document_evaluation(name: str, torch_facts: dict[str, Any]) -> None:
    """Running the snippet itself under torch gives the facts the imported document shows."""
    doc = import_snippet(SNIPPETS[name], trusted=True)
    ev = evaluate(doc)
    assert ev.ok, ev.errors
    result = torch_facts[f"snippet:{name}"]
    assert "error" not in result, result.get("error")
    theirs = {r["label"]: r for r in result["nodes"]}
    skip = _random_nodes(doc)
    problems = []
    names = _round_trip_names(doc)
    assert names
    for label in names:
        node = doc.node_by_label(label)
        assert node is not None
        facts = ev.final.facts(node.id)
        ours = {"label": label, "node": node.id, **(facts.to_json() if facts else {"value": None})}
        problems += _compare(ours, theirs[label], skip)
    assert not problems, "\n".join(problems)
