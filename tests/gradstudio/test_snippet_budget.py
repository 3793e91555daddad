"""Snippet import holds a shape against the memory budget, not a constant (issue 30): the
refusal names the tensor, its size and the budget, and a bigger budget lets it in."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gradstudio.cli import main
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.pytorch_import import ImportProblem, import_snippet

MIB = 1 << 20
#: 2,000,000 float32 elements: 7.6 MiB, twice the old 1M-element cap.
TWO_MILLION = "import torch\nw = torch.zeros(2000, 1000, requires_grad=True)\ns = w.sum()\n"


def test_a_shape_over_the_old_constant_imports_within_the_budget() -> None:
    doc = import_snippet(TWO_MILLION)
    w = doc.node_by_label("w")
    assert w is not None and w.params["size"] == [2000, 1000]
    ev = evaluate(doc)
    assert ev.ok


def test_the_refusal_names_the_size_and_the_budget_it_follows() -> None:
    with pytest.raises(ImportProblem) as caught:
        import_snippet(TWO_MILLION, memory_budget=4 * MIB)
    assert caught.value.lineno == 2
    assert str(caught.value) == (
        "line 2: 'w' would allocate 7.6 MiB; the memory budget is 4 MiB "
        "(Run > Memory Budget, or --memory-budget)"
    )
    assert "teaching studio" not in str(caught.value)


@pytest.mark.parametrize(
    ("call", "size"),
    [
        ("torch.randn(30000, 30000)", "3.4 GiB"),  # float32
        ("torch.ones(20000, 20000, dtype=torch.float64)", "3 GiB"),
        ("torch.empty(40000, 20000)", "3 GiB"),
        ("torch.randint(0, 5, (20000, 20000))", "3 GiB"),  # int64
        ("torch.arange(0, 500_000_000)", "3.7 GiB"),
    ],
)
def test_each_source_is_measured_from_its_parameters(call: str, size: str) -> None:
    with pytest.raises(ImportProblem, match=f"would allocate {size}; the memory budget is 1 GiB"):
        import_snippet(f"import torch\nx = {call}\n")
    assert len(import_snippet(f"import torch\nx = {call}\n", memory_budget=None)) == 1


def test_cli_import_takes_the_memory_budget(tmp_path: Path) -> None:
    snippet = tmp_path / "big.py"
    snippet.write_text(TWO_MILLION)
    out, err = io.StringIO(), io.StringIO()
    target = str(tmp_path / "big.gstudio")
    args = ["import", str(snippet), "-o", target, "--memory-budget", "4MiB"]
    assert main(args, out, err) == 2
    assert "'w' would allocate 7.6 MiB; the memory budget is 4 MiB" in err.getvalue()
    assert main(["import", str(snippet), "-o", target], out, err) == 0
    assert Path(target).is_file()
