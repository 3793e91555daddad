"""What the recorder holds while a program runs: its events, the keys of the tensors
it has seen (by ``id`` while they live), the snapshots a loop fold may need, and the
names the program gave; typed once here for every part of ``Recorder``.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

from gradstudio.interchange.program_import.recorder_events import Events


class GradState(NamedTuple):
    """``Recorder.snapshot_grads``: the iteration frame, the frames around it, and the
    ``.grad`` of each leaf (by serial) as it began."""

    frame: str
    chain: tuple[str, ...]
    grads: dict[int, dict[str, Any]]


class RecorderState:
    """The recorder's state (the base of ``Recorder``'s parts)."""

    def __init__(self, program: str, keep: int = 3) -> None:
        self.program = program
        self.events: Events = Events()
        self.keys: dict[int, str] = {}
        #: every key each object has had, oldest first (an in-place op adds one)
        self.history: dict[int, list[str]] = {}
        #: the serial number of the live object each id belongs to: an id is reused
        #: once its tensor is gone, so a tensor is forgotten when it dies
        self.owner: dict[int, int] = {}
        #: a weak reference to each live tensor, by serial, oldest first
        self.refs: dict[int, weakref.ref] = {}
        self.depth = 0
        #: the engine's own functions that the recorder replaced by name, held alive
        self.kept: list[Any] = []
        self.count = 0
        #: how many iterations of a loop stay nodes before the folded ones
        self.keep = keep
        self.snapshots: dict[str, dict[str, Any]] = {}
        #: snapshots of keys no later event can read (superseded or dead), kept until
        #: every iteration that read them is known to fold
        self.retired: list[str] = []
        #: the key of each leaf that requires grad -> the serial of its tensor
        self.leaves: dict[str, int] = {}
        #: the serials of those leaves (each once, however many versions it has)
        self.leaf_serials: set[int] = set()
        #: per loop run: the ``.grad`` of each leaf as its latest iteration began, which
        #: a fold of the iterations before sets again (``snapshot_grads``)
        self.grad_states: dict[str, GradState] = {}
        #: the keys each event reads, by the event's ``id`` (events live as long)
        self.reads: dict[int, tuple[str, ...]] = {}
        #: the names the program's statements bind (``naming.Bindings``), once it runs
        self.bindings: Any = None
        #: key -> the source text of the expression that made it, or the path of the
        #: PyTorch module whose forward made it (``naming``)
        self.where: dict[str, str] = {}
        #: the ``zero_grad()`` call running now: (its number, its source text)
        self.clearing: tuple[int, str] | None = None
        self.clearings = 0
