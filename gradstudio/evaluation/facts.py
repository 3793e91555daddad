"""What PyTorch would report about each tensor after a step: its value, ``.grad``,
``grad_fn`` with its saved tensors and ``next_functions``, the backward trace, and a
step's warnings, error and result.  Immutable values, compared step to step."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from gradstudio.catalogue import HookFiring


def same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """``np.array_equal`` (NaN equal to NaN in float arrays), with the common answers
    first: other shapes, or the same bytes of an integer, bool or float array (equal
    NaNs included); anything else (-0.0 against 0.0, other dtypes, complex numbers)
    asks NumPy.  A tensor's facts are compared after every step and between runs."""
    if a.shape != b.shape:
        return False
    kind = a.dtype.kind
    if a.dtype == b.dtype and kind in "biuf":
        if a is b or a.tobytes() == b.tobytes():
            return True
        if kind != "f":
            return False
    return bool(np.array_equal(a, b, equal_nan=kind == "f"))


class OutputRef(NamedTuple):
    """One tensor output of a node (``index`` picks an item of a list output).

    A named tuple: views look refs up per node on every scrub, and a tuple's hash
    and equality run in C.
    """

    node_id: str
    port: str = "out"
    index: int | None = None  # type: ignore[assignment]  # (shadows tuple.index, unused here)


@dataclass(frozen=True, eq=False)
class GradValue:
    """A tensor's value as plain data: a gradient, a saved tensor, an edge's gradient."""

    array: np.ndarray
    shape: tuple[int, ...]
    dtype: str
    device: str

    @property
    def value(self) -> Any:
        return self.array.tolist()

    def same_as(self, other: GradValue | None) -> bool:
        return (
            other is not None
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.device == other.device
            and same_values(self.array, other.array)
        )


@dataclass(frozen=True)
class NextFunction:
    """One entry of ``grad_fn.next_functions``: the node it leads to and the input index."""

    key: int
    name: str
    index: int


@dataclass(frozen=True, eq=False)
class SavedValue:
    """One ``_saved_*`` attribute of a grad_fn.

    ``kind``: ``tensor`` (``value`` is a GradValue), ``value`` (a number/tuple, its
    repr in ``value``), ``none``, ``freed`` (released by backward), ``modified``
    (changed in place since it was saved; ``value`` holds PyTorch's message).
    """

    name: str
    kind: str
    value: Any = None
    #: The graph output this saved tensor is (``w`` for ``_saved_self``), if any.
    ref: OutputRef | None = None

    def same_as(self, other: SavedValue) -> bool:
        if (self.name, self.kind) != (other.name, other.kind):
            return False
        if isinstance(self.value, GradValue):
            return self.value.same_as(other.value)
        return bool(self.value == other.value)


@dataclass(frozen=True, eq=False)
class GradFnFacts:
    key: int
    name: str
    next_functions: tuple[NextFunction | None, ...]
    saved: tuple[SavedValue, ...]
    #: For ``AccumulateGrad``: the graph output whose leaf it accumulates into.
    variable: OutputRef | None = None

    def same_as(self, other: GradFnFacts | None) -> bool:
        return (
            other is not None
            and (self.key, self.name, self.next_functions, self.variable)
            == (other.key, other.name, other.next_functions, other.variable)
            and len(self.saved) == len(other.saved)
            and all(a.same_as(b) for a, b in zip(self.saved, other.saved, strict=True))
        )


@dataclass(frozen=True, eq=False)
class TensorFacts:
    """What PyTorch reports about one tensor at one moment."""

    tensor_id: int  # equal for outputs that are the same tensor object
    array: np.ndarray
    shape: tuple[int, ...]
    dtype: str
    device: str
    requires_grad: bool
    is_leaf: bool
    grad_fn: GradFnFacts | None
    grad: GradValue | None
    retains_grad: bool
    version: int
    #: Reading ``.grad`` here warns in PyTorch (a non-leaf that does not retain grad).
    grad_access_warns: bool
    #: For a view (``._base`` set): the ``tensor_id`` of the tensor whose storage it
    #: shares, when that tensor was recorded before (memory counts the storage once).
    base_id: int | None = None

    @property
    def value(self) -> Any:
        return self.array.tolist()

    @property
    def grad_fn_name(self) -> str | None:
        return None if self.grad_fn is None else self.grad_fn.name

    @property
    def retained_grad(self) -> GradValue | None:
        """``.grad`` of a non-leaf that called ``retain_grad()``."""
        return self.grad if (not self.is_leaf and self.retains_grad) else None

    def same_as(self, other: TensorFacts | None) -> bool:
        if other is None:
            return False
        same_grad = (self.grad is None and other.grad is None) or (
            self.grad is not None and self.grad.same_as(other.grad)
        )
        same_fn = (self.grad_fn is None and other.grad_fn is None) or (
            self.grad_fn is not None and self.grad_fn.same_as(other.grad_fn)
        )
        return (
            (self.tensor_id, self.shape, self.dtype, self.device, self.requires_grad)
            == (other.tensor_id, other.shape, other.dtype, other.device, other.requires_grad)
            and (self.is_leaf, self.retains_grad, self.version, self.grad_access_warns)
            == (other.is_leaf, other.retains_grad, other.version, other.grad_access_warns)
            and same_grad
            and same_fn
            and same_values(self.array, other.array)
        )

    def to_json(self) -> dict[str, Any]:
        """The facts in the shape ``main.py run --json`` and exported scripts print."""
        fn = self.grad_fn
        return {
            "shape": list(self.shape),
            "dtype": self.dtype,
            "device": self.device,
            "requires_grad": self.requires_grad,
            "is_leaf": self.is_leaf,
            "grad_fn": None if fn is None else fn.name,
            "next_functions": None
            if fn is None
            else [None if n is None else [n.name, n.index] for n in fn.next_functions],
            "grad": None if self.grad is None else self.grad.value,
            "retains_grad": self.retains_grad,
            "version": self.version,
            "value": self.value,
        }


@dataclass(frozen=True)
class TraceExecution:
    """One grad_fn run by backward: gradients arriving (per output) and leaving (per edge).

    ``wrote`` holds the ``.grad`` this execution left on graph outputs: an
    ``AccumulateGrad`` on its leaf (every output holding that tensor), a grad_fn on
    the non-leaf outputs it made that retain grad (PyTorch's retain-grad hook fires
    as the gradient reaches the tensor, i.e. when its grad_fn runs).  A grad_fn runs
    once per backward, so the value is the one read when the step ended.
    """

    key: int
    name: str
    incoming: tuple[GradValue | None, ...]
    outgoing: tuple[tuple[NextFunction | None, GradValue | None], ...]
    wrote: tuple[tuple[OutputRef, GradValue | None], ...] = ()


@dataclass(frozen=True)
class BackwardTrace:
    """The grad_fn nodes one backward step ran, in order, with their gradients.

    ``keys`` is known at once; ``executions`` (the gradient values) is converted on
    first use, since only a replay in the UI looks at it.
    """

    node_id: str
    step: int
    keys: tuple[int, ...]
    _convert: Callable[[], tuple[TraceExecution, ...]] = field(repr=False, compare=False)
    #: grad_fn key -> the ``.grad`` it wrote (see ``TraceExecution.wrote``), read at once.
    wrote: dict[int, tuple[tuple[OutputRef, GradValue | None], ...]] = field(
        default_factory=dict, repr=False, compare=False
    )
    #: The hook nodes' functions that fired during this backward, in firing order.
    hooks: tuple[HookFiring, ...] = ()

    @functools.cached_property
    def executions(self) -> tuple[TraceExecution, ...]:
        return self._convert()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (from the evaluation process) with the gradient values converted:
        the live engine objects ``_convert`` reads stay behind."""
        ready = functools.partial(tuple, self.executions)
        return (BackwardTrace, (self.node_id, self.step, self.keys, ready, {}, self.hooks))


@dataclass(frozen=True)
class StepWarning:
    node_id: str
    step: int
    category: str
    message: str
    explanation: str | None = None


@dataclass(frozen=True)
class StepError:
    node_id: str
    step: int
    exc_type: str
    message: str  # PyTorch's (or the engine's) text
    title: str
    explanation: str
    fix: str
    traceback: str | None = None  # for errors inside custom Function code

    @classmethod
    def explained(
        cls, node_id: str, step: int, exc_type: str, message: str, tb: str | None = None
    ) -> StepError:
        """The error with its plain-language explanation attached."""
        # the explanations (a table of compiled patterns) load with the first error,
        # not with the studio's window
        from gradstudio.evaluation.explain import explain

        e = explain(message, exc_type)
        return cls(node_id, step, exc_type, message, e.title, e.explanation, e.fix, tb)

    def to_json(self, label: str) -> dict[str, Any]:
        return {
            "label": label,
            "step": self.step,
            "type": self.exc_type,
            "message": self.message,
            "title": self.title,
            "explanation": self.explanation,
            "fix": self.fix,
        }


@dataclass
class StepResult:
    step: int
    node_id: str
    status: str = "not run"  # "ok" | "error" | "waiting" | "not run"
    error: StepError | None = None
    #: A waiting step's unconnected required inputs (it waits for the user to wire them).
    missing: tuple[str, ...] = ()
    #: ... or the label of the waiting step it needs a value from.
    waits_for: str = ""
    warnings: list[StepWarning] = field(default_factory=list)
    changed: dict[OutputRef, TensorFacts | None] = field(default_factory=dict)
    grad_fns: dict[int, GradFnFacts] = field(default_factory=dict)
    trace: BackwardTrace | None = None
    seconds: float = 0.0


def waiting_text(missing: tuple[str, ...], waits_for: str) -> str:
    """What a waiting step asks of the learner, in every view's words."""
    if missing:
        noun = "input" if len(missing) == 1 else "inputs"
        return f"connect {noun} " + ", ".join(f"`{name}`" for name in missing)
    return f"waits for `{waits_for}`" if waits_for else ""
