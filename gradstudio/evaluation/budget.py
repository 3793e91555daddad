"""The memory budget: a run refuses a step whose tensors would not fit, before allocating.

The 1M-element cap of the file format bounds each parameter, not what a step makes
of it: ``arange`` to 2e8, a [20000, 1] + [1, 20000] add, a ``cat`` of 5,000 edges
from one 1M tensor or an ``expand`` then ``clone`` each ask for gigabytes from a
small document.  So every step's output size is predicted from its inputs' shapes
and its parameters *before* it runs (``predict_numel``), and checked again from
the real outputs before the evaluation copies them into its timeline (for steps
whose size cannot be known in advance: indexing, custom Function code).

The budget is document-wide: it bounds the tensor data one run holds, the sum of
every step's outputs, since the timeline keeps them all.  The message names the
node and the size: "`big` would allocate 18.6 GiB; the budget is 2 GiB".
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gradstudio.catalogue import NodeType, RunCall

if TYPE_CHECKING:
    from gradstudio.evaluation.plan import PlanStep

GIB = 1 << 30
#: A run holds each tensor twice (the engine's, the timeline's copy), gradients too:
#: 1 GiB of tensor data is about 2 GiB of memory.
DEFAULT_BUDGET = GIB
#: Bytes per element where neither a dtype parameter nor an input says (float32).
DEFAULT_ITEMSIZE = 4

Shape = tuple[int, ...]


class MemoryBudgetError(MemoryError):
    """A step would take the run's tensor data past the memory budget."""


def format_size(nbytes: float) -> str:
    """``18.6 GiB``, ``512 MiB``, ``2 GiB``: binary units, one decimal where it matters."""
    units = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB")
    value = float(nbytes)
    unit = 0
    while value >= 1024 and unit < len(units) - 1:
        value /= 1024
        unit += 1
    if unit == 0:
        return f"{int(value)} bytes"
    text = f"{value:.1f}".removesuffix(".0")
    return f"{text} {units[unit]}"


_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``2GiB``, ``512M``, ``1.5g``, ``100000000`` (bytes) -> bytes; ValueError otherwise."""
    match = _SIZE.match(text)
    if match is None:
        raise ValueError(f"not a size: {text!r} (write e.g. 2GiB, 512MiB or a number of bytes)")
    number, prefix, _ = match.groups()
    scale = 1 << (10 * " kmgt".index(prefix.lower() or " "))
    size = int(float(number) * scale)
    if size <= 0:
        raise ValueError(f"the memory budget must be positive, got {text!r}")
    return size


def out_of_memory_message(label: str, exc: BaseException, budget: int | None) -> str:
    """One line for a MemoryError raised inside a step (NumPy says how much it wanted)."""
    shape, dtype = getattr(exc, "shape", None), getattr(exc, "dtype", None)
    if shape is not None and dtype is not None:
        wanted = math.prod(shape) * dtype.itemsize
        text = f"`{label}` ran out of memory allocating {format_size(wanted)}"
    else:
        text = f"`{label}` ran out of memory"
    return text if budget is None else f"{text}; the budget is {format_size(budget)}"


# -------------------------------------------------------------------- predicting sizes


class _Args:
    """A step's inputs as shapes (a Python number is a 0-d tensor) and its parameters."""

    def __init__(self, call: RunCall) -> None:
        self.params = call.params
        self.shapes: dict[str, list[Shape]] = {}
        self.itemsize = 0
        for port, value in call.inputs.items():
            values = value if isinstance(value, list) else [value]
            shapes = []
            for v in values:
                if hasattr(v, "shape") and hasattr(v, "dtype"):
                    shapes.append(tuple(v.shape))
                    self.itemsize = max(self.itemsize, getattr(v.dtype, "itemsize", 0))
                elif isinstance(v, int | float):
                    shapes.append(())
            self.shapes[port] = shapes
        for port, number in call.params.items():
            if (
                port in call.inputs
                and call.inputs[port] is None
                and isinstance(number, int | float)
            ):
                self.shapes[port] = [()]
        dtype = call.params.get("dtype")
        if isinstance(dtype, str):
            self.itemsize = getattr(call.dtype(dtype), "itemsize", self.itemsize)
        elif not call.inputs and _all_ints(
            call.params, ("start", "end", "step", "fill_value", "low", "high")
        ):
            self.itemsize = 8  # PyTorch infers int64 from integer arguments
        self.itemsize = self.itemsize or DEFAULT_ITEMSIZE

    def one(self, port: str = "input") -> Shape:
        return self.shapes[port][0]

    def all(self) -> list[Shape]:
        return [s for shapes in self.shapes.values() for s in shapes]


def _all_ints(params: Mapping[str, Any], names: tuple[str, ...]) -> bool:
    values = [params[n] for n in names if n in params]
    return bool(values) and all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _numel(shape: Sequence[int]) -> int:
    return math.prod(max(int(d), 0) for d in shape)


def _broadcast(shapes: Sequence[Shape]) -> Shape:
    distinct = set(shapes)
    distinct.discard(())
    if len(distinct) <= 1:  # most steps: one shape, and numbers
        return distinct.pop() if distinct else ()
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-ndim, 0):
        sizes = {s[i] for s in shapes if len(s) >= -i} - {1}
        if len(sizes) > 1:
            raise ValueError("shapes do not broadcast")  # the op reports it, not the budget
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _same(a: _Args) -> int:
    return _numel(_broadcast(a.all()))


def _size(a: _Args, name: str = "size") -> int:
    return _numel(a.params.get(name) or ())


def _arange(a: _Args) -> int:
    start, end, step = (a.params.get(k) for k in ("start", "end", "step"))
    if (
        not isinstance(start, int | float)
        or not isinstance(end, int | float)
        or not isinstance(step, int | float)
        or step == 0
    ):
        return 0
    return max(math.ceil((end - start) / step), 0)


def _expand(a: _Args) -> int:
    shape = a.one()
    size = list(a.params.get("size") or ())
    lead = len(size) - len(shape)
    return _numel([shape[i - lead] if d == -1 and i >= lead else d for i, d in enumerate(size)])


def _cat(a: _Args) -> int:
    return sum(_numel(s) for s in a.shapes.get("tensors", []))


def _select(a: _Args) -> int:
    shape = a.one()
    if not shape:
        return 1
    dim = a.params.get("dim", 0) % len(shape)
    rest = _numel(shape) // max(shape[dim], 1)
    if "length" in a.params:
        return rest * max(int(a.params["length"]), 0)
    return rest


def _reduce(a: _Args) -> int:
    shape, dims = a.one(), a.params.get("dim")
    if dims is None or not shape:
        return 1
    reduced = {d % len(shape) for d in ([dims] if isinstance(dims, int) else dims)}
    return _numel([s for i, s in enumerate(shape) if i not in reduced])


def _matmul(a: _Args) -> int:
    if a.shapes.get("mat1"):  # addmm: input + mat1 @ mat2
        left, right = a.one("mat1"), a.one("mat2")
    else:
        ports = [p for p in ("input", "other", "mat2", "vec", "tensor") if a.shapes.get(p)]
        left, right = a.one(ports[0]), a.one(ports[1])
    if not left or not right:
        return max(_numel(left), _numel(right))
    rows = left[-2:-1]
    cols = right[-1:] if len(right) >= 2 else ()
    return _numel(_broadcast([left[:-2], right[:-2]])) * _numel(rows) * _numel(cols)


def _linear(a: _Args) -> int:
    shape, weight = a.one(), a.one("weight")
    out = weight[0] if len(weight) == 2 else 1
    return _numel(shape[:-1]) * out


def _repeat(a: _Args, name: str) -> int:
    return _same(a) * _numel(a.params.get(name) or ())


def _loss(a: _Args) -> int:
    return _same(a) if a.params.get("reduction") == "none" else 1


#: Output elements by node type; types not named here and in an elementwise category
#: (below) take the broadcast of their inputs; the rest are measured after they run.
RULES: dict[str, Callable[[_Args], int]] = {
    **{f"torch.{n}": _size for n in ("zeros", "ones", "full", "rand", "randn", "empty")},
    "torch.randint": _size,
    "torch.broadcast_to": _size,
    "torch.Tensor.repeat": lambda a: _repeat(a, "repeats"),
    "torch.tile": lambda a: _repeat(a, "dims"),
    "torch.Tensor": lambda a: _size(a, "sizes"),
    "torch.arange": _arange,
    "torch.Tensor.expand": _expand,
    "torch.cat": _cat,
    "torch.stack": _cat,
    "torch.select": _select,
    "torch.narrow": _select,
    **{f"torch.{n}": _reduce for n in ("sum", "mean")},
    **{f"torch.{n}": lambda a: 2 * _reduce(a) for n in ("max", "min")},  # values, indices
    **{f"torch.{n}": _matmul for n in ("mm", "mv", "dot", "bmm", "addmm", "matmul")},
    "torch.nn.functional.linear": _linear,
    **{f"torch.nn.functional.{n}": _loss for n in ("mse_loss", "nll_loss", "cross_entropy")},
}

#: Catalogue categories whose outputs have the broadcast shape of their inputs
#: (elementwise ops, and view-like ops that keep the element count).
ELEMENTWISE = frozenset(
    {"arithmetic", "math", "activation", "comparison", "shape", "creation", "in-place", "tensor"}
)


def predict_numel(node_type: NodeType, call: RunCall) -> tuple[int, int] | None:
    """(elements, bytes per element) of a step's outputs, from shapes alone; None when
    only running the step can tell (the size is then checked before it is recorded)."""
    rule = RULES.get(node_type.id)
    if rule is None and node_type.category not in ELEMENTWISE:
        return None
    args = _Args(call)
    try:
        numel = rule(args) if rule is not None else _same(args)
    except (ValueError, TypeError, IndexError, KeyError, ZeroDivisionError):
        return None  # badly wired or shaped: the step itself says what is wrong
    return numel, args.itemsize


def source_bytes(node_type: NodeType, params: Mapping[str, Any], backend: Any) -> int | None:
    """Bytes a step with no tensor inputs would make (``zeros`` of a shape, an ``arange``),
    from its parameters alone: what a snippet import holds against the budget, so that a
    shape too big is refused at its line rather than at the first run."""
    if node_type.inputs:
        return None
    call = RunCall(backend, "cpu", {}, dict(params))
    predicted = predict_numel(node_type, call)
    return None if predicted is None else predicted[0] * predicted[1]


def over_budget(what: str, nbytes: int | None, budget: int | None) -> str | None:
    """The sentence refusing ``nbytes`` of tensor data, or None where it fits (or where
    the size is not known before a run)."""
    if budget is None or nbytes is None or nbytes <= budget:
        return None
    return (
        f"{what} would allocate {format_size(nbytes)}; the memory budget is "
        f"{format_size(budget)} (Run > Memory Budget, or --memory-budget)"
    )


def _tensor_bytes(outputs: Mapping[str, Any]) -> int:
    total = 0
    for value in outputs.values():
        for v in value if isinstance(value, list | tuple) else [value]:
            if hasattr(v, "shape") and hasattr(v, "dtype"):  # a tensor's sizes are >= 0
                total += math.prod(v.shape) * getattr(v.dtype, "itemsize", DEFAULT_ITEMSIZE)
    return total


class Ledger:
    """The tensor data one run holds, checked against the budget at every step."""

    def __init__(self, budget: int | None) -> None:
        self.budget = budget
        self.held = 0

    def _check(self, step: PlanStep, nbytes: int) -> None:
        if self.budget is None or self.held + nbytes <= self.budget:
            return
        # the held part is worth saying only where it is what makes the step not fit
        held = f" with {format_size(self.held)} already held" if nbytes <= self.budget else ""
        raise MemoryBudgetError(
            f"`{step.label}` would allocate {format_size(nbytes)}{held}; "
            f"the budget is {format_size(self.budget)}"
        )

    def before(self, step: PlanStep, call: RunCall) -> None:
        """Refuse the step if its predicted outputs do not fit."""
        if self.budget is None:
            return
        predicted = predict_numel(step.type, call)
        if predicted is not None:
            self._check(step, predicted[0] * predicted[1])

    def after(self, step: PlanStep, outputs: Mapping[str, Any]) -> None:
        """Refuse outputs that do not fit (before they are copied); count those that do."""
        nbytes = _tensor_bytes(outputs)
        self._check(step, nbytes)
        self.held += nbytes
