"""Minimap benchmark: the cost of the minimap on big graphs (1,000 and 5,000 nodes).

Run ``python bench/bench_minimap.py`` (Qt offscreen unless a display is set).  Prints,
per graph size: measuring and drawing the cards into the cached pixmap (once per
structural change), a minimap repaint while the canvas pans (the pixmap is
blitted, only the view rectangle is drawn), and a pan frame of the canvas with the
minimap on and off.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PySide6.QtWidgets import QApplication  # noqa: E402

from bench.bench_ui import (  # noqa: E402
    build_graph,
    close_window,
    open_window,
    pan_frames,
    settle,
    summary,
)
from ui.app import prepare_process  # noqa: E402


def measure(app: QApplication, n: int, folder: Path) -> dict[str, object]:
    window = open_window(app, folder, f"minimap{n}", panels=False)
    window.set_document(build_graph(n), run=False)
    settle(app)
    canvas, minimap = window.canvas, window.instruments.minimap
    canvas.zoom_reset()
    off = summary(pan_frames(window, app, full=True))
    window.instruments.act_minimap.trigger()
    settle(app)
    draws = []
    for _ in range(5):
        t = time.perf_counter()
        minimap.invalidate()  # measures the cards again
        minimap.repaint()  # and draws them
        draws.append((time.perf_counter() - t) * 1000.0)
    blits = []
    for i in range(60):
        canvas.pan_by(12 if (i // 20) % 2 == 0 else -12, 0)
        settle(app)  # the canvas paints its own frame first
        t = time.perf_counter()
        minimap.repaint()
        blits.append((time.perf_counter() - t) * 1000.0)
    on = summary(pan_frames(window, app, full=True))
    result = {
        "nodes": n,
        "cards_drawn_ms": summary(draws),
        "minimap_repaint_ms": summary(blits),
        "pan_frame_minimap_off_ms": off,
        "pan_frame_minimap_on_ms": on,
    }
    close_window(window, app)
    return result


def main() -> int:
    prepare_process()
    app = QApplication.instance() or QApplication(["bench-minimap"])
    with tempfile.TemporaryDirectory() as tmp:
        for n in (1000, 5000):
            print(json.dumps(measure(app, n, Path(tmp))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
