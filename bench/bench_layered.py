"""The layered layout's cost and quality: seconds and edge crossings per graph.

    python bench/bench_layered.py [--sizes 200 1000 3000]

For the backward graph of every bundled example, a 150-step chain that reuses one weight
(150 long edges) and the random graphs of ``bench_ui.build_graph``: how long
``ui.backward.model.arrange`` takes (ordering, placement, routes; no widgets) and how many
crossings remain against the order the graph came in.  Then the canvas's auto-layout
(``layered_positions``) on the same random documents.  One JSON line per graph.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from bench_ui import build_graph  # noqa: E402

from gradstudio.document.layered import count_crossings, make_proper  # noqa: E402
from gradstudio.document.layout import layered_positions  # noqa: E402
from gradstudio.document.model import Document  # noqa: E402
from gradstudio.evaluation.evaluate import evaluate  # noqa: E402
from gradstudio.evaluation.grad_fn_index import index_for  # noqa: E402
from gradstudio.interchange.examples import EXAMPLES, build  # noqa: E402
from gradstudio.interchange.pytorch_import import import_snippet  # noqa: E402
from ui.backward.model import arrange, layers_of, union_model  # noqa: E402


def chain(n: int = 150) -> Document:
    lines = ["import torch", "w = torch.tensor([[0.5, 0.1], [0.2, 0.3]], requires_grad=True)"]
    lines.append("h0 = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)")
    lines += [f"h{i + 1} = torch.sin(torch.mul(h{i}, w))" for i in range(n)]
    lines += [f"loss = h{n}.sum()", "loss.backward()"]
    return import_snippet("\n".join(lines) + "\n")


def backward_figures(name: str, doc: Document) -> dict[str, object]:
    evaluation = evaluate(doc)
    model = union_model(evaluation, index_for(evaluation))
    sizes = {box_id: (60.0 + 7.0 * len(box.title), 34.0) for box_id, box in model.boxes.items()}
    layers, succ, _ = layers_of(model)
    first = {box_id: i for i, box_id in enumerate(model.boxes)}
    edges = [(a, b) for a in model.boxes for b in succ[a]]
    given = make_proper([sorted(layer, key=first.__getitem__) for layer in layers], edges)
    t = time.perf_counter()
    placement = arrange(model, sizes)
    return {
        "graph": name,
        "boxes": len(model.boxes),
        "crossings_as_given": count_crossings(given),
        "crossings": placement.crossings,
        "arrange_s": round(time.perf_counter() - t, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[200, 1000, 3000])
    args = parser.parse_args(argv)
    for example in EXAMPLES:
        print(json.dumps(backward_figures(example.name, build(example))))
    print(json.dumps(backward_figures("chain150", chain())))
    for n in args.sizes:
        doc = build_graph(n)
        print(json.dumps(backward_figures(f"random{n}", doc)))
        t = time.perf_counter()
        layered_positions(doc)
        print(
            json.dumps(
                {"graph": f"random{n}", "canvas_layout_s": round(time.perf_counter() - t, 3)}
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
