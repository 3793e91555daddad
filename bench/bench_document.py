"""Benchmark: edit one parameter of a generated 1,000-node graph and re-evaluate.

The studio re-evaluates on every edit, so this is the number that decides whether
that feels instant.  Prints figures; asserts nothing.  Figures are CPU time of this
process (``time.process_time``), which a busy machine disturbs less than wall time;
the edit loop also prints wall time.

    .venv/bin/python bench/bench_document.py [--nodes 1000] [--repeat 20] [--size 8]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gradstudio.catalogue import RunCall
from gradstudio.document.commands import SetParamCommand
from gradstudio.document.model import Document
from gradstudio.document.undo import UndoStack
from gradstudio.evaluation.evaluate import LiveEvaluation, evaluate
from gradstudio.evaluation.plan import prepare
from gradstudio.interchange.fileformat import load_document, save_document

OPS = ("torch.add", "torch.mul", "torch.tanh", "torch.sigmoid", "torch.sub", "torch.relu")


def generate(nodes: int, size: int) -> tuple[Document, str]:
    """Leaves that require grad, then ops each reading one or two earlier tensors, a
    sum and a backward at the end: every step is a real engine call."""
    doc = Document()
    leaves = max(4, nodes // 50)
    tensors: list[str] = []
    for i in range(leaves):
        data = [[(i + r + c) % 7 / 7.0 for c in range(size)] for r in range(size)]
        node = doc.new_node(
            "torch.tensor", (0, i * 100), {"data": data, "requires_grad": True}, f"p{i}"
        )
        doc.add_node(node)
        tensors.append(node.id)
    k = 0
    while len(doc) < nodes - 2:
        type_id = OPS[k % len(OPS)]
        node = doc.new_node(type_id, (k * 10.0, 0))
        doc.add_node(node)
        doc.connect(tensors[-1], "out", node.id, "input")
        if doc.node(node.id).type.inputs[-1].name == "other":
            doc.connect(tensors[(k * 7) % len(tensors)], "out", node.id, "other")
        tensors.append(node.id)
        k += 1
    total = doc.new_node("torch.sum", label="loss")
    doc.add_node(total)
    doc.connect(tensors[-1], "out", total.id, "input")
    backward = doc.new_node("Tensor.backward", label="backward")
    doc.add_node(backward)
    doc.connect(total.id, "out", backward.id, "input")
    return doc, tensors[0]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--size", type=int, default=8, help="each tensor is size x size")
    args = parser.parse_args()

    t0 = time.process_time()
    doc, first = generate(args.nodes, args.size)
    built = time.process_time() - t0
    print(f"graph: {len(doc)} nodes, {len(doc.edges())} edges, tensors {args.size}x{args.size}")
    print(f"build document                 {ms(built)}")

    t0 = time.process_time()
    plan = prepare(doc)
    prepared = time.process_time() - t0
    ev = plan.run()
    assert ev.ok, ev.errors[:1]
    print(f"prepare (UI thread)            {ms(prepared)}")
    t0 = time.process_time()
    plan.run()
    print(f"evaluation (plan.run)          {ms(time.process_time() - t0)}")

    stack = UndoStack()
    live = LiveEvaluation(doc)
    live.refresh()
    times = []
    walls = []
    for i in range(args.repeat):
        value = [[(i + r * c) % 5 / 5.0 for c in range(args.size)] for r in range(args.size)]
        t0, w0 = time.process_time(), time.perf_counter()
        stack.push(SetParamCommand(doc, first, "data", value))
        result = live.refresh()
        times.append(time.process_time() - t0)
        walls.append(time.perf_counter() - w0)
        assert result.ok
    times.sort()
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    print(
        f"edit param + re-evaluate       {ms(statistics.median(times))} median, "
        f"{ms(p95).strip()} p95, {ms(times[0]).strip()} best  ({args.repeat} edits)"
    )
    print(f"  wall time                    {ms(statistics.median(walls))} median")
    per_step = statistics.median(times) / len(doc) * 1e6
    print(f"  per step                     {per_step:8.1f} µs")

    t0 = time.process_time()
    doc.move_node(first, 1.0, 2.0)
    live.refresh()
    print(f"move a node (no re-evaluation) {ms(time.process_time() - t0)}")

    result = live.refresh()
    t0 = time.process_time()
    for step in range(0, len(doc), max(1, len(doc) // 20)):
        result._cache = None
        result.snapshot(step)
    print(f"timeline snapshot (avg of 20)  {ms((time.process_time() - t0) / 20)}")
    (trace,) = result.traces
    print(f"backward trace: {len(trace.executions)} grad_fn executions recorded")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.gstudio"
        t0 = time.process_time()
        save_document(doc, path)
        saved = time.process_time() - t0
        t0 = time.process_time()
        load_document(path)
        loaded = time.process_time() - t0
        print(
            f"save / load                    {ms(saved)} / {ms(loaded).strip()}"
            f"  ({path.stat().st_size // 1024} KiB)"
        )

    t0 = time.process_time()
    evaluate(doc)
    print(f"evaluate() from scratch        {ms(time.process_time() - t0)}")
    print(f"engine calls alone (no facts)  {ms(engine_only(doc))}")
    return 0


def engine_only(doc: Document) -> float:
    """The same steps straight through the engine, recording nothing: the floor."""
    import engine

    plan = prepare(doc)
    values: dict[tuple[str, str], object] = {}
    t0 = time.process_time()
    for step in plan.steps:
        inputs = {port: values[srcs[0]] for port, srcs in step.inputs.items()}
        call = RunCall(engine, "cpu", inputs, dict(step.params))
        for port, value in step.type.run(call).items():
            values[(step.node_id, port)] = value
    return time.process_time() - t0


if __name__ == "__main__":
    raise SystemExit(main())
