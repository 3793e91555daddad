"""Run one contender on one workload in this process and print the result as JSON.

    python bench/run_one.py CONTENDER WORKLOAD [REPEATS]

CONTENDER is ``engine``, ``torch`` or ``numpy``. Time workloads: ``warmup`` untimed steps,
then REPEATS steps each timed with ``time.perf_counter``; the JSON has every sample (seconds)
with their median and minimum. The memory workload: one step in this fresh process; its peak
resident-set growth is the JSON's ``peak_bytes`` (see ``measure_peak``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchenv  # (must run before NumPy or PyTorch is imported)

benchenv.setup_process()


def _status_kib(field: str) -> int:
    """A ``kB`` field of ``/proc/self/status`` (``VmRSS``, ``VmHWM``), in KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (``VmHWM``) to the current RSS; False if refused."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def measure_peak(step: Any) -> dict[str, Any]:
    """Peak RSS growth over one ``step()``: ``VmHWM`` after, minus ``VmRSS`` before.

    The peak mark is reset just before the step through ``/proc/self/clear_refs``; where
    that is refused, ``ru_maxrss`` after minus ``ru_maxrss`` before is used, which misses
    growth below an earlier peak of the process (a lower bound).
    """
    import gc
    import resource

    gc.collect()
    before = _status_kib("VmRSS")
    exact = _reset_peak()
    maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    out = step()
    seconds = time.perf_counter() - t0
    if exact:
        peak_kib, method = _status_kib("VmHWM") - before, "VmHWM after - VmRSS before"
    else:
        maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        peak_kib, method = maxrss - maxrss_before, "ru_maxrss delta (lower bound)"
    del out
    return {
        "peak_bytes": peak_kib * 1024,
        "baseline_bytes": before * 1024,
        "method": method,
        "seconds": seconds,
    }


def _builder(contender: str, workload: Any) -> Any:
    """A function building the step of ``workload`` for ``contender`` (keyword arguments)."""
    if contender == "numpy":
        return workload.make_numpy
    module = benchenv.load_module(contender)
    return lambda **kw: workload.make(module, **kw)


def run(contender: str, name: str, repeats: int | None = None) -> dict[str, Any]:
    """Measure ``contender`` on workload ``name``; the JSON-ready result."""
    from workloads import WORKLOADS

    workload = WORKLOADS[name]
    build = _builder(contender, workload)
    result: dict[str, Any] = {"contender": contender, "workload": name, "kind": workload.kind}
    if workload.kind == "memory":
        if os.environ.get("MALLOC_MMAP_THRESHOLD_") is None:  # glibc reads it at start-up
            os.execve(sys.executable, [sys.executable, *sys.argv], benchenv.child_env(True))
        build(layers=2)()  # load the BLAS kernels and the autograd machinery first
        result.update(measure_peak(build()))
        return result
    step = build()
    for _ in range(workload.warmup):
        step()
    samples = []
    for _ in range(repeats or workload.repeats):
        t0 = time.perf_counter()
        step()
        samples.append(time.perf_counter() - t0)
    result.update(median=median(samples), min=min(samples), samples=samples)
    return result


def main(argv: list[str]) -> int:
    """Command line: ``CONTENDER WORKLOAD [REPEATS]``."""
    if len(argv) not in (2, 3) or argv[0] not in benchenv.CONTENDERS:
        print(__doc__, file=sys.stderr)
        return 2
    repeats = int(argv[2]) if len(argv) == 3 else None
    print(json.dumps(run(argv[0], argv[1], repeats)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
