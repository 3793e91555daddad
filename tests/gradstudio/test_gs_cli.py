"""The command line: run / import / export / trust, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gradstudio.interchange.examples import EXAMPLES, build
from gradstudio.interchange.fileformat import save_document
from gradstudio.interchange.trust import TrustStore
from tests.gradstudio.cli_run import run_cli

ROOT = Path(__file__).resolve().parents[2]
SNIPPET = EXAMPLES[1].code  # seed 001


def test_run_prints_a_table(seed_file: Path) -> None:
    code, out, err = run_cli("run", str(seed_file))
    assert code == 0 and err == ""
    header, _rule, *rows = out.splitlines()
    assert header.split()[:4] == ["label", "shape", "dtype", "device"]
    w = next(r for r in rows if r.startswith("w "))
    assert "[5.0]" in w and "True" in w
    a = next(r for r in rows if r.startswith("a "))
    assert "AddBackward0" in a


def test_run_json(seed_file: Path) -> None:
    code, out, _ = run_cli("run", str(seed_file), "--json", "--device", "cpu")
    assert code == 0
    nodes = {n["label"]: n for n in json.loads(out)["nodes"]}
    assert nodes["w"]["grad"] == [5.0] and nodes["w"]["value"] == [1.0]
    assert nodes["a"]["is_leaf"] is False and nodes["a"]["grad_fn"] == "AddBackward0"


def test_errors_on_nodes_set_exit_code(tmp_path: Path) -> None:
    snippet = tmp_path / "twice.py"
    snippet.write_text(SNIPPET + "y.backward()\n")
    doc_path = tmp_path / "twice.gstudio"
    assert run_cli("import", str(snippet), "-o", str(doc_path))[0] == 0
    code, out, err = run_cli("run", str(doc_path))
    assert code == 1 and "second time" in err and "retain_graph=True" in err
    code, out, _ = run_cli("run", str(doc_path), "--json")
    assert code == 1 and json.loads(out)["errors"][0]["label"] == "y.backward()_2"


def test_a_node_waiting_for_an_input_is_said_but_is_no_failure(tmp_path: Path) -> None:
    doc = build(EXAMPLES[1])
    mul = doc.new_node("torch.mul", label="m")
    doc.add_node(mul)
    path = tmp_path / "waiting.gstudio"
    save_document(doc, path, TrustStore(tmp_path / "t.json"))
    code, _out, err = run_cli("run", str(path))
    assert code == 0 and "step 7 'm' did not run: connect inputs `input`, `other`" in err
    code, out, _ = run_cli("run", str(path), "--json")
    data = json.loads(out)
    assert code == 0 and data["errors"] == []
    assert data["waiting"] == [
        {"label": "m", "step": 6, "message": "connect inputs `input`, `other`"}
    ]


def test_import_and_export(tmp_path: Path) -> None:
    snippet = tmp_path / "s.py"
    snippet.write_text(SNIPPET)
    out_doc = tmp_path / "s.gstudio"
    code, out, _ = run_cli("import", str(snippet), "-o", str(out_doc))
    assert code == 0 and "wrote" in out
    script = tmp_path / "s_export.py"
    assert run_cli("export", str(out_doc), "-o", str(script))[0] == 0
    text = script.read_text()
    assert "w = torch.tensor([1.0], requires_grad=True)" in text and "y.backward()" in text
    compile(text, str(script), "exec")


def test_trust_lets_custom_code_run(tmp_path: Path) -> None:
    path = tmp_path / "f.gstudio"
    doc = build(next(e for e in EXAMPLES if e.name == "004_custom_function"))
    doc.set_meta("title", "a copy from elsewhere")  # not the shipped bytes: not trusted
    save_document(doc, path, TrustStore(tmp_path / "other.json"))
    code, _, err = run_cli("run", str(path))
    assert code == 1 and "not trusted" in err
    assert run_cli("run", str(path), "--trust")[0] == 0
    assert run_cli("trust", str(path))[0] == 0
    code, out, _ = run_cli("run", str(path), "--json")
    assert code == 0
    nodes = {n["label"]: n for n in json.loads(out)["nodes"]}
    assert nodes["a"]["grad"] == 10.0 and nodes["b"]["grad"] == 9.0


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["run"],
        ["run", "missing.gstudio"],
        ["run", "x.gstudio", "--device", "tpu"],
        ["export", "missing.gstudio"],
        ["import", "missing.py", "-o", "x.gstudio"],
    ],
)
def test_bad_arguments_print_one_line_and_exit_2(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("gradstudio: error: ")


def test_damaged_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gstudio"
    bad.write_text('{"format": "gradstudio", "version": 5, "nodes": []}')
    code, _, err = run_cli("run", str(bad))
    assert code == 2 and str(bad) in err and "newer GradStudio" in err
    bad_snippet = tmp_path / "bad.py"
    bad_snippet.write_text("import torch\nwhile True:\n    pass\n")
    code, _, err = run_cli("import", str(bad_snippet), "-o", str(tmp_path / "o.gstudio"))
    assert code == 2 and "line 2" in err and len(err.strip().splitlines()) == 1


def test_help_exits_zero() -> None:
    assert run_cli("--help")[0] == 0


def test_main_py_dispatches_every_subcommand_to_the_command_line() -> None:
    """``gradstudio trust f`` must not open a window: the launcher knows every sub-command."""
    import argparse

    from gradstudio.cli import _parser
    from gradstudio.launcher import CLI_COMMANDS

    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) | {"-h", "--help"} == CLI_COMMANDS


def test_main_py_subcommand(seed_file: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "run", str(seed_file), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["nodes"][0]["label"] == "w"


def _main_py(
    *args: str, env: dict[str, str] | None = None, **kw: object
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        **kw,
    )


@pytest.mark.parametrize("example", sorted((ROOT / "resources" / "examples").glob("*.gstudio")))
def test_bundled_examples_run_unmodified_as_in_the_studio(example: Path, tmp_path: Path) -> None:
    """The examples (004 has a custom Function) run without a trust step, by content hash;
    an edited copy of one is untrusted again."""
    proc = _main_py("run", str(example))
    assert proc.returncode == 0, proc.stderr
    copy = tmp_path / example.name
    copy.write_bytes(example.read_bytes().replace(b'"title"', b'"title" ', 1))
    from gradstudio.interchange.fileformat import load_document

    edited = load_document(copy, TrustStore(tmp_path / "store.json"))
    assert edited.trusted == (not edited.has_code())


def test_an_unknown_word_names_the_sub_commands() -> None:
    proc = _main_py("frobnicate", "FILE")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert "run, import, export, trust, verify, gradcheck, explain" in proc.stderr
    assert "Aborted" not in proc.stderr


def test_no_display_is_one_line_pointing_to_the_sub_commands() -> None:
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    proc = _main_py(env=env)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "no display" in proc.stderr
    assert "--help" in proc.stderr


def test_help_says_how_to_open_the_studio_on_a_file() -> None:
    proc = _main_py("--help")
    assert proc.returncode == 0
    assert "python main.py [FILE]" in " ".join(proc.stdout.split())


def test_a_closed_pipe_ends_quietly() -> None:
    """``main.py run ... | head``: the reader goes away; no 'Broken pipe' message."""
    import os

    example = ROOT / "resources" / "examples" / "005_mlp_training_step.gstudio"
    read_end, write_end = os.pipe()
    os.close(read_end)
    with os.fdopen(write_end, "w") as stdout:
        proc = subprocess.run(
            [sys.executable, str(ROOT / "main.py"), "run", str(example)],
            cwd=ROOT,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    assert proc.stderr == ""
    assert proc.returncode in (0, 1)
