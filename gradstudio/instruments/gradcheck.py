"""Gradcheck one node: its analytic Jacobian against central finite differences.

The node is re-run alone on the engine, in float64 on the CPU, with the inputs it
had in the evaluation (the values its sources held right before its step).  The
analytic Jacobian comes from one ``autograd.grad`` per output element (a one-hot
cotangent: exactly what the node's backward computes, including a learner's own
``backward``); the numerical one from ``(f(x + eps) - f(x - eps)) / 2 eps`` per input
element.  Like ``torch.autograd.gradcheck``, an entry fails when
``|analytic - numerical| > atol + rtol * |numerical|``.

Layout: ``J[i, j] = d output_i / d input_j``; rows run over the node's outputs'
elements (``rows`` says which rows belong to which output), columns over its
inputs' elements (only inputs that require grad in the document).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gradstudio.catalogue import NodeKind, PortType, RunCall
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.facts import OutputRef, TensorFacts
from gradstudio.evaluation.plan import PlanStep
from gradstudio.evaluation.results import Evaluation
from gradstudio.interchange.quoting import printable

if TYPE_CHECKING:
    from gradstudio.document.model import Document

#: Beyond this many Jacobian entries a check would take too long to be interactive.
MAX_ENTRIES = 250_000


class CannotGradcheck(Exception):
    """The node cannot be checked (wrong kind, did not run, untrusted, too large)."""


@dataclass(frozen=True)
class Axis:
    """A block of rows (an output) or columns (an input) of the Jacobian."""

    name: str
    shape: tuple[int, ...]
    offset: int

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))


@dataclass(frozen=True)
class Entry:
    """One Jacobian entry: d ``output[output_index]`` / d ``input[input_index]``."""

    row: int
    column: int
    output: str
    output_index: tuple[int, ...]
    input: str
    input_index: tuple[int, ...]
    analytic: float
    numerical: float

    @property
    def error(self) -> float:
        return abs(self.analytic - self.numerical)


@dataclass(frozen=True, eq=False)
class GradcheckResult:
    node_id: str
    label: str
    rows: tuple[Axis, ...]
    columns: tuple[Axis, ...]
    analytic: np.ndarray  # (sum of output sizes, sum of input sizes), float64
    numerical: np.ndarray
    eps: float
    atol: float
    rtol: float
    #: The entry with the largest |analytic - numerical| (None for an empty Jacobian).
    worst: Entry | None
    #: Every entry outside the tolerance, worst first.
    mismatches: tuple[Entry, ...]

    @property
    def passed(self) -> bool:
        return not self.mismatches

    @property
    def max_error(self) -> float:
        return 0.0 if self.worst is None else self.worst.error

    def entry(self, row: int, column: int) -> Entry:
        out = next(a for a in self.rows if a.offset <= row < a.offset + a.size)
        inp = next(a for a in self.columns if a.offset <= column < a.offset + a.size)
        return Entry(
            row,
            column,
            out.name,
            tuple(int(i) for i in np.unravel_index(row - out.offset, out.shape)),
            inp.name,
            tuple(int(i) for i in np.unravel_index(column - inp.offset, inp.shape)),
            float(self.analytic[row, column]),
            float(self.numerical[row, column]),
        )


def gradcheck(
    doc: Document, label: str, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3
) -> GradcheckResult:
    """Evaluate ``doc`` and check the node labelled ``label``."""
    node = next((n for n in doc.nodes() if n.label == label), None)
    if node is None:
        raise CannotGradcheck(f"no node is labelled {label!r}")
    return gradcheck_node(evaluate(doc, device="cpu"), node.id, eps, atol, rtol)


def gradcheck_node(
    ev: Evaluation, node_id: str, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3
) -> GradcheckResult:
    """Check one op or custom Function node of an evaluation, with its inputs there."""
    import engine

    plan = ev.plan
    index = plan.step_of[node_id]
    step = plan.steps[index]
    name = step.label
    if step.type.kind not in (NodeKind.OP, NodeKind.CUSTOM_FUNCTION) or not step.type.outputs:
        raise CannotGradcheck(f"'{name}' is not an op or a custom Function: nothing to check")
    if ev.steps[index].status != "ok":
        error = ev.steps[index].error
        why = "did not run" if error is None else f"failed: {error.message}"
        raise CannotGradcheck(f"'{name}' {why}")
    snap = ev.snapshot(index - 1)
    sources = _input_facts(step, snap.facts, snap.has)
    checked = [
        (plan.display_label(src), facts)
        for items in sources.values()
        for src, facts in items
        if facts is not None
        and facts.requires_grad
        and np.issubdtype(facts.array.dtype, np.floating)
    ]
    if not checked:
        raise CannotGradcheck(f"no input of '{name}' requires grad: there is no gradient to check")

    def leaf(facts: TensorFacts | None, grad: bool, array: np.ndarray | None = None) -> Any:
        if facts is None:
            return None
        value = facts.array if array is None else array
        if np.issubdtype(value.dtype, np.floating):
            return engine.tensor(value.astype(np.float64), requires_grad=grad)
        return engine.tensor(value)

    def run(replace: dict[int, np.ndarray], grad: bool) -> tuple[list[Any], list[Any]]:
        """The node's float outputs for inputs ``replace`` overrides (by checked position)."""
        made: dict[str, Any] = {}
        diff: list[Any] = []
        position = 0
        for port, items in sources.items():
            values = []
            for _, facts in items:
                is_checked = facts is not None and any(facts is f for _, f in checked)
                array = replace.get(position) if is_checked else None
                t = leaf(facts, grad and is_checked, array)
                if is_checked:
                    diff.append(t)
                    position += 1
                values.append(t)
            made[port] = values if step.type.input(port).variadic else values[0]
        engine.manual_seed(plan.seed)  # a random op draws the same numbers every call
        call = RunCall(engine, "cpu", made, dict(step.params), plan.trusted, step.label)
        try:
            outputs = step.type.run(call)
        except Exception as exc:
            raise CannotGradcheck(f"'{name}' failed when re-run: {exc}") from None
        return _float_outputs(step, outputs), diff

    outs, diff = run({}, True)
    rows = _axes([(f"{name}{suffix}", tuple(o.shape)) for suffix, o in outs])
    cols = _axes([(label, f.shape) for label, f in checked])
    n_rows = sum(a.size for a in rows)
    n_cols = sum(a.size for a in cols)
    if n_rows * n_cols > MAX_ENTRIES:
        raise CannotGradcheck(
            f"'{name}' has a {n_rows} x {n_cols} Jacobian: too large to check (at most "
            f"{MAX_ENTRIES} entries)"
        )
    analytic = _analytic(engine, [o for _, o in outs], diff, n_rows, n_cols)
    numerical = _numerical(
        lambda replace: run(replace, False)[0], [f.array for _, f in checked], n_rows, n_cols, eps
    )
    err = np.abs(analytic - numerical)
    bad = np.argwhere(~(err <= atol + rtol * np.abs(numerical)))
    result = GradcheckResult(
        node_id, name, rows, cols, analytic, numerical, eps, atol, rtol, None, ()
    )
    worst = None
    if err.size:
        r, c = np.unravel_index(int(np.nanargmax(np.where(np.isnan(err), np.inf, err))), err.shape)
        worst = result.entry(int(r), int(c))
    mismatches = sorted((result.entry(int(r), int(c)) for r, c in bad), key=lambda e: -e.error)
    return GradcheckResult(
        node_id, name, rows, cols, analytic, numerical, eps, atol, rtol, worst, tuple(mismatches)
    )


def _input_facts(
    step: PlanStep,
    facts: Callable[[str, str, int | None], TensorFacts | None],
    has: Callable[[OutputRef], bool],
) -> dict[str, list[tuple[OutputRef, TensorFacts | None]]]:
    sources: dict[str, list[tuple[OutputRef, TensorFacts | None]]] = {}
    for port in step.type.inputs:
        items = []
        for src, src_port in step.inputs.get(port.name, ()):
            ref = OutputRef(src, src_port)
            if has(ref):
                items.append((ref, facts(src, src_port, None)))
            else:
                raise CannotGradcheck("an input is a list of tensors: gradcheck takes tensors")
        if items:
            sources[port.name] = items
    return sources


def _float_outputs(step: PlanStep, outputs: dict[str, Any]) -> list[tuple[str, Any]]:
    found = []
    several = len(step.type.outputs) > 1
    for port in step.type.outputs:
        value = outputs.get(port.name)
        items = list(enumerate(value or [])) if port.type is PortType.TENSORS else [(None, value)]
        for i, t in items:
            if t is None or not t.dtype.is_floating_point:
                continue
            suffix = f"[{i}]" if i is not None else f".{port.name}" if several else ""
            found.append((suffix, t))
    return found


def _axes(blocks: list[tuple[str, tuple[int, ...]]]) -> tuple[Axis, ...]:
    axes = []
    offset = 0
    for name, shape in blocks:
        axes.append(Axis(name, shape, offset))
        offset += axes[-1].size
    return tuple(axes)


def _analytic(
    engine: Any, outs: list[Any], diff: list[Any], n_rows: int, n_cols: int
) -> np.ndarray:
    jac = np.zeros((n_rows, n_cols))
    row = 0
    for out in outs:
        for k in range(int(out.numel())):
            if out.requires_grad:
                onehot = np.zeros(int(out.numel()))
                onehot[k] = 1.0
                cot = engine.tensor(onehot.reshape(tuple(out.shape)), dtype=out.dtype)
                grads = engine.autograd.grad(
                    [out], diff, [cot], retain_graph=True, allow_unused=True
                )
                col = 0
                for x, g in zip(diff, grads, strict=True):
                    size = int(x.numel())
                    if g is not None:
                        jac[row, col : col + size] = g.detach().numpy().reshape(-1)
                    col += size
            row += 1
    return jac


def _numerical(
    f: Callable[[dict[int, np.ndarray]], list[tuple[str, Any]]],
    arrays: list[np.ndarray],
    n_rows: int,
    n_cols: int,
    eps: float,
) -> np.ndarray:
    def flat(replace: dict[int, np.ndarray]) -> np.ndarray:
        parts = [t.detach().numpy().astype(np.float64).reshape(-1) for _, t in f(replace)]
        return np.concatenate(parts) if parts else np.zeros(0)

    jac = np.zeros((n_rows, n_cols))
    col = 0
    for position, base in enumerate(arrays):
        base = base.astype(np.float64)
        for k in range(base.size):
            plus, minus = base.copy(), base.copy()
            plus.reshape(-1)[k] += eps
            minus.reshape(-1)[k] -= eps
            jac[:, col] = (flat({position: plus}) - flat({position: minus})) / (2 * eps)
            col += 1
    return jac


def format_gradcheck(result: GradcheckResult) -> str:
    """The verdict, the largest error and where, and each entry outside the tolerance."""
    lines = [
        f"gradcheck '{printable(result.label)}': "
        f"{result.analytic.shape[0]} x {result.analytic.shape[1]} Jacobian in float64, "
        f"eps={result.eps:g}, atol={result.atol:g}, rtol={result.rtol:g}"
    ]
    if result.worst is not None:
        lines.append(f"largest error {result.max_error:.3g} at {_where(result.worst)}")
    for e in result.mismatches:
        lines.append(
            f"  differs at {_where(e)}: analytic {e.analytic:.6g}, numerical {e.numerical:.6g}"
        )
    lines.append("passed" if result.passed else f"FAILED: {len(result.mismatches)} entries differ")
    return "\n".join(lines) + "\n"


def _where(e: Entry) -> str:
    out = printable(e.output) + (str(list(e.output_index)) if e.output_index else "")
    inp = printable(e.input) + (str(list(e.input_index)) if e.input_index else "")
    return f"d({out})/d({inp})"
