"""What running evaluation in a separate process costs, and what it buys.

Run ``python bench/bench_worker.py`` (``--json`` for machine-readable output).  Prints:

- the process boundary per run: a small document and the 1,000-node graph, evaluated
  in this process and in the warm worker (``gradstudio.evaluation.worker.run_plan``);
- a worker's start, from nothing to ready (paid once, and after a kill);
- cancel latency: from Cancel to ``run_plan`` returning, for a Function stuck in
  ``while True: pass`` and in a sleep loop (target: under 1 s);
- peak memory of the worker on the issue's memory bombs at the default budget.

The window's side (open + evaluate of the 1,000-node graph, UI gaps) is in
``bench_ui.py`` and ``tests/ui/test_run_stoppable.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gradstudio.document.model import Document  # noqa: E402
from gradstudio.evaluation import worker  # noqa: E402
from gradstudio.evaluation.plan import prepare  # noqa: E402
from gradstudio.interchange.examples import EXAMPLES, build  # noqa: E402
from tests.hostile import HANGS, HOSTILE, hostile  # noqa: E402


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return round(statistics.median(times) * 1000, 2)


def boundary(doc: Document, repeats: int) -> dict[str, float]:
    plan = prepare(doc)
    worker.run_plan(plan)  # warm
    here = median_ms(plan.run, repeats)
    there = median_ms(lambda: worker.run_plan(plan), repeats)
    return {"in_process_ms": here, "worker_ms": there, "overhead_ms": round(there - here, 2)}


def worker_start(repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        w = worker.Worker()
        w.wait_ready()
        times.append(time.perf_counter() - t)
        w.kill()
    return round(statistics.median(times), 3)


def cancel_latency(name: str, repeats: int) -> dict[str, float]:
    plan = prepare(hostile(HOSTILE[name]))
    latencies = []
    for _ in range(repeats):
        w = worker.POOL.acquire()
        w.wait_ready()  # so that the run starts at once
        worker.POOL.release(w)
        box: dict[str, float] = {}

        def cancel(box: dict[str, float] = box) -> bool:
            if "start" not in box:
                box["start"] = time.perf_counter()
            if time.perf_counter() - box["start"] > 0.3:
                box.setdefault("asked", time.perf_counter())
                return True
            return False

        ev = worker.run_plan(plan, cancel=cancel)
        assert ev.cancelled
        latencies.append(time.perf_counter() - box["asked"])
    return {
        "median_ms": round(statistics.median(latencies) * 1000, 1),
        "max_ms": round(max(latencies) * 1000, 1),
    }


def bombs() -> dict[str, dict[str, object]]:
    """Each bomb at the default budget: the refusal and the worker's peak memory."""

    def node(doc: Document, type_id: str, label: str, params: dict, *inputs: str) -> str:
        n = doc.new_node(type_id, (0, 0), params, label)
        doc.add_node(n)
        for port, src in zip(("input", "other"), inputs, strict=False):
            doc.connect(src, "out", n.id, port)
        return n.id

    docs: dict[str, Document] = {}
    doc = docs["arange to 2e8"] = Document()
    node(doc, "torch.arange", "r", {"start": 0, "end": 200_000_000})
    doc = docs["[20000,1] + [1,20000]"] = Document()
    a = node(doc, "torch.zeros", "a", {"size": [20000, 1]})
    b = node(doc, "torch.zeros", "b", {"size": [1, 20000]})
    node(doc, "torch.add", "sum", {}, a, b)
    doc = docs["cat of 1,000 edges of a 1M tensor"] = Document()
    x = node(doc, "torch.zeros", "x", {"size": [1_000_000]})
    cat = node(doc, "torch.cat", "big", {})
    for _ in range(1000):
        doc.connect(x, "out", cat, "tensors")
    doc = docs["expand(-1) then clone"] = Document()
    x = node(doc, "torch.zeros", "x", {"size": [1_000_000, 1]})
    e = node(doc, "torch.Tensor.expand", "e", {"size": [-1, 1_000_000]}, x)
    node(doc, "torch.clone", "c", {}, e)
    docs["3 GiB in Function code"] = hostile(
        "import numpy\nnumpy.ones(3 * 2**30, dtype=numpy.uint8)"
    )
    out: dict[str, dict[str, object]] = {}
    for name, doc in docs.items():
        worker.POOL.close()
        w = worker.Worker()  # a fresh process each, so its peak is this bomb's
        w.wait_ready()
        base = _peak_mib(w.process.pid)
        worker.POOL.release(w)
        t = time.perf_counter()
        ev = worker.run_plan(prepare(doc))
        seconds = time.perf_counter() - t
        peak = _peak_mib(w.process.pid)
        out[name] = {
            "error": ev.errors[0].message if ev.errors else None,
            "seconds": round(seconds, 2),
            "worker_peak_mib": peak,
            "worker_ready_peak_mib": base,
        }
    return out


def _peak_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_ui import build_graph

    results: dict[str, object] = {
        "worker_start_s": worker_start(3),
        "small_document": boundary(build(EXAMPLES[1]), args.repeats),
        "graph_1000": boundary(build_graph(1000), max(3, args.repeats // 3)),
        "cancel": {name: cancel_latency(name, 3) for name in HANGS},
        "bombs": bombs(),
    }
    worker.shutdown()
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    print("GradStudio evaluation process benchmark (medians)")
    print(f"  worker start to ready         {results['worker_start_s']:.2f} s")
    for key, title in (("small_document", "seed 001 (5 nodes)"), ("graph_1000", "1,000 nodes")):
        r = results[key]
        assert isinstance(r, dict)
        print(
            f"  {title:<29} in process {r['in_process_ms']:.1f} ms · worker "
            f"{r['worker_ms']:.1f} ms · boundary {r['overhead_ms']:+.1f} ms per run"
        )
    for name, r in results["cancel"].items():  # type: ignore[union-attr]
        print(f"  cancel {name:<22} {r['median_ms']:.0f} ms (max {r['max_ms']:.0f} ms)")
    for name, r in results["bombs"].items():  # type: ignore[union-attr]
        print(
            f"  {name:<34} peak {r['worker_peak_mib']} MiB "
            f"(idle {r['worker_ready_peak_mib']}), {r['seconds']} s: {r['error']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
