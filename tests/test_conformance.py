"""Replay every conformance scenario against ``engine`` and compare with PyTorch's facts.

The expected facts come from golden files written by ``tools/gen_golden.py`` under
real PyTorch, so this test proves the engine faithful without torch installed.
A failure lists every difference (values, dtypes, grad_fn names, next_functions,
grads, versions, warnings, exception text) next to the snippet.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.scenarios import SCENARIOS, Scenario
from tests.oracle import FACTS_FORMAT, compare, run_program

GOLDEN_DIR = Path(__file__).parent / "conformance" / "golden"
RTOL = 1e-5
ATOL = 1e-6


@pytest.fixture(autouse=True)
def _engine_defaults() -> Any:
    """A scenario that changes the default dtype or device must not leak into the next."""
    import engine

    yield
    engine.set_default_dtype(engine.float32)
    engine.set_default_device(None)


def load_golden(name: str) -> dict[str, Any]:
    """The golden record of a scenario; fails with the fix when it is absent."""
    path = GOLDEN_DIR / f"{name}.json"
    if not path.exists():
        pytest.fail(f"no golden file {path.name}: run tools/gen_golden.py {name}")
    record: dict[str, Any] = json.loads(path.read_text())
    return record


def check_golden_current(scenario: Scenario, record: dict[str, Any]) -> None:
    """A golden file must have been generated from the scenario as it is now."""
    stale = (
        record.get("source") != scenario.source
        or record.get("format") != FACTS_FORMAT
        or tuple(record.get("ignore_values", ())) != scenario.ignore_values
        or tuple(record.get("ignore_graph", ())) != scenario.ignore_graph
    )
    if stale:
        pytest.fail(
            f"golden file of {scenario.name} is stale: run tools/gen_golden.py {scenario.name}"
        )


def format_failure(scenario: Scenario, record: dict[str, Any], diffs: list[str]) -> str:
    lines = [
        f"engine differs from PyTorch {record.get('torch_version')} in scenario "
        f"{scenario.name!r} ({len(diffs)} difference{'s' if len(diffs) != 1 else ''}):",
        *(f"  - {d}" for d in diffs),
        "",
        "snippet:",
        *(f"    {line}" for line in scenario.source.splitlines()),
    ]
    return "\n".join(lines)


def test_every_scenario_has_a_golden_file() -> None:
    names = {p.stem for p in GOLDEN_DIR.glob("*.json")}
    missing = sorted(set(SCENARIOS) - names)
    orphans = sorted(names - set(SCENARIOS))
    assert not missing, f"run tools/gen_golden.py: no golden file for {missing}"
    assert not orphans, f"run tools/gen_golden.py: golden files without scenario {orphans}"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_engine_matches_golden(name: str) -> None:
    import engine

    scenario = SCENARIOS[name]
    record = load_golden(name)
    check_golden_current(scenario, record)
    actual = run_program(
        scenario.source,
        engine,
        ignore_values=scenario.ignore_values,
        ignore_graph=scenario.ignore_graph,
    )
    diffs = compare(record["facts"], actual, rtol=RTOL, atol=ATOL)
    if diffs:
        pytest.fail(format_failure(scenario, record, diffs), pytrace=False)
