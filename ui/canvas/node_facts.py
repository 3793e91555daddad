"""What a node shows at a glance, computed from an evaluation (no painting, no Qt).

Kept apart from the node item so tests can check the facts a learner sees against
PyTorch's without reading pixels, and so the item repaints only when these change.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from gradstudio.text import shape_text

if TYPE_CHECKING:
    from gradstudio.catalogue import NodeType
    from gradstudio.evaluation.facts import StepError, TensorFacts
    from gradstudio.evaluation.playhead import Playhead
    from gradstudio.evaluation.results import Snapshot

MAX_INLINE_ELEMENTS = 6
DrawnText = tuple[str, str, str]
"""What a card drew: ``(where, full text, drawn text)``; the two differ when it was cut."""


class NodeFacts:
    """The facts drawn on one node; ``status``: ok, error, waiting, pending, skipped or none.

    ``waiting``: a required input is not wired yet, or an input comes from a node that
    waits (``waiting_text`` says which: a hint, not an error); ``pending``: the timeline
    is before this node's step; ``skipped``: the run stopped before this step (an earlier
    step raised, or it was cancelled); ``none``: no evaluation yet.
    Cheap fields are set at once; value texts are formatted on first use, since a big
    graph repaints only the cards on screen.  Two facts are equal when they show the
    same tensor facts object (snapshots share unchanged ones), status and error.
    """

    __slots__ = (
        "_grad_text",
        "_value_text",
        "error",
        "list_length",
        "replay_role",
        "requires_grad",
        "status",
        "tensor",
        "waiting_text",
        "warnings",
    )

    def __init__(
        self,
        status: str = "none",
        tensor: TensorFacts | None = None,
        error: StepError | None = None,
        warnings: tuple[str, ...] = (),
        list_length: int | None = None,
        replay_role: str = "",
        waiting_text: str = "",
    ) -> None:
        self.status = status
        self.waiting_text = waiting_text
        self.replay_role = replay_role
        self.tensor = tensor
        #: the tensor's ``requires_grad`` (None: no tensor), read once: a scrub and the
        #: canvas's overview ask it of thousands of cards
        self.requires_grad: bool | None = tensor.requires_grad if tensor is not None else None
        self.error = error
        self.warnings = warnings
        self.list_length = list_length
        self._value_text: str | None = None
        self._grad_text: str | None = None

    def _key(self) -> tuple:
        return (
            self.status,
            id(self.tensor),
            self.error,
            self.warnings,
            self.list_length,
            self.replay_role,
            self.waiting_text,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NodeFacts) and (
            self.tensor is other.tensor and self._key() == other._key()
        )

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"NodeFacts({self.status}, value={self.value!r}, grad_fn={self.grad_fn!r})"

    # -- tensor facts --------------------------------------------------------
    @property
    def has_tensor(self) -> bool:
        return self.tensor is not None

    @property
    def value(self) -> str:
        if self.tensor is None:
            return "None" if self.status == "ok" else ""
        if self._value_text is None:
            self._value_text = format_array(self.tensor.array)
        return self._value_text

    @property
    def shape(self) -> str:
        return format_shape(tuple(self.tensor.shape)) if self.tensor is not None else ""

    @property
    def dtype(self) -> str:
        return self.tensor.dtype if self.tensor is not None else ""

    @property
    def device(self) -> str:
        return self.tensor.device if self.tensor is not None else ""

    @property
    def is_leaf(self) -> bool | None:
        return self.tensor.is_leaf if self.tensor is not None else None

    @property
    def grad_fn(self) -> str | None:
        return self.tensor.grad_fn_name if self.tensor is not None else None

    @property
    def has_grad(self) -> bool:
        return self.tensor is not None and self.tensor.grad is not None

    @property
    def grad(self) -> str | None:
        """The ``.grad`` value as text, when populated."""
        if not self.has_grad:
            return None
        if self._grad_text is None:
            self._grad_text = format_array(self.tensor.grad.array)  # type: ignore[union-attr]
        return self._grad_text

    @property
    def retains_grad(self) -> bool:
        return bool(self.tensor is not None and self.tensor.retains_grad)

    @property
    def version(self) -> int:
        return self.tensor.version if self.tensor is not None else 0

    # -- errors ----------------------------------------------------------------
    @property
    def error_title(self) -> str:
        return (self.error.title or self.error.exc_type) if self.error is not None else ""

    @property
    def error_message(self) -> str:
        return self.error.message if self.error is not None else ""

    @property
    def error_type(self) -> str:
        return self.error.exc_type if self.error is not None else ""


NO_FACTS = NodeFacts()
PENDING = NodeFacts("pending")
SKIPPED = NodeFacts("skipped")


def format_number(x: Any, integral_dtype: bool) -> str:
    """One element the way PyTorch prints it (``5.`` for a whole float, 4 significant digits)."""
    if isinstance(x, bool | np.bool_):
        return "True" if x else "False"
    if integral_dtype:
        return str(int(x))
    f = float(x)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    if f.is_integer() and abs(f) < 1e8:
        return f"{int(f)}."
    text = f"{f:.4g}"
    return text


def format_array(array: np.ndarray, max_elements: int = MAX_INLINE_ELEMENTS) -> str:
    """A short, PyTorch-like rendering of a tensor's values (elided beyond a few elements)."""
    integral = array.dtype.kind in "iub"
    if array.dtype.kind == "b":
        integral = False
    if array.ndim == 0:
        return format_number(array.item(), integral)
    if array.size == 0:
        return "[]"

    def render(a: np.ndarray, budget: int) -> str:
        if a.ndim == 1:
            items = [format_number(v, integral) for v in a[:budget].tolist()]
            if a.shape[0] > budget:
                items.append("…")
            return "[" + ", ".join(items) + "]"
        rows = [render(r, budget) for r in a[: max(1, budget // 3)]]
        if a.shape[0] > len(rows):
            rows.append("…")
        return "[" + ", ".join(rows) + "]"

    return render(array, max_elements)


def format_shape(shape: tuple[int, ...]) -> str:
    return shape_text(shape, empty="scalar")


def _has_ref(snapshot: Snapshot, node_id: str, port: str, index: int) -> bool:
    from gradstudio.evaluation.facts import OutputRef

    return snapshot.has(OutputRef(node_id, port, index))


def node_facts(node_id: str, node_type: NodeType, playhead: Playhead) -> NodeFacts:
    """The facts for a node at the playhead's position (a replayed backward included)."""
    return facts_reader(playhead)(node_id, node_type)


def facts_reader(playhead: Playhead) -> Callable[[str, NodeType], NodeFacts]:
    """``node_facts`` for many nodes at one position: what every node asks (the
    snapshot, the step shown, the replay's nodes) is read once, not once per node,
    which is most of the cost when a scrub restyles thousands of cards."""
    evaluation, snapshot = playhead.evaluation, playhead.snapshot()
    if evaluation is None or snapshot is None:
        return lambda node_id, node_type: NO_FACTS
    step_of = evaluation.plan.step_of
    steps = evaluation.steps
    shown = playhead.effective_step
    executing = playhead.executing_node
    touched = playhead.touched_nodes()

    def read(node_id: str, node_type: NodeType) -> NodeFacts:
        step = step_of.get(node_id)
        if step is None:
            return NO_FACTS  # added after this evaluation ran
        if step > shown:
            return PENDING
        result = steps[step]
        warnings = tuple(w.message for w in result.warnings) if result.warnings else ()
        if result.status == "error" and result.error is not None:
            return NodeFacts("error", error=result.error, warnings=warnings)
        if result.status == "waiting":
            from gradstudio.evaluation.facts import waiting_text

            text = waiting_text(result.missing, result.waits_for)
            return NodeFacts("waiting", waiting_text=text)
        if result.status != "ok":
            return SKIPPED  # an earlier step failed (or the run was cancelled) before this one
        if node_id == executing:
            role = "executing"
        else:
            role = "touched" if node_id in touched else ""
        outputs = node_type.outputs
        if not outputs:
            return NodeFacts("ok", warnings=warnings, replay_role=role)
        port = outputs[0]
        if port.type.value == "tensors":
            n = 0
            while _has_ref(snapshot, node_id, port.name, n):
                n += 1
            tensor = snapshot.facts(node_id, port.name, 0) if n else None
            return NodeFacts("ok", tensor, warnings=warnings, list_length=n, replay_role=role)
        tensor = snapshot.facts(node_id, port.name)
        return NodeFacts("ok", tensor, warnings=warnings, replay_role=role)

    return read
