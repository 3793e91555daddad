"""The backward engine runs the nodes PyTorch runs, in PyTorch's order, and each
receives the gradients PyTorch's does (after broadcasting is summed back).

Recorded through a pre-hook on every reachable node, under PyTorch (live, when it is
installed) and from a golden copy recorded from it (always).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import engine
from tests.engine_tests.backward_programs import PROGRAMS, record

GOLDEN = Path(__file__).parent / "golden" / "backward_order.json"


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6)
    return a == b


def _names(log: list[list[Any]]) -> list[str]:
    return [entry[0] for entry in log]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_engine_runs_what_the_golden_recorded(name: str) -> None:
    expected = json.loads(GOLDEN.read_text("utf-8"))[name]
    actual = record(engine, PROGRAMS[name])
    assert _names(actual) == _names(expected)
    assert _close(actual, expected), f"{name}: {actual} != {expected}"


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_golden_is_what_pytorch_records(name: str) -> None:
    torch = pytest.importorskip("torch")
    expected = json.loads(GOLDEN.read_text("utf-8"))[name]
    assert _close(record(torch, PROGRAMS[name]), expected)


def write_golden() -> None:
    """``python -m tests.engine_tests.test_backward_order``: re-record from PyTorch."""
    import torch

    data = {name: record(torch, source) for name, source in sorted(PROGRAMS.items())}
    GOLDEN.write_text(json.dumps(data, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    write_golden()
