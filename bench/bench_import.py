"""Benchmark: import PyTorch's 2000-step polynomial tutorial by running it, then open it.

Issue 26 asks for import plus open under 3 s and a document under 1 MB.  The loop folds
(its first 3 steps and the last stay as nodes, the other 1996 become one card carrying
the parameters), so this measures the child run, folding, building the document, saving
and loading.  ``cpu_s`` is the CPU time of this process and the child together: on a
shared machine the wall clock also counts waiting for a core.  The host's processor, its
load, NumPy's BLAS and whether Python caches bytecode are printed with the figures.

    .venv/bin/python bench/bench_import.py [--program poly_2000_optim.py] [--all]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gradstudio.interchange.fileformat import load_document, save_document  # noqa: E402
from gradstudio.interchange.program_import.runner import import_program  # noqa: E402
from gradstudio.interchange.trust import TrustStore  # noqa: E402

PROGRAMS = ROOT / "tests" / "gradstudio" / "programs"
TUTORIALS = sorted(p.name for p in PROGRAMS.glob("poly_2000_*.py"))
TARGET_S = 3.0
TARGET_BYTES = 1024**2


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + child.ru_utime + child.ru_stime


def host() -> dict[str, object]:
    """The processor, its core count and the BLAS NumPy links."""
    import numpy

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next(
                (line.split(":", 1)[1].strip() for line in f if line.startswith("model name")),
                model,
            )
    except OSError:
        pass
    config = getattr(numpy, "__config__", None)
    deps = getattr(config, "CONFIG", {}).get("Build Dependencies", {})
    blas = deps.get("blas", {})
    return {
        "cpu": model,
        "cpus": os.cpu_count(),
        "blas": f"{blas.get('name', 'unknown')} {blas.get('version', '')}".strip(),
        "numpy": numpy.__version__,
        "load": round(os.getloadavg()[0], 2),
        # without a bytecode cache every process compiles the sources it imports first
        "bytecode_cache": not sys.dont_write_bytecode,
    }


def measure(program: Path) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        cpu0 = _cpu()
        doc = import_program(program)
        imported = time.perf_counter() - t0
        path = Path(tmp) / "doc.gstudio"
        save_document(doc, path, TrustStore(Path(tmp) / "trust.json"))
        size = path.stat().st_size
        t1 = time.perf_counter()
        load_document(path)
        opened = time.perf_counter() - t1
        cpu = _cpu() - cpu0
    return {
        "program": program.name,
        "nodes": len(doc),
        "document_bytes": size,
        "import_s": round(imported, 3),
        "open_s": round(opened, 3),
        "total_s": round(imported + opened, 3),
        "cpu_s": round(cpu, 3),
        "target_s": TARGET_S,
        "target_bytes": TARGET_BYTES,
        "small_enough": size < TARGET_BYTES,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--program", default="poly_2000_optim.py", choices=TUTORIALS)
    parser.add_argument("--all", action="store_true", help="every 2000-step tutorial")
    args = parser.parse_args()
    print(json.dumps({"host": host()}))
    for name in TUTORIALS if args.all else [args.program]:
        print(json.dumps(measure(PROGRAMS / name)))


if __name__ == "__main__":
    main()
