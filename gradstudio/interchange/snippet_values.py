"""What a snippet's names stand for while it is read, and the error that refuses it.

The static importer evaluates a snippet's expressions to these values: a reference to a
node's output port, a list port, a plain constant, a module path, a custom Function's
class, a hook's ``def``.  ``ImportProblem`` carries the line that cannot be represented.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gradstudio.interchange.quoting import one_line


class ImportProblem(Exception):
    """A snippet GradStudio cannot represent; ``lineno`` is the line in the snippet."""

    def __init__(self, message: str, lineno: int | None = None) -> None:
        message = one_line(message)  # it may quote a program's output: one clean line
        super().__init__(f"line {lineno}: {message}" if lineno else message)
        self.message = message
        self.lineno = lineno


# ------------------------------------------------------------------------- values


@dataclass(frozen=True)
class TensorRef:
    node_id: str
    port: str = "out"


@dataclass(frozen=True)
class ResultRef(TensorRef):
    """The whole result of a call with several outputs (``torch.sort(x)``): its first
    output where a tensor is wanted, ``r[1]`` its second."""


@dataclass(frozen=True)
class ListRef:
    node_id: str
    port: str


@dataclass(frozen=True)
class Const:
    value: Any


@dataclass(frozen=True)
class Module:
    path: str


@dataclass(frozen=True)
class FunctionClass:
    name: str
    source: str


@dataclass(frozen=True)
class HookDef:
    """A top-level ``def``: code a hook node may hold once it is registered."""

    name: str
    source: str


@dataclass(frozen=True)
class DefaultDevice:
    """``device`` computed from ``torch.cuda.is_available()``: the document's device."""


@dataclass(frozen=True)
class TensorList:
    items: tuple[TensorRef, ...]


Value = TensorRef | ListRef | Const | Module | FunctionClass | HookDef | DefaultDevice | TensorList
