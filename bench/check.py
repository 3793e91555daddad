"""Correctness guard: run every workload once per contender on the same seeded inputs and
compare the outputs (loss and gradients) with the reference, PyTorch (NumPy without it).

    python bench/check.py [--json]

Prints, per workload, the largest absolute difference over all outputs and the largest
relative to each output's own magnitude; ``--json`` prints the results as JSON instead.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchenv  # (must run before NumPy or PyTorch is imported)

benchenv.setup_process()

import numpy as np  # noqa: E402

RTOL = 1e-4  # float32 results that agree to this, relative to the largest magnitude, pass


def _as_numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy() if hasattr(value, "cpu") else value.detach().numpy()
    return np.asarray(value, dtype=np.float64)


def outputs(contender: str, workload: Any) -> list[np.ndarray]:
    """The outputs of one step of ``workload`` run by ``contender``, as float64 arrays."""
    kw = workload.check_kwargs
    if contender == "numpy":
        step = workload.make_numpy(**kw)
    else:
        step = workload.make(benchenv.load_module(contender), **kw)
    return [_as_numpy(v) for v in step()]


def compare(got: list[np.ndarray], ref: list[np.ndarray]) -> dict[str, Any]:
    """Largest absolute difference of ``got`` against ``ref``, and largest relative to the
    magnitude of each output (the loss, each gradient)."""
    if len(got) != len(ref) or any(g.shape != r.shape for g, r in zip(got, ref)):
        return {"abs": float("inf"), "rel": float("inf"), "ok": False, "note": "shape mismatch"}
    diffs = [float(np.max(np.abs(g - r), initial=0.0)) for g, r in zip(got, ref)]
    scales = [float(np.max(np.abs(r), initial=0.0)) or 1.0 for r in ref]
    rel = max(d / s for d, s in zip(diffs, scales))
    return {"abs": max(diffs), "rel": rel, "ok": bool(rel <= RTOL)}


def check_all() -> dict[str, Any]:
    """Compare every contender with the reference on every workload."""
    from workloads import WORKLOADS

    contenders = [c for c in benchenv.CONTENDERS if c != "torch" or benchenv.torch_available()]
    reference = "torch" if "torch" in contenders else "numpy"
    results: dict[str, Any] = {"reference": reference, "rtol": RTOL, "workloads": {}}
    for name, workload in WORKLOADS.items():
        row: dict[str, Any] = {}
        ref = outputs(reference, workload)
        for contender in contenders:
            if contender == reference:
                continue
            try:
                row[contender] = compare(outputs(contender, workload), ref)
            except Exception as exc:  # an engine gap is reported, not fatal to the run
                row[contender] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        results["workloads"][name] = row
    results["ok"] = all(r["ok"] for row in results["workloads"].values() for r in row.values())
    return results


def format_check(results: dict[str, Any]) -> str:
    """The check results as printable lines."""
    ref = results["reference"]
    lines = [f"correctness guard: max |difference| vs {ref} on identical seeded inputs"]
    for name, row in results["workloads"].items():
        parts = []
        for contender, r in row.items():
            if "error" in r:
                parts.append(f"{contender}: ERROR {r['error']}")
            else:
                verdict = "ok" if r["ok"] else "MISMATCH"
                parts.append(f"{contender} abs {r['abs']:.2e} rel {r['rel']:.2e} {verdict}")
        lines.append(f"  {name:<8} " + " | ".join(parts))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Command line: ``[--json]``; the exit status is 1 when a contender disagrees."""
    results = check_all()
    print(json.dumps(results) if "--json" in argv else format_check(results))
    return 0 if results["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
