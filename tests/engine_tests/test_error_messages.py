"""PyTorch's errors for bad sizes, masks, windows and matrices, found by running the same
lines under both: each raises the same exception type with the same message, or both
succeed with the same shape.  PyTorch 2.13's answers are written out in
``golden/error_messages.json``, so the test holds without it; the oracle test checks
them against PyTorch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engine

GOLDEN = Path(__file__).parent / "golden" / "error_messages.json"
#: line -> [exception type name, message], or ["ok", result shape], as PyTorch 2.13 says
EXPECTED: dict[str, list[Any]] = json.loads(GOLDEN.read_text())


def _outcome(T: Any, line: str) -> list[Any]:
    x = T.ones(2, 3, requires_grad=True)
    img = T.arange(16.0).reshape(1, 1, 4, 4)
    try:
        r = eval(line, {"torch": T, "F": T.nn.functional, "x": x, "img": img})
    except Exception as ex:
        return [type(ex).__name__, str(ex)]
    r = r[0] if isinstance(r, tuple) else r
    return ["ok", list(r.shape) if hasattr(r, "shape") else repr(r)]


@pytest.mark.parametrize("line", EXPECTED)
def test_the_engine_says_what_pytorch_says(line: str) -> None:
    assert _outcome(engine, line) == EXPECTED[line]


def test_a_singular_matrix_raises_linalg_error_a_runtime_error() -> None:
    with pytest.raises(engine.linalg.LinAlgError):
        engine.linalg.inv(engine.zeros(2, 2))
    assert issubclass(engine.linalg.LinAlgError, RuntimeError)


@pytest.mark.torch
@pytest.mark.parametrize("line", EXPECTED)
def test_the_written_outcomes_are_pytorchs(line: str) -> None:
    torch = pytest.importorskip("torch")
    assert _outcome(torch, line) == EXPECTED[line]
