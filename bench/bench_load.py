"""Benchmark: hostile inputs stay linear and bounded.

- loading a file whose 100,000 edges all feed one ``torch.cat`` (5 MB): the time;
- importing snippets whose constant arithmetic asks for gigabytes or runs for ever
  (``'a' * (10 ** 10)``, ``[0.0] * 10**9``, a tower of powers): each in a fresh
  process, its peak memory (``ru_maxrss``) and time, and the one-line refusal.

    .venv/bin/python bench/bench_load.py [--edges 100000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gradstudio.interchange.fileformat import load_document  # noqa: E402

BOMBS = {
    "text": "x = 'a' * (10 ** 10)",
    "list": "x = [0.0] * 10**9",
    "tower": "x = 2 ** 2 ** 2 ** 2 ** 2 ** 2",
    "left tower": "x = ((((2 ** 64) ** 64) ** 64) ** 64) ** 64",
    "shared rows": "r = [0.0] * 1000\nx = [r] * 1000 * 1000",
}

MEASURE = """
import resource, sys, time, tracemalloc
sys.path.insert(0, sys.argv[1])
from gradstudio.interchange.pytorch_import import ImportProblem, import_snippet
import_snippet("import torch\\nx = torch.ones(2)\\n")  # builds the catalogue once
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
t0 = time.perf_counter()
try:
    import_snippet("import torch\\n" + sys.argv[2] + "\\n")
    outcome = "imported"
except ImportProblem as exc:
    outcome = str(exc)
seconds = time.perf_counter() - t0
traced = tracemalloc.get_traced_memory()[1]
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(f"{seconds:.3f} {traced} {grown} {outcome}")
"""


def cat_file(edges: int) -> dict[str, Any]:
    """One tensor fed ``edges`` times into one ``torch.cat`` (slots 0..edges-1)."""
    return {
        "format": "gradstudio",
        "version": 2,
        "nodes": [
            {"id": "x", "type": "torch.ones", "label": "x", "position": [0, 0], "params": {}},
            {"id": "c", "type": "torch.cat", "label": "c", "position": [200, 0], "params": {}},
        ],
        "edges": [{"from": ["x", "out"], "to": ["c", "tensors"], "slot": i} for i in range(edges)],
        "order": ["x", "c"],
    }


def bomb(source: str) -> tuple[float, float, float, str]:
    """Seconds, the import's peak traced MiB (``tracemalloc``), how many MiB the process's
    peak resident set grew during the import (``ru_maxrss``), and the outcome."""
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(ROOT), source],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.split(" ", 3)
    return float(out[0]), int(out[1]) / 2**20, int(out[2]) / 1024, out[3].strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cat.gstudio"
        path.write_text(json.dumps(cat_file(args.edges)))
        load_document(path)  # the first load also compiles the schema check
        walls, cpus = [], []
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.process_time()
            doc = load_document(path)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        size = path.stat().st_size / 1e6
    print(
        f"load {len(doc.edges()):,} edges into one cat ({size:.1f} MB): "
        f"{min(cpus):.2f} s CPU, {min(walls):.2f} s wall (best of 3)"
    )
    for name, source in BOMBS.items():
        seconds, traced, grown, outcome = bomb(source)
        print(
            f"bomb {name:12} {seconds:5.2f} s  peak traced {traced:5.2f} MiB, "
            f"RSS +{grown:5.1f} MiB  {outcome}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
