"""The recorder's line tracer runs in the program's own frames only.

A global trace function is called for every Python call while it is set, and it slows
every frame (the interpreter leaves its specialised instructions), so the recorder stops
it whenever the engine or its own bookkeeping runs (``frames.untraced``): nothing is
recorded there.  Checked by counting the trace function's calls per file, in a child
process (recording replaces the engine's functions in the process that records)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

COUNT = """
import collections, json, sys
from gradstudio.interchange.program_import import frames, recorder
seen = collections.Counter()
original = frames.Frames.global_trace
def counting(self, frame, event, arg):
    seen[frame.f_code.co_filename] += 1
    return original(self, frame, event, arg)
frames.Frames.global_trace = counting
recorder.main(sys.argv[1], sys.argv[2])
print(json.dumps(seen))
"""

PROGRAM = (
    "import torch\n"
    "model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "x = torch.randn(8, 3)\n"
    "def loss_of(x):\n"
    "    return (model(x) ** 2).mean()\n"
    "for step in range(6):\n"
    "    loss = loss_of(x)\n"
    "    opt.zero_grad()\n"
    "    loss.backward()\n"
    "    opt.step()\n"
)


def test_the_engine_and_the_recorder_run_without_the_line_tracer(tmp_path: Path) -> None:
    program = tmp_path / "train.py"
    program.write_text(PROGRAM, "utf-8")
    done = subprocess.run(
        [sys.executable, "-c", COUNT, str(program), str(tmp_path / "events.json")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    report = json.loads((tmp_path / "events.json").read_text("utf-8"))
    assert "events" in report, report
    assert seen.get(str(program), 0) > 0  # the program's own frames are traced
    # the ops and backward: untraced, all of them
    engine = [f for f in seen if "/engine/ops/" in f or "/engine/autograd/engine" in f]
    assert not engine, {f: seen[f] for f in engine}
    # the events' bookkeeping (what each reads, for folding): once about 6 traced calls
    # an event (840,000 calls for the 2000-step polynomial tutorial); now only that of
    # the few entries that are not an op, a module call, a backward or a step
    events = len(report["events"])
    bookkeeping = sum(n for f, n in seen.items() if f.endswith("loop_folding.py"))
    assert bookkeeping < events // 4, (bookkeeping, events)
