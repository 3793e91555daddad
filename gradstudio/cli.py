"""``main.py`` sub-commands: run, import, export, trust, verify, gradcheck, explain — for
scripts and terminals.

Exit codes: 0 success; 1 the document evaluated but a node recorded an error;
2 a bad file or a bad argument (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from gradstudio.evaluation.budget import DEFAULT_BUDGET, format_size, parse_size
from gradstudio.evaluation.explain_grad import CannotExplain, explain_gradient, find_ref
from gradstudio.evaluation.facts import TensorFacts, waiting_text
from gradstudio.evaluation.plan import prepare
from gradstudio.evaluation.results import Evaluation
from gradstudio.evaluation.worker import run_plan
from gradstudio.instruments.gradcheck import CannotGradcheck, format_gradcheck, gradcheck
from gradstudio.instruments.verify import TorchUnavailable, format_report, verify
from gradstudio.interchange.fileformat import DocumentError, load_document, save_document
from gradstudio.interchange.program_import.notebook import is_notebook, located, read_notebook
from gradstudio.interchange.program_import.runner import KEEP_ITERATIONS, import_program
from gradstudio.interchange.pytorch_export import ExportError, export_script
from gradstudio.interchange.pytorch_import import ImportProblem, import_snippet
from gradstudio.interchange.quoting import one_line, printable
from gradstudio.interchange.trust import TrustStore, trust_file
from gradstudio.sandbox.isolation import unavailable as isolation_unavailable
from gradstudio.text import shape_text

PROG = "gradstudio"


class UsageError(Exception):
    """A bad command line: reported as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="GradStudio without a screen: the sub-commands below need no display.",
        epilog="Without a sub-command, 'gradstudio [FILE]' (in a checkout, 'python main.py "
        "[FILE]') opens the studio, on FILE, a .gstudio document, if given; "
        "'gradstudio --install-desktop-entry' adds it to the desktop menu.",
    )
    sub = parser.add_subparsers(
        dest="command", required=True, parser_class=_Parser, metavar="COMMAND"
    )

    run = sub.add_parser("run", help="evaluate a document and print every tensor's facts")
    run.add_argument("file", help="a .gstudio document")
    run.add_argument("--device", choices=("cpu", "cuda"), help="override the document's device")
    run.add_argument("--json", action="store_true", help="print the facts as JSON")
    run.add_argument(
        "--trust", action="store_true", help="run custom Function code even if untrusted"
    )
    run.add_argument(
        "--timeout",
        type=_seconds,
        metavar="S",
        help="stop the run after S seconds (the step running gets an error)",
    )
    run.add_argument(
        "--memory-budget",
        type=_budget,
        default=DEFAULT_BUDGET,
        metavar="SIZE",
        help="tensor data the run may hold, e.g. 512MiB or 4GiB, or 'none' "
        f"(default {format_size(DEFAULT_BUDGET)})",
    )

    imp = sub.add_parser(
        "import", help="turn a PyTorch snippet into a document (without running it)"
    )
    imp.add_argument("snippet", help="a .py file")
    imp.add_argument(
        "--run",
        action="store_true",
        help="run the program (torch mapped to the engine) and record what it does; it runs "
        "with your permissions (your files, the network) unless --isolate",
    )
    imp.add_argument(
        "--isolate",
        action="store_true",
        help="with --run: no network, and writes only to the run's temporary folder "
        "(Linux with Landlock and user namespaces)",
    )
    imp.add_argument(
        "--keep-iterations",
        type=int,
        default=KEEP_ITERATIONS,
        metavar="K",
        help=f"with --run: a loop keeps its first K iterations and its last as nodes, "
        f"the others folded into one card (default {KEEP_ITERATIONS})",
    )
    imp.add_argument(
        "--memory-budget",
        type=_budget,
        default=DEFAULT_BUDGET,
        metavar="SIZE",
        help="refuse a tensor whose shape would take more than SIZE, e.g. 4GiB, or 'none' "
        f"(default {format_size(DEFAULT_BUDGET)}, as run's)",
    )
    imp.add_argument("-o", "--output", required=True, help="the .gstudio file to write")

    exp = sub.add_parser("export", help="write a document as a runnable PyTorch script")
    exp.add_argument("file", help="a .gstudio document")
    exp.add_argument("-o", "--output", required=True, help="the .py file to write ('-' for stdout)")
    exp.add_argument("--no-facts", action="store_true", help="leave out the facts-printing footer")

    trust = sub.add_parser("trust", help="allow a document's custom Function code to run")
    trust.add_argument("file", help="a .gstudio document")
    _add_verify(sub)
    _add_gradcheck(sub)
    _add_explain(sub)
    return parser


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text!r}")
    return value


def _budget(text: str) -> int | None:
    if text.strip().lower() == "none":
        return None
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        args = _parser().parse_args(list(argv))
    except UsageError as exc:
        print(f"{PROG}: error: {exc} (see '{PROG} --help')", file=err)
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    try:
        code = _dispatch(args, out, err)
        out.flush()  # a closed pipe shows here, inside the handler, not at exit
        return code
    except BrokenPipeError:
        return _quiet_broken_pipe(out)
    except DocumentError as exc:
        print(f"{PROG}: error: {exc}", file=err)
        return 2
    except ImportProblem as exc:
        print(f"{PROG}: error: {args.snippet}: {exc}", file=err)
        return 2
    except ExportError as exc:
        print(f"{PROG}: error: {args.file}: {exc}", file=err)
        return 2
    except OSError as exc:
        print(f"{PROG}: error: {exc.filename or ''}: {exc.strerror or exc}", file=err)
        return 2
    except MemoryError:
        # outside any step (a step's own is its error): the document as a whole is more
        # than this machine holds; the way out is a smaller document, not a bug report
        print(f"{PROG}: error: {_named(args)}: out of memory: the document is too large", file=err)
        return 2
    except Exception as exc:
        print(f"{PROG}: internal error: {type(exc).__name__}: {exc} (please report this)", file=err)
        return 2


def _named(args: argparse.Namespace) -> str:
    """The file or program the command was given."""
    return str(getattr(args, "file", None) or getattr(args, "snippet", None) or "")


def _dispatch(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.command == "run":
        return _run(args, out, err)
    if args.command == "import":
        return _import(args, out)
    if args.command == "export":
        return _export(args, out)
    if args.command == "verify":
        return _verify(args, out, err)
    if args.command == "gradcheck":
        return _gradcheck(args, out, err)
    if args.command == "explain":
        return _explain(args, out, err)
    return _trust(args, out)


def _quiet_broken_pipe(out: TextIO) -> int:
    """The reader went away (``| head``): stop quietly, as Python's documentation advises —
    point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    import os

    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):
        return 1
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
    return 1


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    doc = load_document(args.file)
    if args.trust:
        doc.set_trusted(True)
    plan = prepare(doc, args.device, args.memory_budget)
    if args.timeout is not None or (doc.trusted and doc.has_code()):
        # the document's own code runs, or a time limit: in a process that can be
        # stopped whatever the code does (exit, loop, crash)

        result = run_plan(plan, timeout=args.timeout)
    else:
        result = plan.run()  # built-in ops only, and the memory budget holds them
    if args.json:
        json.dump(result.to_json(), out, indent=1)
        out.write("\n")
    else:
        out.write(format_table(result))
    for error in result.errors:
        label = printable(result.plan.labels[error.node_id])
        message = one_line(error.message)
        print(f"error in step {error.step + 1} '{label}': {error.exc_type}: {message}", file=err)
        print(f"  {printable(error.title)}. {printable(error.explanation)}", file=err)
        print(f"  Fix: {printable(error.fix)}", file=err)
    for step in result.waiting:  # a graph still being built: said, but no failure
        label = printable(result.plan.labels[step.node_id])
        message = printable(waiting_text(step.missing, step.waits_for))
        print(f"step {step.step + 1} '{label}' did not run: {message}", file=err)
    return 1 if result.errors else 0


def _import(args: argparse.Namespace, out: TextIO) -> int:
    notebook = read_notebook(args.snippet) if is_notebook(args.snippet) else None
    try:
        source = Path(args.snippet).read_text("utf-8")
    except UnicodeDecodeError:
        raise ImportProblem("the file is not UTF-8 text") from None
    if args.isolate and not args.run:
        raise ImportProblem("--isolate goes with --run")
    if args.isolate and (reason := isolation_unavailable()) is not None:
        raise ImportProblem(f"the run cannot be isolated here: {reason}")
    if args.run:
        doc = import_program(args.snippet, keep=max(0, args.keep_iterations), isolate=args.isolate)
    elif notebook is not None:
        try:
            doc = import_snippet(
                notebook.without_markers(), args.snippet, memory_budget=args.memory_budget
            )
        except ImportProblem as exc:
            raise located(exc, notebook) from None
    else:
        doc = import_snippet(source, args.snippet, memory_budget=args.memory_budget)
    doc.set_meta("title", Path(args.snippet).stem)
    save_document(doc, args.output, TrustStore())
    print(f"wrote {args.output}: {len(doc)} nodes", file=out)
    for note in filter(None, doc.meta["description"].splitlines() if args.run else ()):
        print(f"note: {note}", file=out)
    if doc.has_code() and doc.trusted:
        print(
            "note: it contains code (custom Function or hook nodes), trusted: it is the "
            "code you ran",
            file=out,
        )
    elif doc.has_code():
        print(
            f"note: it contains code (custom Function or hook nodes) that did not run here; "
            f"read it, then run 'main.py trust {args.output}' to let it run",
            file=out,
        )
    return 0


def _export(args: argparse.Namespace, out: TextIO) -> int:
    doc = load_document(args.file)
    script = export_script(doc, facts=not args.no_facts)
    if args.output == "-":
        out.write(script)
    else:
        Path(args.output).write_text(script, "utf-8")
    return 0


def _trust(args: argparse.Namespace, out: TextIO) -> int:
    load_document(args.file)  # refuse to trust something that is not a document
    digest = trust_file(args.file, TrustStore())
    print(f"trusted {args.file} ({digest[:19]}...)", file=out)
    return 0


def _add_verify(sub: Any) -> None:
    verify = sub.add_parser(
        "verify", help="run a document on the engine and under PyTorch; compare every step"
    )
    verify.add_argument("file", help="a .gstudio document")
    verify.add_argument("--device", choices=("cpu", "cuda"), help="override the document's device")
    verify.add_argument("--json", action="store_true", help="print the comparison as JSON")
    verify.add_argument(
        "--trust", action="store_true", help="run custom Function code even if untrusted"
    )


def _verify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Exit 0: every step agrees; 1: something differs; 2: PyTorch is not installed."""

    doc = load_document(args.file)
    if args.trust:
        doc.set_trusted(True)
    try:
        report = verify(doc, device=args.device)
    except TorchUnavailable as exc:
        print(f"{PROG}: error: {exc}", file=err)
        return 2
    if args.json:
        json.dump(report.to_json(), out, indent=1)
        out.write("\n")
    else:
        out.write(format_report(report))
    return 0 if report.agrees else 1


def _add_gradcheck(sub: Any) -> None:
    check = sub.add_parser(
        "gradcheck", help="compare one node's analytic and finite-difference Jacobians"
    )
    check.add_argument("file", help="a .gstudio document")
    check.add_argument("--node", required=True, metavar="LABEL", help="the node's label")
    check.add_argument(
        "--trust", action="store_true", help="run custom Function code even if untrusted"
    )


def _gradcheck(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Exit 0: the Jacobians agree; 1: they differ; 2: the node cannot be checked."""

    doc = load_document(args.file)
    if args.trust:
        doc.set_trusted(True)
    try:
        result = gradcheck(doc, args.node)
    except CannotGradcheck as exc:
        print(f"{PROG}: error: {printable(str(exc))}", file=err)
        return 2
    out.write(format_gradcheck(result))
    return 0 if result.passed else 1


def _add_explain(sub: Any) -> None:
    explain = sub.add_parser("explain", help="explain how one tensor's .grad came to be")
    explain.add_argument("file", help="a .gstudio document")
    explain.add_argument("--node", required=True, metavar="LABEL", help="the tensor's label")
    explain.add_argument(
        "--step",
        type=_step,
        metavar="N",
        help="explain it as it stands after step N (1 is the first; default: the end)",
    )
    explain.add_argument(
        "--replay",
        type=int,
        metavar="K",
        help="with --step on a backward step: after its first K grad_fns ran",
    )
    explain.add_argument(
        "--trust", action="store_true", help="run custom Function code even if untrusted"
    )


def _step(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a step number from 1, got {text!r}")
    return value


def _explain(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Exit 0: explained; 2: the label or the step names nothing."""
    doc = load_document(args.file)
    if args.trust:
        doc.set_trusted(True)
    plan = prepare(doc)
    if doc.trusted and doc.has_code():  # the document's code runs contained, as in ``run``
        result = run_plan(plan)
    else:
        result = plan.run()
    try:
        ref = find_ref(result, args.node)
        step = None if args.step is None else args.step - 1
        explanation = explain_gradient(result, ref, step, args.replay)
    except CannotExplain as exc:
        print(f"{PROG}: error: {printable(str(exc))}", file=err)
        return 2
    out.write(printable_lines(explanation.text()))
    return 0


def printable_lines(text: str) -> str:
    """Each line escaped (labels are the document's text), the line breaks kept."""
    return "\n".join(printable(line) for line in text.split("\n"))


COLUMNS = (
    "label",
    "shape",
    "dtype",
    "device",
    "requires_grad",
    "is_leaf",
    "grad_fn",
    "grad",
    "retains_grad",
    "version",
)


def _short(value: Any, width: int = 28) -> str:
    text = json.dumps(value) if not isinstance(value, str) else value
    text = text.replace(" ", "")
    return text if len(text) <= width else text[: width - 3] + "..."


def _row(label: str, facts: TensorFacts | None) -> list[str]:
    if facts is None:
        return [label, "None", *[""] * (len(COLUMNS) - 2)]
    return [
        label,
        shape_text(facts.shape),
        facts.dtype,
        facts.device,
        str(facts.requires_grad),
        str(facts.is_leaf),
        facts.grad_fn_name or "None",
        "None" if facts.grad is None else _short(facts.grad.value),
        str(facts.retains_grad),
        str(facts.version),
    ]


def format_table(result: Evaluation) -> str:
    """The facts as an aligned text table; a label's control characters (ESC, NUL, CR)
    are escaped, so a document cannot drive the terminal or garble the table."""
    rows = [list(COLUMNS)] + [_row(printable(label), facts) for label, _, facts in result.rows()]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"
