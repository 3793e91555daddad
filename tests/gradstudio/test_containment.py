"""User code that runs stays contained: hostile programs against Run to Import and the
evaluation worker.

After each one: no process with its marker is left (``ps``), the error is one printable
line, a malformed report is exit 2 naming its JSON path, and trust is recorded only for
code that ran.  Markers are unique per test, so a leftover from one cannot pass another.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from gradstudio.cli import main
from gradstudio.interchange.program_import import runner
from gradstudio.interchange.program_import.report import MalformedReport, check_report
from gradstudio.interchange.pytorch_import import ImportProblem
from gradstudio.interchange.quoting import last_line, one_line
from gradstudio.interchange.trust import TrustStore
from gradstudio.sandbox.contained import Contained
from gradstudio.sandbox.isolation import unavailable
from gradstudio.sandbox.limits import Limits

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")


def _left(marker: str) -> list[str]:
    out = subprocess.run(["ps", "-ww", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if marker in line]


def _gone(marker: str, within: float = 5.0) -> bool:
    """No process carries ``marker`` (a stray may take one supervisor tick to go)."""
    deadline = time.monotonic() + within
    while _left(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _sleeper(marker: str) -> str:
    """A child that says it started (a file named for its marker, in the working folder),
    then sleeps for longer than any test runs."""
    code = f"open({marker!r}, 'w').close(); import time; time.sleep(120)"
    return f"[sys.executable, '-c', {code!r}, {marker!r}]"


def _started(folder: Path, marker: str, within: float = 30.0) -> bool:
    deadline = time.monotonic() + within
    while not (folder / marker).exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


SPAWNERS = {  # each spawns a sleeper that would outlive the program
    "fork": """
        if os.fork() == 0:
            os.execv(sys.executable, {sleeper})
    """,
    "double_fork_setsid": """
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, {sleeper})
            os._exit(0)
    """,
    "popen_no_wait": """
        subprocess.Popen({sleeper}, stdout=subprocess.DEVNULL)
    """,
}


def _spawn(kind: str, marker: str) -> str:
    return textwrap.dedent(SPAWNERS[kind]).format(sleeper=_sleeper(marker))


def _program(tmp_path: Path, body: str, name: str = "hostile.py") -> Path:
    path = tmp_path / name
    path.write_text(
        "import os, subprocess, sys, time\nimport torch\n" + textwrap.dedent(body), "utf-8"
    )
    return path


@pytest.mark.parametrize("kind", sorted(SPAWNERS))
def test_nothing_outlives_an_import(tmp_path: Path, kind: str) -> None:
    marker = f"gs-marker-{uuid.uuid4().hex}"
    body = _spawn(kind, marker) + f"while not os.path.exists({marker!r}): time.sleep(0.01)\n"
    doc = runner.import_program(_program(tmp_path, body + "x = torch.ones(2) * 3\n"))
    assert len(doc) > 0 and (tmp_path / marker).exists()
    assert _gone(marker, within=0.5), _left(marker)


@pytest.mark.parametrize("kind", sorted(SPAWNERS))
def test_nothing_outlives_a_cancel(tmp_path: Path, kind: str) -> None:
    marker = f"gs-marker-{uuid.uuid4().hex}"
    body = _spawn(kind, marker) + "time.sleep(60)\n"
    recording = runner.Recording(_program(tmp_path, body))
    assert _started(tmp_path, marker), "the program did not start its child"
    recording.stop()
    assert _gone(marker, within=0.5), _left(marker)
    with pytest.raises(ImportProblem, match="stopped before it finished"):
        recording.report()


def test_nothing_outlives_the_time_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "WALL_SECONDS", 3)
    marker = f"gs-marker-{uuid.uuid4().hex}"
    body = _spawn("double_fork_setsid", marker) + "time.sleep(60)\n"
    with pytest.raises(ImportProblem, match="longer than 3 s"):
        runner.import_program(_program(tmp_path, body))
    assert (tmp_path / marker).exists()
    assert _gone(marker, within=0.5), _left(marker)


def test_a_fork_bomb_is_capped_and_ended(tmp_path: Path) -> None:
    marker = f"gs-marker-{uuid.uuid4().hex}"
    body = f"""
        for _ in range(500):
            try:
                if os.fork() == 0:
                    os.execv(sys.executable, {_sleeper(marker)})
            except OSError:
                break
        time.sleep(60)
    """
    with pytest.raises(ImportProblem, match="more than 64 processes") as info:
        runner.import_program(_program(tmp_path, body))
    assert "\n" not in str(info.value)
    assert _gone(marker, within=0.5), _left(marker)


def test_a_large_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "FILE_BYTES", 1 << 20)
    body = "open(os.path.join(os.environ.get('TMPDIR', '/tmp'), 'big'), 'wb').write(b'x' * 4**11)\n"
    with pytest.raises(ImportProblem, match="File too large"):
        runner.import_program(_program(tmp_path, body))


def test_a_torrent_of_output_keeps_the_parent_small(tmp_path: Path) -> None:
    program = _program(
        tmp_path,
        """
        chunk = "y" * (1 << 20)
        for _ in range(400):
            sys.stderr.write(chunk)
        sys.stderr.write("\\n\\x1b[31mthe real problem\\x1b[0m\\n")
        sys.stderr.flush()
        os._exit(3)
        """,
    )
    probe = (
        "import sys\n"
        "from gradstudio.interchange.program_import.runner import import_program\n"
        "from gradstudio.interchange.pytorch_import import ImportProblem\n"
        "from tests.peak_memory import peak_kib\n"
        "try:\n    import_program(sys.argv[1])\n"
        "except ImportProblem as exc:\n    print(exc)\n"
        "print(peak_kib())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(program)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    message, peak_kib = done.stdout.splitlines()
    assert message == "the program could not be recorded: the real problem"
    assert int(peak_kib) < 400 * 1024  # 400 MB went through; far less stayed


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("print('\\x1b[2J\\x1b[1;31mboom', file=sys.stderr)\nos._exit(4)\n", "boom"),
        ("sys.stderr.write('progress\\rline one\\nline\\u202e two\\n')\nos._exit(4)\n", "line two"),
        ("raise ValueError('first\\nsecond\\x1b[0m\\x07 third')\n", "ValueError: first second"),
        ("sys.stderr.write('z' * (50 << 20))\nos._exit(4)\n", "zzz"),
    ],
)
def test_the_error_is_one_clean_line(tmp_path: Path, body: str, expected: str) -> None:
    with pytest.raises(ImportProblem) as info:
        runner.import_program(_program(tmp_path, body))
    text = str(info.value)
    assert expected in text
    assert text.isprintable() and len(text) <= 320, text[:400]


def test_one_line_strips_what_drives_a_terminal() -> None:
    assert one_line("\x1b[31mred\x1b[0m\nnext\rline \u202eevil\x1b]0;title\x07 ok") == (
        "red next line evil ok"
    )
    assert one_line("y" * 1_000_000).endswith("…") and len(one_line("y" * 1_000_000)) == 300
    assert last_line("a\nwhat\x1b[2K\rreal error: x\n\n\x1b[0m\n") == "real error: x"


def _forging(tmp_path: Path, report: object) -> Path:
    """A program that overwrites its recording with ``report`` as it exits."""
    text = json.dumps(report) if not isinstance(report, str) else report
    return _program(
        tmp_path,
        f"""
        import atexit
        x = torch.ones(2, requires_grad=True)
        (x * 2).sum().backward()
        # the recording's path, found as hostile code would: the recorder's command line
        args = open("/proc/self/cmdline", "rb").read().split(b"\\0")
        out = next(a.decode() for a in args if a.endswith(b"events.json"))
        atexit.register(lambda: open(out, "w").write({text!r}))
        """,
    )


_FRAME = {"kind": "frame", "title": "t", "frame_kind": "module", "meta": {}, "instance": ""}
FORGED = {
    "garbage": ("\x00not json{{", "$"),
    "a_list": ([1, 2, 3], "$"),
    "events_not_a_list": ({"events": {"a": 1}, "labels": {}}, "$.events"),
    "event_not_an_object": ({"events": [3], "labels": {}}, "$.events[0]"),
    "bad_reference": (
        {
            "events": [
                {"kind": "clear_grad", "target": "t404", "line": 1},
            ],
            "labels": {},
        },
        "$.events[0]",
    ),
    "missing_frame": (
        {"events": [{"kind": "clear_grad", "target": "t1", "frame": "f9"}], "labels": {}},
        "$.events[0]",  # the frame is dropped; the unknown tensor is the fault
    ),
    "group_cycle": (
        {
            "events": [
                {**_FRAME, "id": "f1", "parent": "f2"},
                {**_FRAME, "id": "f2", "parent": "f1"},
            ],
            "labels": {},
        },
        "$.events[0].parent",
    ),
    "nested_frames": (
        {
            "events": [
                {**_FRAME, "id": f"f{i}", "parent": f"f{i - 1}" if i else None}
                for i in range(20_000)
            ],
            "labels": {},
        },
        "$.events[64].parent",
    ),
    "labels_not_text": ({"events": [], "labels": {"t1": [1]}}, '$.labels["t1"]'),
}


@pytest.mark.parametrize("case", sorted(FORGED))
def test_a_malformed_recording_is_exit_2_with_its_path(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    report, path = FORGED[case]
    program = _forging(tmp_path, report)
    assert main(["import", "--run", str(program), "-o", str(tmp_path / "o.gstudio")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" not in err, err
    assert f"malformed at {path}:" in err, err


def test_a_program_that_replaces_json_dump(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    program = _program(
        tmp_path, "import json\njson.dump = lambda *a, **k: None\nx = torch.ones(1)\n"
    )
    assert main(["import", "--run", str(program), "-o", str(tmp_path / "o.gstudio")]) == 2
    err = capsys.readouterr().err
    assert "malformed at $: it is not JSON" in err and err.count("\n") == 1


def test_the_report_check_names_the_first_fault() -> None:
    with pytest.raises(MalformedReport, match=r"at \$\.events\[1\]\.line: expected a line number"):
        check_report({"events": [{"kind": "x"}, {"kind": "y", "line": "3"}], "labels": {}})
    assert check_report({"error": "E: x", "line": None})["error"] == "E: x"


def test_a_class_name_with_a_newline_is_a_clean_title(tmp_path: Path) -> None:
    program = _program(
        tmp_path,
        """
        def forward(self, x):
            return self.lin(x).relu()
        def init(self):
            torch.nn.Module.__init__(self)
            self.lin = torch.nn.Linear(2, 2)
        Bad = type("Bad\\nName\\x1b[31m", (torch.nn.Module,), dict(forward=forward, __init__=init))
        model = Bad()
        y = model(torch.ones(1, 2)).sum()
        y.backward()
        """,
    )
    doc = runner.import_program(program)
    titles = [g.title for g in doc.groups.values()]
    assert titles and all(t.isprintable() for t in titles)
    assert any("Bad Name" in t for t in titles), titles


_FUNCTION = """
class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2
"""
_APPLY = "x = torch.ones(2, requires_grad=True)\nDouble.apply(x).sum().backward()\n"


def test_code_that_ran_is_trusted_and_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    program = _program(
        tmp_path,
        _FUNCTION + "x = torch.ones(2, requires_grad=True)\nDouble.apply(x).sum().backward()\n",
    )
    out = tmp_path / "o.gstudio"
    assert main(["import", "--run", str(program), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "trusted: it is the code you ran" in said and "main.py trust" not in said
    from gradstudio.interchange.trust import is_file_trusted

    assert is_file_trusted(out, TrustStore())


def test_code_that_never_ran_stays_untrusted(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    # a hook registered but never fired (no backward reaches it) is code that did not run
    program = _program(
        tmp_path,
        "x = torch.ones(2, requires_grad=True)\ny = x * 3\ny.register_hook(lambda g: g * 10)\n",
    )
    doc = runner.import_program(program)
    if doc.has_code():
        assert not doc.trusted


def test_forged_code_in_a_report_stays_untrusted(tmp_path: Path) -> None:
    program = _program(
        tmp_path,
        _FUNCTION + "x = torch.ones(2, requires_grad=True)\nDouble.apply(x).sum().backward()\n",
    )
    report = runner.record(program)
    forged = "class Double(torch.autograd.Function):\n    pass  # never in the program\n"
    for event in report["events"]:
        if event.get("kind") == "function":
            event["source"] = forged
    doc = runner.document_of(program, report)
    assert doc.has_code() and not doc.trusted
    honest = runner.document_of(program, runner.record(program))
    assert honest.has_code() and honest.trusted


@pytest.mark.skipif(unavailable() is not None, reason=f"isolation unavailable: {unavailable()}")
def test_an_isolated_run_has_no_network_and_writes_only_its_folder(tmp_path: Path) -> None:
    outside = tmp_path / "escaped.txt"
    program = _program(
        tmp_path,
        f"""
        import socket
        try:
            open({str(outside)!r}, "w").write("x")
        except OSError:
            pass
        import tempfile
        open(os.path.join(tempfile.gettempdir(), "inside.txt"), "w").write("x")
        try:
            socket.create_connection(("127.0.0.1", 9), timeout=2)
            raise SystemExit("connected")
        except OSError:
            pass
        x = torch.ones(2) + 1
        """,
    )
    doc = runner.import_program(program, isolate=True)
    assert len(doc) > 0
    assert not outside.exists()
    runner.import_program(program)  # not isolated: the same program may write there
    assert outside.exists()


def test_isolation_says_when_it_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import gradstudio.cli as cli

    monkeypatch.setattr(cli, "isolation_unavailable", lambda: "this system has no Landlock")
    program = _program(tmp_path, "x = torch.ones(2)\n")
    assert (
        main(["import", "--run", "--isolate", str(program), "-o", str(tmp_path / "o.gstudio")]) == 2
    )
    assert "cannot be isolated here: this system has no Landlock" in capsys.readouterr().err


def test_a_contained_run_reports_its_end() -> None:
    run = Contained([sys.executable, "-c", "import sys; print('hi'); sys.exit(5)"], limits=Limits())
    assert run.wait(30)
    assert run.ended is not None and run.ended.code == 5 and run.ended.reason == ""
    assert run.stdout is not None and run.stdout.text() == "hi\n"


def _spawning_function(marker: str) -> str:
    return f"""
class Spawn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        import subprocess
        import sys

        subprocess.Popen({_sleeper(marker)}, stdout=subprocess.DEVNULL)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


x = torch.ones(2, requires_grad=True)
Spawn.apply(x).sum().backward()
"""


def test_nothing_outlives_a_trusted_function_in_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gradstudio.evaluation.plan import prepare
    from gradstudio.evaluation.worker import run_plan

    monkeypatch.chdir(tmp_path)  # the worker runs the function where the studio runs: here
    recorded = f"gs-marker-{uuid.uuid4().hex}"
    doc = runner.import_program(_program(tmp_path, _spawning_function(recorded)))
    assert _gone(recorded, within=0.5)
    assert doc.trusted and doc.has_code()
    result = run_plan(prepare(doc, "cpu", None), timeout=60)
    assert not result.errors
    assert _gone(recorded), _left(recorded)


def test_main_run_returns_though_its_code_left_a_child(tmp_path: Path) -> None:
    marker = f"gs-marker-{uuid.uuid4().hex}"
    out = tmp_path / "spawn.gstudio"
    program = _program(tmp_path, _spawning_function(marker))
    assert main(["import", "--run", str(program), "-o", str(out)]) == 0
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "run", str(out), "--trust", "--timeout", "60"],
        capture_output=True,
        text=True,
        timeout=100,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 60  # the sleeper (120 s) did not hold its stdout
    assert _gone(marker), _left(marker)
