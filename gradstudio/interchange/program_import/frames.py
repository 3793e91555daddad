"""Module calls and loop iterations as frames (runs in the child, with the recorder).

Every event the recorder writes carries the innermost frame it happened in; a frame is
declared (one ``frame`` event) just before its first event, so frames that record
nothing never reach the document.  Module frames come from ``nn.Module.__call__``;
loop frames from line events of the program's own ``for``/``while`` headers, found by
an AST pass: each time a header line runs, the loop's next iteration begins.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from engine.nn.modules.module import Module

#: What a notebook's script calls at the start of each code cell (``notebook.py``).
CELL_MARKER = "__gradstudio_cell__"


@dataclass(eq=False)  # each frame is itself: ``in`` and ``index`` compare identities
class Frame:
    id: str
    kind: str  # "module", "loop" or "cell" (a notebook's code cell)
    title: str
    parent: str | None
    meta: dict[str, str] = field(default_factory=dict)
    declared: bool = False
    #: for a loop iteration: which run of the loop it belongs to, and its number
    instance: str = ""
    number: int = 0
    #: the iteration before this one, past ``keep``: it folds once this one records
    after: str | None = None
    #: a module whose ``forward`` is PyTorch's, not the program's: the ops it runs are
    #: named by the module's path, all the program wrote of them
    named: bool = False


@dataclass(frozen=True)
class Loop:
    """A ``for``/``while`` statement of the program: its header line and last line."""

    line: int
    end: int
    header: str


def program_loops(source: str) -> dict[int, Loop]:
    """The program's loops by header line (those in functions and classes too)."""
    loops: dict[int, Loop] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.For | ast.AsyncFor):
            header = f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}"
        elif isinstance(node, ast.While):
            header = f"while {ast.unparse(node.test)}"
        else:
            continue
        if len(header) > 80:
            header = header[:77] + "..."
        loops[node.lineno] = Loop(node.lineno, node.end_lineno or node.lineno, header)
    return loops


def untraced() -> Any:
    """Stop the line tracer (``frames.Frames``), returning it to restart with
    ``sys.settrace``; None where none runs.

    Nothing is recorded while the recorder's depth is above 0 (the engine's own work: an
    op, a backward, an optimizer's step), so no line event is needed there; yet a global
    trace function is called for every Python call the engine makes, which was most of
    the time an import took (1.5 of 2.2 s CPU for the 2000-step polynomial tutorial).
    Program frames already traced keep their ``f_trace`` and go on being traced when it
    restarts; the program's code that the engine calls meanwhile (a hook, an LBFGS
    closure) records nothing, so it needs no line events."""
    tracer = sys.gettrace()
    if tracer is not None:
        sys.settrace(None)
    return tracer


class Frames:
    """The stack of open frames; ``current()`` declares what an event needs and names it."""

    def __init__(self, program: str, events: list[dict[str, Any]], keep: int = 3) -> None:
        self.program = program
        #: iterations a loop keeps as nodes before the folded ones (the last is kept too)
        self.keep = keep
        #: how many open loop iterations are past ``keep``: values are snapshotted then
        self.folding = 0
        self.instances = 0
        self.events = events
        self.stack: list[Frame] = []
        self.count = 0
        self.loops: dict[int, Loop] = {}
        #: per Python frame running a loop: (loop, its iteration frame or None, number)
        self.running: dict[int, list[list[Any]]] = {}
        self.scope: dict[str, Any] = {}
        self.paths: dict[int, str] = {}
        #: loop iterations past ``keep`` whose loop went on to another: they fold
        self.folded: set[str] = set()
        self._chain: tuple[str, ...] = ()
        self._cell: Frame | None = None
        #: the names the program's statements bind (``naming.Bindings``), fed by the tracer
        self.bindings: Any = None

    def folding_chain(self) -> tuple[str, ...]:
        """The open loop iterations past ``keep``: an event in any of them may fold."""
        return self._chain

    def _rechain(self) -> None:
        self._chain = tuple(f.id for f in self.stack if f.kind == "loop" and f.number > self.keep)

    # -- frames ----------------------------------------------------------------------

    def push(
        self, kind: str, title: str, meta: dict[str, str], instance: str = "", number: int = 0
    ) -> Frame:
        self.count += 1
        parent = self.stack[-1].id if self.stack else None
        frame = Frame(f"f{self.count}", kind, title, parent, meta, False, instance, number)
        self.stack.append(frame)
        if kind == "loop" and number > self.keep:
            self.folding += 1
            self._rechain()
        return frame

    def pop(self, frame: Frame) -> None:
        """Close ``frame`` and whatever was left open inside it."""
        if frame in self.stack:
            index = self.stack.index(frame)
            self.folding -= sum(
                1 for f in self.stack[index:] if f.kind == "loop" and f.number > self.keep
            )
            del self.stack[index:]
            self._rechain()

    def current(self) -> str | None:
        """The innermost frame's id, declaring it (and its parents) if not yet done."""
        for frame in self.stack:
            if not frame.declared:
                frame.declared = True
                if frame.after is not None:
                    self.folded.add(frame.after)
                    recorder = getattr(self.events, "recorder", None)
                    if recorder is not None:
                        recorder.prune(self.folded)
                        chain = tuple(f.id for f in self.stack[: self.stack.index(frame)])
                        recorder.snapshot_grads(frame.id, frame.instance, chain)
                self.events.append(
                    {
                        "kind": "frame",
                        "id": frame.id,
                        "frame_kind": frame.kind,
                        "title": frame.title,
                        "parent": frame.parent,
                        "meta": frame.meta,
                        "instance": frame.instance,
                    }
                )
        return self.stack[-1].id if self.stack else None

    def enter_cell(self, number: int) -> None:
        """A notebook's code cell begins (its script's ``CELL_MARKER(number)``): the
        previous cell's frame ends, with whatever it left open."""
        if self._cell is not None:
            self.pop(self._cell)
        self._cell = self.push("cell", f"cell {number}", {"cell": str(int(number))})

    # -- modules ---------------------------------------------------------------------

    def module_path(self, module: Any) -> str:
        """``model.fc1``: the program's variable for the top module, then ``named_modules``."""
        found = self.paths.get(id(module))
        if found is not None:
            return found

        for name, value in list(self.scope.items()):
            if isinstance(value, Module) and not name.startswith("__"):
                for sub, inner in value.named_modules():
                    self.paths.setdefault(id(inner), f"{name}.{sub}" if sub else name)
        return self.paths.get(id(module), type(module).__name__.lower())

    def install_modules(self, recorder: Any) -> None:

        call = Module.__call__
        frames = self

        def recorded_call(self: Any, *args: Any, **kwargs: Any) -> Any:
            if recorder.depth:
                return call(self, *args, **kwargs)
            tracer = untraced()  # the bookkeeping: the program's forward is traced
            path = frames.module_path(self)
            name = type(self).__name__
            frame = frames.push("module", f"{path} ({name})", {"class": name, "path": path})
            forward = getattr(type(self).forward, "__code__", None)
            frame.named = forward is None or forward.co_filename != frames.program
            if tracer is not None:
                sys.settrace(tracer)
            try:
                result = call(self, *args, **kwargs)
            finally:
                tracer = untraced()
                frames.pop(frame)
            if frames.bindings is not None:
                frames.bindings.module_result(result, path)
            if tracer is not None:
                sys.settrace(tracer)
            return result

        Module.__call__ = recorded_call  # type: ignore[method-assign]

    # -- loops -----------------------------------------------------------------------

    def install_loops(self, source: str) -> None:
        """Trace the program's own frames: each line tells the loops where they are and
        the bindings which statement just finished (so every run has the tracer)."""
        self.loops = program_loops(source)
        sys.settrace(self.global_trace)

    def global_trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != self.program:
            return None
        return self.local_trace

    def local_trace(self, frame: FrameType, event: str, arg: Any) -> Any:
        key = id(frame)
        if event == "return":
            if self.bindings is not None:
                self.bindings.finished(frame)
            for entry in self.running.pop(key, []):
                if entry[1] is not None:
                    self.pop(entry[1])
            return self.local_trace
        if event != "line":
            return self.local_trace
        line = frame.f_lineno
        if self.bindings is not None:
            self.bindings.line(frame, line)
        open_loops = self.running.get(key)
        if open_loops:
            # loops this line is outside of have ended
            while open_loops and not (open_loops[-1][0].line <= line <= open_loops[-1][0].end):
                iteration = open_loops.pop()[1]
                if iteration is not None:
                    self.pop(iteration)
        loop = self.loops.get(line)
        if loop is None:
            return self.local_trace
        open_loops = self.running.setdefault(key, [])
        if open_loops and open_loops[-1][0] is loop:
            entry = open_loops[-1]
            previous = entry[1]
            if entry[1] is not None:
                self.pop(entry[1])
            entry[2] += 1
        else:
            previous = None
            self.instances += 1
            entry = [loop, None, 1, f"L{self.instances}"]
            open_loops.append(entry)
        number = entry[2]
        entry[1] = self.push(
            "loop",
            f"iteration {number} · {loop.header}",
            {"line": str(loop.line), "iteration": str(number)},
            entry[3],
            number,
        )
        if previous is not None and previous.declared and previous.number > self.keep:
            entry[1].after = previous.id
        return self.local_trace

    def stop(self) -> None:
        sys.settrace(None)
