"""Every example evaluates on CUDA as on the CPU (``main.py run --device cuda``).

Marked ``cuda``: on a GPU, or on the CuPy simulator (``make test`` runs both halves).
Values agree to float tolerance; every flag (requires_grad, is_leaf, grad_fn, version,
retains_grad, shapes, dtypes) is exact; every tensor reports ``cuda:0``.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest

from gradstudio.cli import main

pytestmark = pytest.mark.cuda

EXAMPLES = sorted(
    (Path(__file__).resolve().parents[2] / "resources" / "examples").glob("*.gstudio")
)


def _run(path: Path, device: str) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(["run", "--json", "--device", device, str(path)], out, err)
    assert rc == 0, err.getvalue()
    return json.loads(out.getvalue())


def _agree(cpu: Any, cuda: Any, where: str) -> None:
    if isinstance(cpu, dict):
        assert cpu.keys() == cuda.keys(), where
        for key, value in cpu.items():
            if key == "device":
                assert (value, cuda[key]) in (("cpu", "cuda"), ("cpu", "cuda:0")), where
            else:
                _agree(value, cuda[key], f"{where}.{key}")
    elif isinstance(cpu, list):
        assert len(cpu) == len(cuda), where
        for i, (a, b) in enumerate(zip(cpu, cuda, strict=True)):
            _agree(a, b, f"{where}[{i}]")
    elif isinstance(cpu, float) and not isinstance(cpu, bool):
        assert isinstance(cuda, float), where
        assert math.isclose(cpu, cuda, rel_tol=1e-5, abs_tol=1e-6) or (
            math.isnan(cpu) and math.isnan(cuda)
        ), where
    else:
        assert cpu == cuda, where


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs_on_cuda_and_agrees_with_cpu(path: Path) -> None:
    cuda = _run(path, "cuda")
    assert cuda["device"] == "cuda"
    assert all(n["device"] == "cuda:0" for n in cuda["nodes"] if n.get("device"))
    _agree(_run(path, "cpu"), cuda, path.stem)


def test_every_example_is_covered() -> None:
    assert len(EXAMPLES) >= 7
