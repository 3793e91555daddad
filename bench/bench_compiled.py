"""The compiled core against the same engine as pure Python, interleaved.

    python bench/bench_compiled.py [--only per_op wide ...] [--rounds N]

Each round runs ``run_one.py engine WORKLOAD`` twice, once with ``GRADSTUDIO_PURE=1``,
alternating which goes first; PyTorch runs in the same rounds as the yardstick.  Build
first with ``python -m engine.build`` (``make core``): without a fresh build both
engines are the pure one and the ratio is 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchenv  # (must run before NumPy or PyTorch is imported)

benchenv.setup_process()

import run_all  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

VARIANTS = {"compiled": ("engine", "0"), "pure": ("engine", "1"), "torch": ("torch", "0")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="+", default=["per_op", "mlp", "wide"])
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    print(
        f"{'workload':9} {'unit':8} {'compiled':>9} {'pure':>9} {'torch':>9} "
        f"{'comp/pure':>9} {'comp/torch':>10} {'pure/torch':>10}"
    )
    for name in args.only:
        w = WORKLOADS[name]
        samples: dict[str, list[float]] = {v: [] for v in VARIANTS}
        order = list(VARIANTS)
        for r in range(args.rounds):
            for v in order[r % 3 :] + order[: r % 3]:
                contender, pure = VARIANTS[v]
                os.environ["GRADSTUDIO_PURE"] = pure
                out = run_all.run_process("run_one.py", [contender, name, str(w.repeats)])
                samples[v].extend(out["samples"])
        scale = run_all.UNIT_SCALE[w.unit] / w.per_step
        m = {v: median(s) * scale for v, s in samples.items()}
        print(
            f"{name:9} {w.unit:8} {m['compiled']:9.3g} {m['pure']:9.3g} {m['torch']:9.3g} "
            f"{m['compiled'] / m['pure']:9.2f} {m['compiled'] / m['torch']:10.2f} "
            f"{m['pure'] / m['torch']:10.2f}"
        )


if __name__ == "__main__":
    main()
