"""Process set-up shared by the benchmark scripts: single-threaded maths, import paths.

Import this module before NumPy or PyTorch: the BLAS and OpenMP libraries read their
thread counts from the environment when they are loaded.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
CONTENDERS = ("engine", "torch", "numpy")
THREAD_VARS = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
}
# For the memory workload: a fixed mmap threshold (glibc's default value, but no longer
# raised dynamically) makes every array of 128 KiB or more its own mapping, returned to the
# system when freed, so the resident set follows the live arrays rather than heap caching.
MALLOC_VARS = {"MALLOC_MMAP_THRESHOLD_": "131072"}


def child_env(memory: bool = False) -> dict[str, str]:
    """The environment for a contender process."""
    env = {**os.environ, **THREAD_VARS}
    if memory:
        env.update(MALLOC_VARS)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def setup_process() -> None:
    """Pin this process to one thread and make ``engine`` and ``workloads`` importable."""
    os.environ.update(THREAD_VARS)
    for path in (str(ROOT), str(BENCH_DIR)):
        if path not in sys.path:
            sys.path.insert(0, path)


def load_module(contender: str) -> Any:
    """The torch-like module for ``contender`` (``engine`` or ``torch``), single-threaded."""
    if contender == "engine":
        import engine

        return engine
    if contender == "torch":
        import torch

        torch.set_num_threads(1)
        if torch.get_num_interop_threads() != 1:
            with contextlib.suppress(RuntimeError):  # allowed once, before parallel work
                torch.set_num_interop_threads(1)
        return torch
    raise ValueError(f"no torch-like module for contender {contender!r}")


def torch_available() -> bool:
    """Whether PyTorch can be imported here (``BENCH_NO_TORCH=1`` pretends it cannot)."""
    import importlib.util

    if os.environ.get("BENCH_NO_TORCH") == "1":
        return False
    return importlib.util.find_spec("torch") is not None
