"""Verify with PyTorch: run a document on the engine and under real PyTorch, compare.

Both runs use the same evaluator and catalogue (``Plan.run(backend=...)``); the
PyTorch one happens in a child process (``torch_child``).  After every step the
tensors either run changed are compared fact by fact (values and gradients with
a tolerance per dtype, everything else exactly), plus the step's error and
warnings, and for a backward step the order of the grad_fn nodes it ran and the
gradient on each of their edges.  Every step's node gets a ``NodeMark``: agrees,
or the list of differences.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gradstudio.evaluation.evaluate import evaluate
from gradstudio.evaluation.facts import GradValue, OutputRef, TensorFacts, TraceExecution
from gradstudio.evaluation.plan import Plan
from gradstudio.instruments.records import StepRecord, records_of
from gradstudio.instruments.torch_child import NO_TORCH
from gradstudio.interchange.fileformat import dumps
from gradstudio.interchange.quoting import printable, shorten

if TYPE_CHECKING:
    from gradstudio.document.model import Document

INSTALL_HINT = "PyTorch is not installed; install it with 'pip install torch==2.13.0' to verify"

#: (rtol, atol, of the largest) per dtype: float32 reductions may round differently from
#: PyTorch's.  A sum's rounding is bounded by the size of its terms, not of its result: an
#: entry of a matrix product that cancels to near 0 carries the rounding of the large
#: products it added (in OpenBLAS's order here, MKL's or oneDNN's in PyTorch), so an
#: element also agrees within the third figure times the tensor's largest magnitude.
TOLERANCE = {
    "float16": (1e-2, 1e-3, 1e-2),
    "bfloat16": (2e-2, 1e-2, 2e-2),
    "float32": (1e-4, 1e-5, 2e-5),
    "float64": (1e-7, 1e-9, 1e-12),
}


class TorchUnavailable(Exception):
    """PyTorch cannot be imported (or its run did not finish): nothing was compared."""


@dataclass(frozen=True)
class Difference:
    """One fact on which the engine and PyTorch disagree (both sides as short text)."""

    tensor: str  # the output's display label, or "" for the step itself
    fact: str
    engine: str
    torch: str


@dataclass(frozen=True)
class NodeMark:
    node_id: str
    label: str
    step: int
    differences: tuple[Difference, ...]

    @property
    def agrees(self) -> bool:
        return not self.differences


@dataclass(frozen=True)
class VerifyReport:
    marks: tuple[NodeMark, ...]
    torch_version: str

    @property
    def agrees(self) -> bool:
        return all(m.agrees for m in self.marks)

    def mark(self, node_id: str) -> NodeMark:
        return next(m for m in self.marks if m.node_id == node_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "torch": self.torch_version,
            "agrees": self.agrees,
            "nodes": [
                {
                    "node": m.node_id,
                    "label": m.label,
                    "step": m.step,
                    "differences": [vars(d) for d in m.differences],
                }
                for m in self.marks
            ],
        }


# ----------------------------------------------------------------------- running


def verify(doc: Document, device: str | None = None, timeout: float = 600.0) -> VerifyReport:
    """Evaluate ``doc`` on the engine and under PyTorch and compare every step.

    Custom Function code runs in both only if ``doc.trusted``.  Raises
    ``TorchUnavailable`` when PyTorch cannot be imported.
    """
    device = device or doc.settings["device"]
    theirs, version = run_under_torch(doc, device, timeout)
    ours = evaluate(doc, device=device)
    return compare(ours.plan, records_of(ours), theirs, version)


def run_under_torch(doc: Document, device: str, timeout: float) -> tuple[list[StepRecord], str]:
    """The document's step records under real PyTorch, from a child process."""
    with tempfile.TemporaryDirectory(prefix="gradstudio-verify-") as tmp:
        source = Path(tmp, "doc.gstudio")
        source.write_text(dumps(doc), "utf-8")
        output = Path(tmp, "records.pickle")
        cmd = [sys.executable, "-m", "gradstudio.instruments.torch_child", str(source)]
        cmd += [str(output), "--device", device]
        if doc.trusted:
            cmd.append("--trusted")
        root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        try:
            done = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False
            )
        except subprocess.TimeoutExpired:
            raise TorchUnavailable(f"the PyTorch run took longer than {timeout:g} s") from None
        if done.returncode == NO_TORCH:
            raise TorchUnavailable(INSTALL_HINT)
        if done.returncode != 0 or not output.exists():
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise TorchUnavailable(f"the PyTorch run failed: {last}")
        # our own child wrote this file a moment ago, into our private directory
        with output.open("rb") as f:
            payload = pickle.load(f)
    return payload["records"], payload["torch"]


# --------------------------------------------------------------------- comparing


def compare(
    plan: Plan, ours: list[StepRecord], theirs: list[StepRecord], torch_version: str = ""
) -> VerifyReport:
    """Step-by-step comparison of two runs of the same plan (a pure function)."""
    mine: dict[OutputRef, TensorFacts | None] = {}
    other: dict[OutputRef, TensorFacts | None] = {}
    marks = []
    for index, step in enumerate(plan.steps):
        a = ours[index] if index < len(ours) else None
        b = theirs[index] if index < len(theirs) else None
        diffs: list[Difference] = []
        if a is not None:
            mine.update(a.changed)
        if b is not None:
            other.update(b.changed)
        diffs += _step_differences(a, b)
        touched = {**(a.changed if a else {}), **(b.changed if b else {})}
        values = not step.type.uninitialised  # ``empty_like``: memory, not a fact
        for ref in touched:
            label = plan.display_label(ref)
            facts = facts_differences(mine.get(ref, _ABSENT), other.get(ref, _ABSENT), values)
            diffs += [Difference(label, fact, x, y) for fact, x, y in facts]
        diffs += _trace_differences(a.trace if a else None, b.trace if b else None)
        marks.append(NodeMark(step.node_id, step.label, index, tuple(diffs)))
    return VerifyReport(tuple(marks), torch_version)


_ABSENT: Any = "absent"


def _step_differences(a: StepRecord | None, b: StepRecord | None) -> list[Difference]:
    sa = "not run" if a is None else a.status
    sb = "not run" if b is None else b.status
    diffs = []
    if sa != sb:
        diffs.append(Difference("", "status", sa, sb))
    ea = a.error if a else None
    eb = b.error if b else None
    if ea != eb:
        diffs.append(Difference("", "error", _error_text(ea), _error_text(eb)))
    wa = Counter(a.warnings if a else ())
    wb = Counter(b.warnings if b else ())
    if wa != wb:
        diffs.append(Difference("", "warnings", _warnings_text(wa), _warnings_text(wb)))
    return diffs


def _error_text(error: tuple[str, str] | None) -> str:
    return "none" if error is None else f"{error[0]}: {error[1]}"


def _warnings_text(warnings: Counter[tuple[str, str]]) -> str:
    return "; ".join(f"{c}: {m}" for c, m in sorted(warnings.elements())) or "none"


def facts_differences(a: Any, b: Any, values: bool = True) -> list[tuple[str, str, str]]:
    """``(fact, engine, torch)`` for every fact of one tensor that differs (its values
    only where ``values``)."""
    if a is _ABSENT or b is _ABSENT or a is None or b is None:
        if (a is None) == (b is None) and (a is _ABSENT) == (b is _ABSENT):
            return []
        return [("tensor", _presence(a), _presence(b))]
    out: list[tuple[str, str, str]] = []
    assert isinstance(a, TensorFacts) and isinstance(b, TensorFacts)
    for fact in ("shape", "dtype", "device", "requires_grad", "is_leaf", "retains_grad"):
        if getattr(a, fact) != getattr(b, fact):
            out.append((fact, str(getattr(a, fact)), str(getattr(b, fact))))
    if a.version != b.version:
        out.append(("_version", str(a.version), str(b.version)))
    if a.grad_fn_name != b.grad_fn_name:
        out.append(("grad_fn", str(a.grad_fn_name), str(b.grad_fn_name)))
    elif a.grad_fn is not None and b.grad_fn is not None:
        na, nb = _nexts(a.grad_fn.next_functions), _nexts(b.grad_fn.next_functions)
        if na != nb:
            out.append(("next_functions", str(na), str(nb)))
    same_kind = (a.shape, a.dtype) == (b.shape, b.dtype)  # else reported above
    if values and same_kind and not _close_arrays(a.array, b.array, a.dtype):
        out.append(("value", _show(a.array), _show(b.array)))
    if not _same_grad(a.grad, b.grad):
        out.append(("grad", _show_grad(a.grad), _show_grad(b.grad)))
    return out


def _presence(facts: Any) -> str:
    return "absent" if facts is _ABSENT else "None" if facts is None else "a tensor"


def _nexts(nexts: Any) -> list[tuple[str, int] | None]:
    return [None if n is None else (n.name, n.index) for n in nexts]


def _close_arrays(a: np.ndarray, b: np.ndarray, dtype: str) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        rtol, atol, of_largest = TOLERANCE.get(dtype, (1e-5, 1e-8, 0.0))
        fa, fb = a.astype(np.complex128), b.astype(np.complex128)
        finite = np.abs(fb[np.isfinite(fb)])
        atol = max(atol, of_largest * float(finite.max(initial=0.0)))
        return bool(np.allclose(fa, fb, rtol=rtol, atol=atol, equal_nan=True))
    return bool(np.array_equal(a, b))


def _same_grad(a: GradValue | None, b: GradValue | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return (a.shape, a.dtype, a.device) == (b.shape, b.dtype, b.device) and _close_arrays(
        a.array, b.array, a.dtype
    )


def _show(array: np.ndarray, width: int = 60) -> str:
    text = json.dumps(array.tolist(), default=str).replace(" ", "")
    return text if len(text) <= width else text[: width - 3] + "..."


def _show_grad(g: GradValue | None) -> str:
    return "None" if g is None else _show(g.array)


def _trace_differences(
    a: tuple[TraceExecution, ...] | None, b: tuple[TraceExecution, ...] | None
) -> list[Difference]:
    if a is None and b is None:
        return []
    names_a = [e.name for e in a or ()]
    names_b = [e.name for e in b or ()]
    if names_a != names_b:
        return [Difference("", "backward order", " -> ".join(names_a), " -> ".join(names_b))]
    diffs = []
    for n, (ea, eb) in enumerate(zip(a or (), b or (), strict=True)):
        where = f"#{n + 1} {ea.name}"
        if len(ea.outgoing) != len(eb.outgoing):
            diffs.append(Difference(where, "edges", str(len(ea.outgoing)), str(len(eb.outgoing))))
            continue
        for i, ((na, ga), (nb, gb)) in enumerate(zip(ea.outgoing, eb.outgoing, strict=True)):
            target_a = None if na is None else (na.name, na.index)
            target_b = None if nb is None else (nb.name, nb.index)
            if target_a != target_b:
                diffs.append(Difference(where, f"edge {i}", str(target_a), str(target_b)))
            elif not _same_grad(ga, gb):
                diffs.append(
                    Difference(where, f"edge {i} gradient", _show_grad(ga), _show_grad(gb))
                )
    return diffs


def format_report(report: VerifyReport) -> str:
    """A table, one row per step, each difference indented below its step."""
    rows = [("step", "node", "mark")]
    for m in report.marks:
        mark = "agrees" if m.agrees else f"{len(m.differences)} difference(s)"
        rows.append((str(m.step + 1), printable(m.label), mark))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = []
    for i, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
            continue
        for d in report.marks[i - 1].differences:
            where = f"{printable(d.tensor)}: " if d.tensor else ""
            lines.append(
                f"    {where}{d.fact}: engine {shorten(printable(d.engine))}"
                f" | torch {shorten(printable(d.torch))}"
            )
    verdict = "everything agrees" if report.agrees else "the engine differs from PyTorch"
    lines.append(f"PyTorch {report.torch_version}: {verdict}")
    return "\n".join(lines) + "\n"
