"""Run a program in a child process under time and memory limits, then build its document."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gradstudio.catalogue import NodeType, PortType
from gradstudio.document.layout import auto_layout
from gradstudio.document.model import Document
from gradstudio.interchange.program_import.building import ACTIONS, FrameGroups, Names, left_out
from gradstudio.interchange.program_import.notebook import (
    NotebookScript,
    is_notebook,
    located,
    read_notebook,
)
from gradstudio.interchange.program_import.report import malformed, read_report
from gradstudio.interchange.quoting import last_line
from gradstudio.interchange.snippet_building import GraphBuilder
from gradstudio.interchange.snippet_values import (
    Const,
    ImportProblem,
    ListRef,
    TensorList,
    TensorRef,
)
from gradstudio.interchange.trust import admit
from gradstudio.params import DTYPES
from gradstudio.sandbox.contained import Contained
from gradstudio.sandbox.limits import Limits

#: Seconds of CPU the program may use, and bytes of address space.
CPU_SECONDS = 60
MEMORY_BYTES = 4 * 1024**3
WALL_SECONDS = 120
#: A loop keeps this many first iterations (and its last) as nodes; the rest fold into one.
KEEP_ITERATIONS = 3
#: The largest file the program may write (its report included).
FILE_BYTES = 1024**3
#: The largest report read back: past it the program recorded more than a document holds.
MAX_REPORT_BYTES = 256 * 1024**2


class Recording:
    """A program running in its child process; ``done`` polls, ``report`` reads the result.

    The studio polls it from a timer so the window never waits on the program, and
    ``stop`` ends the child and everything it started at once (the Cancel of the import
    dialog).  The program runs contained (``gradstudio.sandbox``): its own process tree
    under a supervisor, its output kept as a bounded tail, and, with ``isolate``, no
    network and writes only to the run's temporary folder.
    """

    def __init__(
        self, program: str | Path, keep: int = KEEP_ITERATIONS, isolate: bool = False
    ) -> None:
        self.program = str(Path(program).resolve())
        #: a notebook runs as the script of its code cells (``ImportProblem`` if unreadable)
        self.notebook = read_notebook(self.program) if is_notebook(self.program) else None
        self._tmp = tempfile.TemporaryDirectory()
        self.output = os.path.join(self._tmp.name, "events.json")
        script = self.program
        if self.notebook is not None:
            script = os.path.join(self._tmp.name, Path(self.program).stem + ".notebook.py")
            Path(script).write_text(self.notebook.source, "utf-8")
        self.started = time.monotonic()
        self.stopped = False
        self.timed_out = False
        self.run = Contained(
            [
                sys.executable,
                "-m",
                "gradstudio.interchange.program_import.recorder",
                script,
                self.output,
                str(max(0, int(keep))),
            ],
            limits=Limits(
                cpu_seconds=CPU_SECONDS, memory_bytes=MEMORY_BYTES, max_file_bytes=FILE_BYTES
            ),
            cwd=str(Path(self.program).parent),
            isolate=isolate,
            writable=self._tmp.name,
        )

    def done(self) -> bool:
        """Whether the child has ended (one past its wall-clock limit is ended here)."""
        if self.run.poll():
            return True
        if time.monotonic() - self.started > WALL_SECONDS:
            self.timed_out = True
            self.stop()
            return True
        return False

    def wait(self) -> dict[str, Any]:
        """Block until the child ends; its report.  Interrupted (Ctrl+C, a notebook's
        interrupt), the child and all it started are ended before the interrupt goes on."""
        try:
            ended = self.run.wait(max(0.0, WALL_SECONDS - (time.monotonic() - self.started)))
        except BaseException:
            self.stop()
            self.close()
            raise
        if not ended:
            self.timed_out = True
            self.stop()
        return self.report()

    def stop(self) -> None:
        """End the child and all it started, now (the user cancelled, or time ran out)."""
        self.stopped = True
        self.run.stop()

    def report(self) -> dict[str, Any]:
        """The recorder's report, or ``ImportProblem`` saying in one line what went wrong."""
        try:
            return self._report()
        finally:
            self.close()

    def _report(self) -> dict[str, Any]:
        if self.timed_out:
            raise ImportProblem(f"the program ran longer than {WALL_SECONDS} s; stopped")
        if self.stopped:
            raise ImportProblem("the program was stopped before it finished")
        ended = self.run.ended
        last = last_line(self.run.stderr_text())
        if ended is not None and ended.reason:
            raise ImportProblem(f"the program was stopped: {ended.reason}")
        if not os.path.exists(self.output):
            if ended is not None and ended.code is not None and ended.code < 0:
                raise ImportProblem(
                    f"the program was stopped ({ended.describe()}): it used more than "
                    f"{CPU_SECONDS} s of CPU or {MEMORY_BYTES // 1024**3} GiB"
                )
            if "MemoryError" in last:
                raise ImportProblem(
                    f"the program used more than {MEMORY_BYTES // 1024**3} GiB of memory"
                )
            raise ImportProblem(f"the program could not be recorded: {last or 'no output'}")
        return read_report(self.output, MAX_REPORT_BYTES)

    def close(self) -> None:
        self.run.close()
        self._tmp.cleanup()


def record(
    program: str | Path, keep: int = KEEP_ITERATIONS, isolate: bool = False
) -> dict[str, Any]:
    """The recorder's report for ``program``: events and labels, or an error with its line."""
    return Recording(program, keep, isolate).wait()


def _value(value: Any, refs: dict[str, TensorRef]) -> Any:
    if isinstance(value, dict) and "tensor" in value:
        return refs[value["tensor"]]
    if isinstance(value, list):
        items = [_value(v, refs) for v in value]
        if items and all(isinstance(v, TensorRef) for v in items):
            return TensorList(tuple(items))
        return Const([v.value if isinstance(v, Const) else v for v in items])
    return Const(value)


def _take_apart(
    importer: GraphBuilder,
    result: ListRef,
    keys: list[str | None],
    names: Names,
    line: int | None,
    refs: dict[str, TensorRef],
) -> None:
    """One list-item node per part the program got back (``a, b = x.chunk(2)``): the
    parts stay outputs of the one ``SplitBackward0`` node, as in PyTorch."""
    for index, key in enumerate(keys):
        if key is None:
            continue
        if names.fixed(key) or key in names.bases:
            label = names.of(key, "")
        else:
            label = names.unique(f"{importer.doc.node(result.node_id).label}[{index}]")
        item = importer.add("gradstudio.select", {"index": index}, label, line)
        importer.connect(result, item, "list", line)
        refs[key] = TensorRef(item)


def _number_input(
    importer: GraphBuilder, node_type: NodeType, args: list[Any], line: int | None
) -> list[Any]:
    """A Python number where the call takes a tensor first (``torch.remainder(-3, t)``):
    the engine, as PyTorch, wraps it into a 0-d tensor, which a literal node holds (its
    dtype inferred as the wrapped number's: int64, the default float, bool)."""
    first = (node_type.call_order or tuple(p.name for p in node_type.inputs) or ("",))[0]
    port = next((p for p in node_type.inputs if p.name == first), None)
    number = args[0].value if args and isinstance(args[0], Const) else None
    if port is None or port.scalar_ok or port.variadic or not isinstance(number, int | float):
        return args
    node = importer.add("torch.tensor", {"data": number}, str(number), line)
    return [TensorRef(node), *args[1:]]


def build(report: dict[str, Any]) -> Document:
    """A document from the recorder's events, labelled with the program's variable names."""
    if "error" in report:
        raise ImportProblem(report["error"], report.get("line"))
    importer = GraphBuilder()
    refs: dict[str, TensorRef] = {}
    frames = FrameGroups(importer)
    names = Names(importer, frames, report.get("labels", {}), report.get("names", {}))
    #: the ``zero_grad()`` call whose node the grads it clears join: (its number, node)
    clearing: tuple[Any, str] | None = None
    for event in report["events"]:
        line = event.get("line")
        frames.current = event.get("frame")
        if event["kind"] == "frame":
            frames.declare(event)
        elif event["kind"] == "literal":
            params = {"data": event["data"], "requires_grad": event["requires_grad"]}
            if event.get("dtype") in DTYPES:
                params["dtype"] = event["dtype"]
            fallback = str(event.get("label") or event["key"])
            if event.get("before"):  # made before its first use: named as it was then
                label = names.before(event["key"], fallback)
            else:
                label = names.of(event["key"], fallback)
            node = importer.add("torch.tensor", params, label, line)
            refs[event["key"]] = TensorRef(node)
        elif event["kind"] == "refused":
            raise ImportProblem(event["message"], line)
        elif event["kind"] in ACTIONS:
            ACTIONS[event["kind"]](importer, event, refs, names)
        elif event["kind"] == "call":
            namespace, _, name = event["function"].rpartition(".")
            if namespace in ("Tensor", "torch.Tensor"):
                node_type = importer.doc.catalogue.by_method(
                    name
                ) or importer.doc.catalogue.by_attribute(name)
            else:
                node_type = importer.doc.catalogue.by_function(event["function"])
            importer.no_grad = event.get("no_grad", False)
            if node_type is None:
                raise ImportProblem(f"{event['function']}() is not in GradStudio's catalogue", line)
            made = [k for k in event["out"] if k is not None]
            listed = bool(node_type.outputs) and node_type.outputs[0].type is PortType.TENSORS
            if len(made) > max(1, len(node_type.outputs)) and not listed:
                raise ImportProblem(
                    f"{event['function'].rsplit('.', 1)[1]}() returns {len(made)} tensors, "
                    "which GradStudio cannot take apart yet",
                    line,
                )
            args = [_value(a, refs) for a in event["args"]]
            kwargs: dict[str, Any] = {k: _value(v, refs) for k, v in event["kwargs"].items()}
            if event["function"] == "torch.arange" and len(args) == 1 and "end" not in kwargs:
                args = [Const(0), *args]  # torch.arange(end) starts at 0
            args = _number_input(importer, node_type, args, line)
            named = [] if listed else [k for k in event["out"] if k is not None]
            first = next((k for k in named if names.fixed(k)), None)
            first = first or next((k for k in named if k in names.bases), None)
            label = names.of(first, event["function"].rsplit(".", 1)[1])
            result = importer.op_node(node_type.id, args, kwargs, label, line)
            importer.no_grad = False
            if isinstance(result, ListRef):
                _take_apart(importer, result, event["out"], names, line, refs)
                continue
            returned = (
                node_type.returned(importer.doc.node(result.node_id).params)
                if isinstance(result, TensorRef)
                else []
            )
            for index, key in enumerate(event["out"]):
                if key is None:
                    continue
                if isinstance(result, TensorRef):
                    port = returned[index] if index < len(returned) else result.port
                    refs[key] = TensorRef(result.node_id, port)
        elif event["kind"] == "set_value":
            owner = names.base(event["target"]) or "step"
            value = importer.add(
                "torch.tensor", {"data": event["data"]}, names.here(f"{owner} (values)"), line
            )
            importer.no_grad = True
            node = importer.add("Tensor.copy_", {}, names.of(event["out"], owner), line)
            importer.no_grad = False
            importer.connect(refs[event["target"]], node, "input", line)
            importer.connect(TensorRef(value), node, "src", line)
            refs[event["out"]] = TensorRef(node)
        elif event["kind"] == "set_grad":  # a folded loop's card: the .grad it left
            owner = names.base(event["target"]) or "x"
            params = {"data": event["data"], "requires_grad": False}
            if event.get("dtype") in DTYPES:
                params["dtype"] = event["dtype"]
            value = importer.add("torch.tensor", params, names.here(f"{owner}.grad (values)"), line)
            node = importer.add("gradstudio.set_grad", {}, names.here(f"set {owner}.grad"), line)
            importer.connect(refs[event["target"]], node, "input", line)
            importer.connect(TensorRef(value), node, "grad", line)
        elif event["kind"] == "copy_out":
            importer.no_grad = True
            node = importer.add("Tensor.copy_", {}, names.of(event["out"], "out="), line)
            importer.no_grad = False
            importer.connect(refs[event["target"]], node, "input", line)
            importer.connect(refs[event["src"]], node, "src", line)
            refs[event["out"]] = TensorRef(node)
        elif event["kind"] == "clear_grad":
            call = event.get("call")
            if call is not None and clearing is not None and clearing[0] == call:
                node = clearing[1]  # another grad the same zero_grad() call clears
            else:
                label = str(event.get("label") or "") if call is not None else ""
                owner = names.base(event["target"]) or "x"
                label = names.here(label or f"{owner}.grad = None")
                node = importer.add("gradstudio.zero_grad", {"set_to_none": True}, label, line)
            clearing = None if call is None else (call, node)
            importer.connect(refs[event["target"]], node, "tensors", line)
        elif event["kind"] == "backward":
            gradient = event["gradient"]
            kwargs = {"create_graph": Const(event["create_graph"])}
            if event["retain_graph"] is not None:
                kwargs["retain_graph"] = Const(event["retain_graph"])
            if gradient is not None:
                kwargs["gradient"] = _value(gradient, refs)
            # named as the snippet import and the examples name it: ``y.backward()``
            target = event["target"]
            if names.fixed(target):
                label = names.unique(f"{names.of(target, '')}.backward()")
            else:
                base = names.bases.get(target)
                label = names.here(f"{base}.backward()" if base else "backward")
            importer.backward(refs[event["target"]], [], kwargs, label, line)
    doc = importer.doc
    doc.set_meta("description", "\n".join(left_out(report["events"])))
    doc.add_groups(frames.groups())
    for node_id, (x, y) in auto_layout(doc).items():
        doc.move_node(node_id, x, y)
    return doc


def import_program(
    program: str | Path, consented: bool = True, keep: int = KEEP_ITERATIONS, isolate: bool = False
) -> Document:
    """Run ``program`` (the user asked to) and record it as a document; each loop keeps
    its first ``keep`` iterations and its last as nodes, the others folded into one.
    ``isolate``: no network, writes only to the run's folder (``gradstudio.sandbox``)."""
    return document_of(program, record(program, keep, isolate), consented)


def document_of(program: str | Path, report: dict[str, Any], consented: bool = True) -> Document:
    """The document of a finished recording.

    The document holds no code of its own beyond custom Function and hook nodes.  Their
    code is the program's, which the user chose to run, so the document is admitted as
    trusted (``consented``) when every piece of it ran during the recording and is the
    program's own text (``ran_in``); code the report holds but the program never ran (a
    forged report can hold anything) leaves the document untrusted.
    """
    notebook = read_notebook(program) if is_notebook(program) else None
    try:
        doc = build(report)
    except ImportProblem as exc:
        raise exc if notebook is None else located(exc, notebook) from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as exc:
        raise malformed(report, exc) from None
    if not doc.graph.nodes:
        raise ImportProblem(
            "the program ran without a tensor operation to record (it only built or printed "
            "modules or plain values): the document would be empty"
        )
    doc.set_meta("title", Path(program).stem)
    if notebook is not None:
        _title_cells(doc, notebook)
    return admit(doc, consented and ran_in(doc, report, program))


def _title_cells(doc: Document, notebook: NotebookScript) -> None:
    """Each cell's frame titled as the notebook's reader knows it: its first comment."""
    titles = notebook.titles()
    for group in list(doc.groups.values()):
        if group.kind == "cell" and group.meta.get("cell") in titles:
            doc.update_group(group.id, title=titles[group.meta["cell"]])


def program_text(program: str | Path) -> str:
    """The program's code as the user has it: a notebook's code cells, or the file."""
    try:
        text = Path(program).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    if str(program).endswith(".ipynb"):
        try:
            cells = json.loads(text).get("cells", [])
            return "\n".join(
                "".join(c["source"]) if isinstance(c["source"], list) else str(c["source"])
                for c in cells
                if isinstance(c, dict) and c.get("cell_type") == "code"
            )
        except (ValueError, AttributeError, KeyError, TypeError):
            return ""
    return text


def executed_sources(report: dict[str, Any]) -> set[str]:
    """The code the recording says ran: each applied Function's class, each hook that fired."""
    return {
        e["source"]
        for e in report.get("events", ())
        if isinstance(e.get("source"), str)
        and (e.get("kind") == "function" or (e.get("kind") == "hook" and e.get("ran")))
    }


def ran_in(doc: Document, report: dict[str, Any], program: str | Path) -> bool:
    """Whether every piece of code in ``doc`` ran during the recording and is written in
    the program itself (whitespace aside; a lambda hook from its ``lambda`` on)."""
    sources = doc.code_sources()
    if not sources:
        return True
    if not sources <= executed_sources(report):
        return False
    text = " ".join(program_text(program).split())
    for source in sources:
        body = " ".join(source.split())
        if body.startswith(("hook", "hook_")) and " = lambda" in body:
            body = body[body.index("lambda") :]
        if body not in text:
            return False
    return True
