"""Regenerate the conformance golden files by running every scenario under PyTorch.

    .venv/bin/python tools/gen_golden.py            # all scenarios
    .venv/bin/python tools/gen_golden.py op_add_sub  # some, by name
    .venv/bin/python tools/gen_golden.py --check     # exit 1 if files are stale
    .venv/bin/python tools/gen_golden.py --force     # rewrite every file

Run without names it also rewrites ``tests/conformance/random_golden.json``: the
exact digests of the random-number cases (``tests/conformance/random_cases.py``).

Each scenario runs in a fresh process (forked from a server that imported
torch but ran nothing): PyTorch emits some warnings only once per
process (``x.T`` on 3-D tensors, ``backward(create_graph=True)``), and a golden
file must show what a learner running that snippet alone would see.  Files are
JSON with sorted keys, floats rounded to 8 significant digits and short lists on
one line, so a regeneration diffs cleanly; a file is only rewritten when its
facts changed beyond float tolerance.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.conformance import random_cases  # noqa: E402
from tests.conformance.scenarios import SCENARIOS, Scenario  # noqa: E402
from tests.oracle import FACTS_FORMAT, compare, run_program  # noqa: E402

GOLDEN_DIR = ROOT / "tests" / "conformance" / "golden"
RANDOM_GOLDEN = ROOT / "tests" / "conformance" / "random_golden.json"
SIGNIFICANT_DIGITS = 8


def round_floats(obj: Any) -> Any:
    """Round every float so that regenerations are stable and diffs small."""
    if isinstance(obj, float):
        return float(f"{obj:.{SIGNIFICANT_DIGITS}g}")
    if isinstance(obj, list):
        return [round_floats(v) for v in obj]
    if isinstance(obj, dict):
        return {k: round_floats(v) for k, v in obj.items()}
    return obj


def _is_flat(obj: Any) -> bool:
    """Lists of numbers (or of such lists) are written on one line."""
    if isinstance(obj, list):
        return all(_is_flat(v) for v in obj)
    return not isinstance(obj, dict)


def dumps(obj: Any, indent: int = 0) -> str:
    """Diff-friendly JSON: one key per line, numeric arrays kept on one line."""
    pad = "  " * (indent + 1)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{pad}{json.dumps(k)}: {dumps(obj[k], indent + 1)}" for k in sorted(obj)]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(obj, list) and not _is_flat(obj):
        items = [f"{pad}{dumps(v, indent + 1)}" for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def golden_path(name: str) -> Path:
    return GOLDEN_DIR / f"{name}.json"


def build_record(scenario: Scenario) -> dict[str, Any]:
    """Run one scenario under PyTorch (in the calling process)."""
    import torch

    facts = run_program(
        scenario.source,
        torch,
        ignore_values=scenario.ignore_values,
        ignore_graph=scenario.ignore_graph,
    )
    return {
        "scenario": scenario.name,
        "source": scenario.source,
        "ignore_values": list(scenario.ignore_values),
        "ignore_graph": list(scenario.ignore_graph),
        "torch_version": str(torch.__version__),
        "format": FACTS_FORMAT,
        "facts": round_floats(facts),
    }


def _worker(name: str) -> dict[str, Any]:
    return build_record(SCENARIOS[name])


def generate(names: list[str], jobs: int) -> dict[str, dict[str, Any]]:
    """The golden record of each named scenario, each run in a fresh process."""
    # a fork server imports torch once; every worker is a fork of that clean state
    ctx = multiprocessing.get_context("forkserver")
    # (``make_dual`` loads jvp decompositions on first use, and their ``torch.jit.script``
    # deprecation warnings are PyTorch's import noise, which a learner's run does not show)
    ctx.set_forkserver_preload(
        [
            "torch",
            "torch._decomp.decompositions_for_jvp",
            "tests.oracle",
            "tests.conformance.scenarios",
        ]
    )
    with concurrent.futures.ProcessPoolExecutor(
        max_workers=jobs, mp_context=ctx, max_tasks_per_child=1
    ) as pool:
        return dict(zip(names, pool.map(_worker, names), strict=True))


_METADATA = ("scenario", "source", "ignore_values", "ignore_graph", "torch_version", "format")


def differences(name: str, record: dict[str, Any]) -> list[str]:
    """Why the stored golden file of ``name`` does not match ``record`` (float tolerance).

    Tolerance keeps last-digit float noise between machines from churning files.
    """
    path = golden_path(name)
    if not path.exists():
        return ["no golden file"]
    stored = json.loads(path.read_text())
    diffs = [f"{key} changed" for key in _METADATA if stored.get(key) != record[key]]
    return diffs + compare(stored.get("facts", {}), record["facts"])


def random_record() -> dict[str, Any]:
    """The random-number cases under PyTorch: digests are exact, never rounded."""
    import torch

    return {"torch_version": str(torch.__version__), "cases": random_cases.record(torch)}


def sync_random_golden(check: bool) -> bool:
    """Write (or, with ``check``, only compare) the random golden file; True if stale."""
    text = dumps(random_record()) + "\n"
    stale = not RANDOM_GOLDEN.exists() or RANDOM_GOLDEN.read_text() != text
    if stale and check:
        print(f"stale: {RANDOM_GOLDEN.relative_to(ROOT)}")
    elif stale:
        RANDOM_GOLDEN.write_text(text)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="scenarios to regenerate")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if any file is stale"
    )
    parser.add_argument("--force", action="store_true", help="rewrite even unchanged files")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 4)
    args = parser.parse_args(argv)

    unknown = [n for n in args.names if n not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenarios: {', '.join(unknown)}")
    names = args.names or sorted(SCENARIOS)
    random_stale = False if args.names else sync_random_golden(args.check)
    records = generate(names, args.jobs)

    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    stale: dict[str, list[str]] = {}
    for n in names:
        diffs = differences(n, records[n])
        if diffs or args.force:
            stale[n] = diffs
    orphans = (
        []
        if args.names
        else sorted(p for p in GOLDEN_DIR.glob("*.json") if p.stem not in SCENARIOS)
    )
    if args.check:
        for n, diffs in stale.items():
            print(f"stale: {golden_path(n).relative_to(ROOT)}")
            for d in diffs[:10]:
                print(f"    {d}")
        for p in orphans:
            print(f"orphan: {p.relative_to(ROOT)}")
        return 1 if stale or orphans or random_stale else 0
    for n in stale:
        golden_path(n).write_text(dumps(records[n]) + "\n")
    for p in orphans:
        p.unlink()
    print(
        f"{len(names)} scenarios, {len(stale)} written, {len(orphans)} removed "
        f"-> {GOLDEN_DIR.relative_to(ROOT)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
