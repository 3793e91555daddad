"""Run every engine benchmark and print the ratios (``make bench``).

    python bench/run_all.py [--only NAME ...] [--rounds N] [--repeats-scale X] [--no-check]

Each measurement is a fresh process (``run_one.py``), single-threaded. For each workload the
contenders (our engine, PyTorch CPU, raw NumPy) are interleaved round-robin over several
rounds, rotating who goes first, so that the machine's drifting load falls on all of them
alike; the figure per contender is the median over all its samples. The machine is noisy:
only ratios from one run mean anything. Results go to ``bench/results/latest.json`` and
``bench/results/latest.md``. Without PyTorch its column is skipped, with a note.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchenv  # (must run before NumPy or PyTorch is imported)

benchenv.setup_process()

from workloads import WORKLOADS, Workload  # noqa: E402

RESULTS_DIR = benchenv.BENCH_DIR / "results"
UNIT_SCALE = {"us": 1e6, "ms": 1e3, "MiB": 1 / 2**20}


def run_process(script: str, args: list[str], memory: bool = False) -> dict[str, Any]:
    """Run a bench script in a fresh single-threaded process; its last stdout line as JSON."""
    cmd = [sys.executable, str(benchenv.BENCH_DIR / script), *args]
    proc = subprocess.run(
        cmd, capture_output=True, text=True, env=benchenv.child_env(memory), cwd=benchenv.ROOT
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode not in (0, 1) or not lines:
        raise RuntimeError(f"{' '.join(cmd[1:])} failed ({proc.returncode}):\n{proc.stderr}")
    return json.loads(lines[-1])


def measure(workload: Workload, contenders: list[str], rounds: int, scale: float) -> dict:
    """Interleave the contenders on ``workload``; per contender: figure and raw results."""
    repeats = max(1, round(workload.repeats * scale))
    runs: dict[str, list[dict[str, Any]]] = {c: [] for c in contenders}
    for r in range(rounds):
        order = contenders[r % len(contenders) :] + contenders[: r % len(contenders)]
        for contender in order:
            args = [contender, workload.name, str(repeats)]
            runs[contender].append(run_process("run_one.py", args, workload.kind == "memory"))
    out = {}
    for contender, results in runs.items():
        if workload.kind == "memory":
            value = median(r["peak_bytes"] for r in results)
        else:
            value = median(s for r in results for s in r["samples"]) / workload.per_step
        out[contender] = {"value": value, "figure": value * UNIT_SCALE[workload.unit]}
        out[contender]["runs"] = results
    return out


def _ratio(a: dict | None, b: dict | None) -> float | None:
    return a["value"] / b["value"] if a and b and b["value"] else None


def _label(workload: Workload) -> str:
    if workload.kind == "memory":
        return workload.unit
    return f"{workload.unit}/{'op' if workload.per_step > 1 else 'step'}"


def summarise(workload: Workload, measured: dict[str, Any]) -> dict[str, Any]:
    """Ratios, target and verdict for one workload."""
    engine, torch, numpy = (measured.get(c) for c in benchenv.CONTENDERS)
    target = workload.target
    row = {
        "workload": workload.name,
        "title": workload.title,
        "unit": workload.unit,
        "label": _label(workload),
        "figures": {c: m["figure"] for c, m in measured.items()},
        "engine/torch": _ratio(engine, torch),
        "engine/numpy": _ratio(engine, numpy),
        "torch/numpy": _ratio(torch, numpy),
        "target": f"engine/{target.baseline} <= {target.ratio:g}",
    }
    achieved = row[f"engine/{target.baseline}"]
    row["verdict"] = "n/a" if achieved is None else "PASS" if achieved <= target.ratio else "MISS"
    return row


def _fmt(x: float | None, spec: str = ".2f") -> str:
    return "—" if x is None else format(x, spec)


COLUMNS = ("workload", "unit", "engine", "torch", "numpy", "eng/torch", "eng/numpy", "target", "")


def table_rows(rows: list[dict[str, Any]]) -> list[list[str]]:
    """The summary as rows of strings, header first."""
    out = [list(COLUMNS)]
    for row in rows:
        figs = row["figures"]
        spec = ".1f" if row["unit"] == "MiB" else ".3g"
        ratio_spec = ".3f" if row["unit"] == "MiB" else ".2f"  # a memory miss can be 0.5 %
        out.append(
            [
                row["workload"],
                row["label"],
                *(_fmt(figs.get(c), spec) for c in benchenv.CONTENDERS),
                _fmt(row["engine/torch"], ratio_spec),
                _fmt(row["engine/numpy"], ratio_spec),
                row["target"].replace("engine/", "") if row["target"] else "",
                row["verdict"],
            ]
        )
    return out


def format_text(rows: list[list[str]]) -> str:
    """Aligned plain-text table."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_markdown(rows: list[list[str]], summary: list[dict[str, Any]], notes: list[str]) -> str:
    """Markdown table, workload titles and notes."""
    head, *body = rows
    head = [*head[:-1], "verdict"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    lines += ["", *(f"- `{s['workload']}`: {s['title']}" for s in summary)]
    lines += ["", *(f"{n}" for n in notes)]
    return "\n".join(lines) + "\n"


def environment() -> dict[str, Any]:
    """Versions and machine facts recorded with the results."""
    import os

    import numpy

    env = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpus": os.cpu_count(),
        "threads": benchenv.THREAD_VARS,
    }
    if benchenv.torch_available():
        env["torch"] = subprocess.run(
            [sys.executable, "-c", "import torch; print(torch.__version__)"],
            capture_output=True,
            text=True,
            env=benchenv.child_env(),
        ).stdout.strip()
    return env


def main(argv: list[str] | None = None) -> int:
    """Run the chosen workloads; exit status 0 (misses are reported, not failures)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(WORKLOADS), help="workloads to run")
    parser.add_argument("--rounds", type=int, help="processes per contender (default per workload)")
    parser.add_argument("--repeats-scale", type=float, default=1.0, help="scale timed repeats")
    parser.add_argument("--no-check", action="store_true", help="skip the correctness guard")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    contenders = list(benchenv.CONTENDERS)
    notes = []
    if not benchenv.torch_available():
        contenders.remove("torch")
        notes.append(
            "PyTorch is not installed (or BENCH_NO_TORCH=1): its column and the targets "
            "against it are skipped."
        )
    notes.append(
        "Single-threaded (OMP/OPENBLAS/MKL_NUM_THREADS=1, torch.set_num_threads(1)), one fresh "
        "process per measurement, contenders interleaved; times are medians over all samples, "
        "memory is the median peak RSS growth over one forward+backward (VmHWM after minus "
        "VmRSS before, the peak mark reset through /proc/self/clear_refs). Only ratios from "
        "one run mean anything on a noisy machine."
    )
    print(f"contenders: {', '.join(contenders)}", *notes[:-1], sep="\n", flush=True)

    check = None
    if not args.no_check:
        check = run_process("check.py", ["--json"])
        sys.path.insert(0, str(benchenv.BENCH_DIR))
        from check import format_check

        print(format_check(check), flush=True)

    summary, raw = [], {}
    for name in args.only or list(WORKLOADS):
        workload = WORKLOADS[name]
        t0 = time.perf_counter()
        measured = measure(workload, contenders, args.rounds or workload.rounds, args.repeats_scale)
        raw[name] = measured
        summary.append(summarise(workload, measured))
        print(f"measured {name} in {time.perf_counter() - t0:.0f} s", flush=True)

    rows = table_rows(summary)
    print()
    print(format_text(rows))
    print(f"\ntotal {time.perf_counter() - start:.0f} s")

    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    env = environment()
    result = {"environment": env, "check": check, "summary": summary, "raw": raw, "notes": notes}
    (RESULTS_DIR / "latest.json").write_text(json.dumps(result, indent=1) + "\n")
    md_notes = [
        *notes,
        f"Run {env['date']}: Python {env['python']}, NumPy {env['numpy']}"
        + (f", PyTorch {env['torch']}" if "torch" in env else "")
        + ".",
    ]
    (RESULTS_DIR / "latest.md").write_text(format_markdown(rows, summary, md_notes))
    print(f"wrote {RESULTS_DIR / 'latest.json'} and latest.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
