"""Run a program in a child process under time and memory limits, then build its document."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gradstudio.catalogue import PortType
from gradstudio.document.layout import auto_layout
from gradstudio.document.model import Document
from gradstudio.interchange.program_import.building import ACTIONS, FrameGroups
from gradstudio.interchange.program_import.notebook import (
    Cell,
    is_notebook,
    read_cells,
    where,
    write_program,
)
from gradstudio.interchange.pytorch_import import (
    Const,
    ImportProblem,
    ListRef,
    TensorList,
    TensorRef,
    _Importer,
)
from gradstudio.interchange.trust import admit
from gradstudio.params import DTYPES

#: Seconds of CPU the program may use, and bytes of address space.
CPU_SECONDS = 60
MEMORY_BYTES = 4 * 1024**3
WALL_SECONDS = 120
#: A loop keeps this many first iterations (and its last) as nodes; the rest fold into one.
KEEP_ITERATIONS = 3


def _limits() -> None:  # pragma: no cover - runs in the child before exec
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


class Recording:
    """A program running in its child process; ``done`` polls, ``report`` reads the result.

    The studio polls it from a timer so the window never waits on the program, and
    ``stop`` ends the child at once (the Cancel of the import dialog).
    """

    def __init__(self, program: str | Path, keep: int = KEEP_ITERATIONS) -> None:
        self.program = str(Path(program).resolve())
        root = str(Path(__file__).resolve().parents[3])
        self._tmp = tempfile.TemporaryDirectory()
        self.output = os.path.join(self._tmp.name, "events.json")
        #: a notebook runs as the program its code cells make, each cell a frame
        self.cells: list[Cell] = []
        script, layout = self.program, []
        if is_notebook(self.program):
            try:
                script, cells_file = write_program(self.program, self._tmp.name)
            except ImportProblem:
                self._tmp.cleanup()
                raise
            self.cells, layout = read_cells(cells_file), [cells_file]
        self._stderr = open(os.path.join(self._tmp.name, "stderr.txt"), "w+b")  # noqa: SIM115
        self.started = time.monotonic()
        self.stopped = False
        self.timed_out = False
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gradstudio.interchange.program_import.recorder",
                script,
                self.output,
                str(max(0, int(keep))),
                *layout,
            ],
            cwd=str(Path(self.program).parent),
            env={**os.environ, "PYTHONPATH": root},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
            preexec_fn=_limits if os.name == "posix" else None,
        )

    def done(self) -> bool:
        """Whether the child has ended (one past its wall-clock limit is ended here)."""
        if self.proc.poll() is not None:
            return True
        if time.monotonic() - self.started > WALL_SECONDS:
            self.timed_out = True
            self.stop()
            return True
        return False

    def wait(self) -> dict[str, Any]:
        """Block until the child ends; its report."""
        try:
            self.proc.wait(timeout=max(0.0, WALL_SECONDS - (time.monotonic() - self.started)))
        except subprocess.TimeoutExpired:
            self.timed_out = True
            self.stop()
        return self.report()

    def stop(self) -> None:
        """End the child now (the user cancelled, or it ran out of time)."""
        self.stopped = True
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

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
        if not os.path.exists(self.output):
            if self.proc.returncode < 0:
                raise ImportProblem(
                    f"the program was stopped (signal {-self.proc.returncode}): "
                    f"it used more than {CPU_SECONDS} s of CPU or {MEMORY_BYTES // 1024**3} GiB"
                )
            self._stderr.seek(0)
            text = self._stderr.read().decode("utf-8", "replace")
            last = (text.strip().splitlines() or ["no output"])[-1]
            if "MemoryError" in last:
                raise ImportProblem(
                    f"the program used more than {MEMORY_BYTES // 1024**3} GiB of memory"
                )
            raise ImportProblem(f"the program could not be recorded: {last}")
        try:
            with open(self.output, encoding="utf-8") as f:
                report: dict[str, Any] = json.load(f)
        except (ValueError, MemoryError) as exc:
            raise ImportProblem(f"the recording could not be read: {exc}") from None
        if self.cells and "error" in report:  # told as the notebook's cell and line
            place = where(self.cells, report.get("line"))
            if place:
                report = {"error": f"{place}: {report['error']}", "line": None}
        return report

    def close(self) -> None:
        if self.proc.poll() is None:
            self.stop()
        self._stderr.close()
        self._tmp.cleanup()


def record(program: str | Path, keep: int = KEEP_ITERATIONS) -> dict[str, Any]:
    """The recorder's report for ``program``: events and labels, or an error with its line."""
    return Recording(program, keep).wait()


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
    importer: _Importer,
    result: ListRef,
    keys: list[str | None],
    labels: dict[str, str],
    line: int | None,
    refs: dict[str, TensorRef],
) -> None:
    """One list-item node per part the program got back (``a, b = x.chunk(2)``): the
    parts stay outputs of the one ``SplitBackward0`` node, as in PyTorch."""
    for index, key in enumerate(keys):
        if key is None:
            continue
        label = labels.get(key, f"{importer.doc.node(result.node_id).label}[{index}]")
        item = importer.add("gradstudio.select", {"index": index}, label, line)
        importer.connect(result, item, "list", line)
        refs[key] = TensorRef(item)


def build(report: dict[str, Any]) -> Document:
    """A document from the recorder's events, labelled with the program's variable names."""
    if "error" in report:
        raise ImportProblem(report["error"], report.get("line"))
    importer = _Importer("")
    refs: dict[str, TensorRef] = {}
    labels: dict[str, str] = report.get("labels", {})
    frames = FrameGroups(importer)
    for event in report["events"]:
        line = event.get("line")
        frames.current = event.get("frame")
        if event["kind"] == "frame":
            frames.declare(event)
        elif event["kind"] == "literal":
            params = {"data": event["data"], "requires_grad": event["requires_grad"]}
            if event.get("dtype") in DTYPES:
                params["dtype"] = event["dtype"]
            label = labels.get(event["key"]) or event.get("label") or event["key"]
            node = importer.add("torch.tensor", params, label, line)
            refs[event["key"]] = TensorRef(node)
        elif event["kind"] == "refused":
            raise ImportProblem(event["message"], line)
        elif event["kind"] in ACTIONS:
            ACTIONS[event["kind"]](importer, event, refs, labels)
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
            kwargs = {k: _value(v, refs) for k, v in event["kwargs"].items()}
            if event["function"] == "torch.arange" and len(args) == 1 and "end" not in kwargs:
                args = [Const(0), *args]  # torch.arange(end) starts at 0
            label = next(
                (labels[k] for k in event["out"] if k in labels and not listed),
                event["function"].rsplit(".", 1)[1],
            )
            result = importer.op_node(node_type.id, args, kwargs, label, line)
            importer.no_grad = False
            if isinstance(result, ListRef):
                _take_apart(importer, result, event["out"], labels, line, refs)
                continue
            for index, key in enumerate(event["out"]):
                if key is None:
                    continue
                if isinstance(result, TensorRef):
                    port = (
                        node_type.outputs[index].name
                        if index < len(node_type.outputs)
                        else result.port
                    )
                    refs[key] = TensorRef(result.node_id, port)
        elif event["kind"] == "set_value":
            value = importer.add("torch.tensor", {"data": event["data"]}, "step", line)
            importer.no_grad = True
            node = importer.add("Tensor.copy_", {}, labels.get(event["out"], "step"), line)
            importer.no_grad = False
            importer.connect(refs[event["target"]], node, "input", line)
            importer.connect(TensorRef(value), node, "src", line)
            refs[event["out"]] = TensorRef(node)
        elif event["kind"] == "copy_out":
            importer.no_grad = True
            node = importer.add("Tensor.copy_", {}, labels.get(event["out"], "out="), line)
            importer.no_grad = False
            importer.connect(refs[event["target"]], node, "input", line)
            importer.connect(refs[event["src"]], node, "src", line)
            refs[event["out"]] = TensorRef(node)
        elif event["kind"] == "clear_grad":
            node = importer.add("gradstudio.zero_grad", {"set_to_none": True}, "grad = None", line)
            importer.connect(refs[event["target"]], node, "tensors", line)
        elif event["kind"] == "backward":
            gradient = event["gradient"]
            kwargs: dict[str, Any] = {"create_graph": Const(event["create_graph"])}
            if event["retain_graph"] is not None:
                kwargs["retain_graph"] = Const(event["retain_graph"])
            if gradient is not None:
                kwargs["gradient"] = _value(gradient, refs)
            importer.backward(refs[event["target"]], [], kwargs, "backward", line)
    doc = importer.doc
    doc.add_groups(frames.groups())
    for node_id, (x, y) in auto_layout(doc).items():
        doc.move_node(node_id, x, y)
    return doc


def import_program(
    program: str | Path, consented: bool = True, keep: int = KEEP_ITERATIONS
) -> Document:
    """Run ``program`` (the user asked to) and record it as a document; each loop keeps
    its first ``keep`` iterations and its last as nodes, the others folded into one."""
    return document_of(program, record(program, keep), consented)


def document_of(program: str | Path, report: dict[str, Any], consented: bool = True) -> Document:
    """The document of a finished recording.

    The document holds no code of its own beyond custom Function nodes; it is admitted
    as trusted because the user consented to running the program it came from.
    """
    doc = build(report)
    doc.set_meta("title", Path(program).stem)
    return admit(doc, consented)
