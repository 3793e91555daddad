"""Evaluation in a worker process: whatever a Function's code does, a run ends and the
next one works (issue 9, part 3)."""

from __future__ import annotations

import io
import pickle
import time
from pathlib import Path

import numpy as np
import pytest

from gradstudio.cli import main
from gradstudio.evaluation import worker
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.plan import prepare
from gradstudio.evaluation.worker import GRACE_S, run_plan
from gradstudio.interchange.examples import EXAMPLES, build
from gradstudio.interchange.fileformat import save_document
from gradstudio.interchange.trust import TrustStore
from tests.hostile import HANGS, HOSTILE, hostile


def _statuses(ev) -> list[str]:  # noqa: ANN001
    return [s.status for s in ev.steps]


def _cancel_after(seconds: float):  # noqa: ANN202
    start = time.perf_counter()
    return lambda: time.perf_counter() - start > seconds


def test_results_match_an_evaluation_in_this_process() -> None:
    doc = build(EXAMPLES[1])
    here, there = evaluate(doc), run_plan(prepare(doc))
    assert there.ok and there.to_json() == here.to_json()
    assert [t.keys for t in there.traces] == [t.keys for t in here.traces]

    def plain(ev) -> list[tuple]:  # noqa: ANN001
        return [
            (
                e.key,
                e.name,
                [g and g.value for g in e.incoming],
                [g and g.value for _, g in e.outgoing],
            )
            for e in ev.traces[0].executions
        ]

    assert plain(there) == plain(here)
    # the index was built as the results arrived: nothing is left for the first look
    assert there.catch_up() and len(there._indexed) == len(there.steps)
    for step in range(-1, len(here.steps)):
        ours, theirs = dict(there.snapshot(step).items()), dict(here.snapshot(step).items())
        assert ours.keys() == theirs.keys()
        assert all(ours[ref].same_as(theirs[ref]) for ref in ours if ours[ref] is not None)


@pytest.mark.parametrize(
    "array",
    [
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.zeros((0, 3), np.float64),
        np.array(2.5),
        np.arange(4, dtype=">i8"),
        np.array([True, False]),
        np.array([1 + 2j], np.complex64),
        np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        np.arange(8.0)[::2],
        np.array(["a", "bc"]),
        np.zeros(worker.SMALL_ARRAY_BYTES // 8 + 1),
    ],
    ids=str,
)
def test_results_travel_as_pickle_would_send_them(array: np.ndarray) -> None:
    """The results' arrays, sent as raw bytes when small, arrive as NumPy's own
    pickling would bring them: dtype, shape, order, values, writable."""
    message = ("steps", [array, {"again": array}])
    sent = pickle.loads(worker.dumps_results(message))
    plain = pickle.loads(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
    for got, want in ((sent[1][0], plain[1][0]), (sent[1][1]["again"], plain[1][1]["again"])):
        assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape
        assert got.strides == want.strides and got.flags.writeable == want.flags.writeable
        assert np.array_equal(got, want)
    assert sent[1][0] is sent[1][1]["again"]  # one array, as pickle keeps it


@pytest.mark.parametrize("name", HANGS)
def test_a_hanging_step_is_cancelled(name: str) -> None:
    doc = hostile(HOSTILE[name])
    asked = 0.3
    started = time.perf_counter()
    ev = run_plan(prepare(doc), cancel=_cancel_after(asked))
    latency = time.perf_counter() - started - asked
    assert ev.cancelled and latency < 10.0  # "stopped, not hung", not a speed figure (bench_worker)
    assert _statuses(ev) == ["ok", "not run", "not run"]  # x's result came back
    assert ev.steps[0].changed  # with its facts
    again = run_plan(prepare(hostile()))
    assert again.ok and again.to_json()["nodes"][-1]["value"] == [-2.0]


@pytest.mark.parametrize("name", ["SystemExit", "KeyboardInterrupt"])
def test_exiting_code_is_an_error_of_its_step(name: str) -> None:
    ev = run_plan(prepare(hostile(HOSTILE[name])))
    assert _statuses(ev) == ["ok", "error", "not run"] and not ev.cancelled
    error = ev.steps[1].error
    assert error is not None and error.exc_type == name
    assert error.message.startswith(f"the code raised {name}")
    assert "stop the program" in error.title
    assert run_plan(prepare(hostile())).ok


def test_os_exit_ends_only_the_worker_and_the_next_run_gets_a_fresh_one() -> None:
    ev = run_plan(prepare(hostile(HOSTILE["os._exit"])))
    assert _statuses(ev) == ["ok", "error", "not run"]
    error = ev.steps[1].error
    assert error is not None and error.exc_type == "ProcessExit"
    assert error.message == "`f` ended the evaluation process (exit status 1)"
    assert "\n" not in error.message
    assert run_plan(prepare(hostile())).ok


def test_a_timeout_marks_the_step_that_was_running() -> None:
    started = time.perf_counter()
    ev = run_plan(prepare(hostile(HOSTILE["busy loop"])), timeout=0.5)
    assert time.perf_counter() - started < 0.5 + GRACE_S + 1.0
    assert _statuses(ev) == ["ok", "error", "not run"] and not ev.cancelled
    error = ev.steps[1].error
    assert error is not None and error.exc_type == "EvaluationTimeout"
    assert error.message == "`f` did not finish within 0.5 s"


def test_the_worker_takes_the_trust_decision_from_the_plan() -> None:
    ev = run_plan(prepare(hostile(HOSTILE["os._exit"], trusted=False)))
    error = ev.steps[1].error
    assert error is not None and error.exc_type == "NotTrustedError"  # the code never ran


def test_a_warm_worker_is_reused() -> None:
    run_plan(prepare(hostile()))
    first = worker.POOL.acquire()
    worker.POOL.release(first)
    run_plan(prepare(hostile()))
    second = worker.POOL.acquire()
    worker.POOL.release(second)
    assert first is second and first.alive


# ------------------------------------------------------------------------ command line


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_cli_timeout_stops_a_looping_function(tmp_path: Path) -> None:
    path = tmp_path / "loop.gstudio"
    save_document(hostile(HOSTILE["busy loop"], trusted=False), path, TrustStore(tmp_path / "t"))
    started = time.perf_counter()
    code, out, err = _cli("run", str(path), "--trust", "--timeout", "0.5")
    assert time.perf_counter() - started < 3
    assert code == 1 and "x" in out
    assert "error in step 2 'f': EvaluationTimeout: `f` did not finish within 0.5 s" in err


@pytest.mark.parametrize("name", ["SystemExit", "os._exit"])
def test_cli_survives_exiting_code(tmp_path: Path, name: str) -> None:
    path = tmp_path / "exit.gstudio"
    save_document(hostile(HOSTILE[name], trusted=False), path, TrustStore(tmp_path / "t"))
    code, _, err = _cli("run", str(path), "--trust")
    assert code == 1 and "error in step 2 'f'" in err


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_cli_bad_timeout_is_one_line(value: str, tmp_path: Path) -> None:
    code, out, err = _cli("run", str(tmp_path / "x.gstudio"), "--timeout", value)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--timeout" in err


def test_the_collector_is_as_the_caller_left_it_after_a_run() -> None:
    """Results are unpickled with the collector paused; it is back on afterwards, and a
    caller that had turned it off finds it still off."""
    import gc

    plan = prepare(build(EXAMPLES[1]))
    gc.enable()  # as a caller leaves it (an earlier test's runner thread may be unpickling)
    assert run_plan(plan).ok
    assert gc.isenabled()
    gc.disable()
    try:
        assert run_plan(plan).ok
        assert not gc.isenabled()
    finally:
        gc.enable()
