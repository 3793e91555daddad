"""``arange`` and kin write their values block by block: the peak is the result, not the
several times larger float64 intermediates (the memory budget predicts outputs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
N = 50_000_000


@pytest.mark.slow
@pytest.mark.parametrize(
    "call",
    [
        f"engine.arange(0, {N}, 1.0)",
        f"engine.arange(0, {N}, 1, dtype=engine.int32)",
        f"engine.arange(0.5, {N} * 0.5 + 0.5, 0.5, dtype=engine.float64)",
    ],
)
def test_a_large_range_peaks_at_its_result(call: str) -> None:
    probe = (
        "import warnings, engine\n"
        "from tests.peak_memory import peak_kib\n"
        "before = peak_kib()\n"
        f"x = {call}\n"
        "after = peak_kib()\n"
        "print(x.numel() * x.element_size(), (after - before) * 1024)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    result, grew = map(int, done.stdout.split())
    assert grew < 1.25 * result, f"{call}: {grew / 1e6:.0f} MB for a {result / 1e6:.0f} MB result"
