"""Names for the tensors a program makes, read from the program while it runs (in the child).

A learner reads a document by its labels, so each node should carry the name the program
gives its tensor, in every loop iteration, not only the value a variable holds when the
program ends.  Two readings of the running program give that:

- **Assignments.**  The tracer (``frames.Frames``) tells ``Bindings`` each line a program
  frame runs; once a statement with targets (``pred = model(X)``, ``a, b = x.chunk(2)``,
  ``h += 1``, ``for x in batches``) is done, the tensors its target names now hold are
  named after them.  A tensor bound in several frames takes the name of the outermost
  (``out = net(x)`` rather than the ``x`` that ``forward`` returned).
- **Expressions.**  Every op a program line calls is named by the source text of the
  expression that called it (``pred - y``), found from the caller's instruction through
  its code object's positions, as the static importer names it from the AST; an op run
  inside a PyTorch module's own ``forward`` is named by the module's path
  (``model.0``), which is all the program wrote of it.

These are the *bases* of labels: the document builder adds the loop iteration a node
belongs to and keeps them unique.
"""

from __future__ import annotations

import ast
from types import CodeType, FrameType
from typing import Any

#: Statements whose targets name what they bind.
_BINDING = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)


def _targets(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, ast.AnnAssign):
        return [stmt.target] if stmt.value is not None else []
    if isinstance(stmt, ast.AugAssign | ast.For | ast.AsyncFor):
        return [stmt.target]
    return []


def _names(target: ast.expr) -> list[tuple[str, list[ast.expr | int]]]:
    """``(label, path)`` for each name a target binds: a path is the variable (or
    ``owner.attr``) and the indices into what it unpacks (``a, (b, c) = ...``)."""
    if isinstance(target, ast.Name):
        return [(target.id, [target])]
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        if target.attr in ("grad", "data", "requires_grad", "T", "mT"):
            return []  # recorded as their own actions, not bindings
        return [(f"{target.value.id}.{target.attr}", [target])]
    if isinstance(target, ast.Tuple | ast.List):
        found: list[tuple[str, list[ast.expr | int]]] = []
        for index, element in enumerate(target.elts):
            if isinstance(element, ast.Starred):
                break  # positions after a starred target are not known statically
            for label, path in _names(element):
                found.append((label, [path[0], index, *path[1:]]))
        return found
    return []


def statement_targets(source: str) -> dict[int, tuple[int, list[ast.expr]]]:
    """For each line of ``source``: the innermost statement holding it (by its first
    line), with that statement's targets when it binds names."""
    owner: dict[int, tuple[int, int]] = {}  # line -> (span, first line)
    targets: dict[int, list[ast.expr]] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.stmt):
            continue
        end = node.end_lineno or node.lineno
        last = end
        if isinstance(node, ast.For | ast.AsyncFor | ast.While | ast.If | ast.With):
            last = node.lineno  # a compound statement owns its header, not its body
            if isinstance(node, ast.For | ast.AsyncFor):
                last = node.iter.end_lineno or node.lineno
        span = last - node.lineno
        for line in range(node.lineno, last + 1):
            held = owner.get(line)
            if held is None or span < held[0]:
                owner[line] = (span, node.lineno)
        found = _targets(node) if isinstance(node, _BINDING) else []
        if found:
            targets[node.lineno] = found
    return {line: (first, targets.get(first, [])) for line, (_, first) in owner.items()}


class Bindings:
    """The names the program's statements bind, by recorder key."""

    def __init__(self, recorder: Any, source: str) -> None:
        self.recorder = recorder
        self.lines = source.splitlines()
        self.statements = statement_targets(source)
        #: per Python frame: the statement it is running (first line) and its targets
        self.pending: dict[int, tuple[int, list[ast.expr]]] = {}
        #: key -> (frame depth, name): the outermost binding wins, the first at a depth
        self.bound: dict[str, tuple[int, str]] = {}
        #: key -> the module path of the outermost module call that returned it
        self.returned: dict[str, str] = {}
        self._positions: dict[CodeType, list[Any]] = {}
        self._texts: dict[tuple[CodeType, int], str | None] = {}

    # -- assignments --------------------------------------------------------------

    def line(self, frame: FrameType, line: int) -> None:
        """``frame`` is about to run ``line``: the statement it ran before is done."""
        key = id(frame)
        found = self.statements.get(line)
        pending = self.pending.get(key)
        if pending is not None and (found is None or found[0] != pending[0] or found[0] == line):
            del self.pending[key]
            self.resolve(frame, pending[1])
        if found is not None and found[1] and found[0] == line:
            self.pending[key] = found

    def finished(self, frame: FrameType) -> None:
        """``frame`` returns: its last statement is done."""
        pending = self.pending.pop(id(frame), None)
        if pending is not None:
            self.resolve(frame, pending[1])

    def resolve(self, frame: FrameType, targets: list[ast.expr]) -> None:
        recorder = self.recorder
        if not recorder.keys:
            return
        values = frame.f_locals
        depth = 0
        back: FrameType | None = frame.f_back
        while back is not None:
            depth += 1
            back = back.f_back
        for target in targets:
            for label, path in _names(target):
                head = path[0]
                if isinstance(head, ast.Name):
                    value = values.get(head.id, frame.f_globals.get(head.id))
                else:
                    assert isinstance(head, ast.Attribute) and isinstance(head.value, ast.Name)
                    owner = values.get(head.value.id, frame.f_globals.get(head.value.id))
                    value = recorder.quiet(getattr, owner, head.attr, None)
                for index in path[1:]:
                    if not isinstance(value, tuple | list) or not isinstance(index, int):
                        value = None
                        break
                    value = value[index] if index < len(value) else None
                self.bind(value, label, depth)

    def bind(self, value: Any, label: str, depth: int) -> None:
        """``value`` (a tensor, or a list or tuple of them: ``outs[0]`` ...) is named."""
        recorder = self.recorder
        if isinstance(value, tuple | list):
            for index, item in enumerate(value[:16]):
                self.bind(item, f"{label}[{index}]", depth)
            return
        key = recorder.keys.get(id(value))
        if key is None:
            return
        held = self.bound.get(key)
        if held is None or depth < held[0]:
            self.bound[key] = (depth, label)

    def module_result(self, result: Any, path: str) -> None:
        """A module call returned ``result``: named by its path unless a statement names
        it (an outer module's call returns after an inner one's, and wins)."""
        for item in result if isinstance(result, tuple | list) else (result,):
            key = self.recorder.keys.get(id(item))
            if key is not None:
                self.returned[key] = path

    # -- expressions --------------------------------------------------------------

    def text(self, frame: FrameType) -> str | None:
        """The source text of the expression ``frame`` is evaluating (its instruction's
        position), or None where its code has no positions."""
        code = frame.f_code
        where = (code, frame.f_lasti)
        if where in self._texts:
            return self._texts[where]
        positions = self._positions.get(code)
        if positions is None:
            # Python 3.10 has no column table: there, a label comes from the line alone
            read = getattr(code, "co_positions", None)
            positions = self._positions[code] = list(read()) if read is not None else []
        index = frame.f_lasti // 2
        text = None
        if 0 <= index < len(positions):
            text = self._segment(*positions[index])
        self._texts[where] = text
        return text

    def _segment(self, line: Any, end: Any, col: Any, end_col: Any) -> str | None:
        if None in (line, end, col, end_col) or not 0 < line <= end <= len(self.lines):
            return None
        rows = [r.encode("utf-8") for r in self.lines[line - 1 : end]]
        if len(rows) == 1:
            part = rows[0][col:end_col]
        else:
            part = b"\n".join([rows[0][col:], *rows[1:-1], rows[-1][:end_col]])
        text = " ".join(part.decode("utf-8", "replace").split())
        return text or None
