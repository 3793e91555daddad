"""The facts' texts as the inspector shows them: rich text for ``.grad`` (and why a
non-leaf's warns), the saved tensors, printed tensors and booleans as code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.messages import NONLEAF_GRAD_WARNING
from gradstudio.evaluation.facts import GradFnFacts, StepError, TensorFacts
from gradstudio.text import html_text, shape_text
from ui.inspector.value_view import tensor_text

#: The inspector's muted text for a plain one (the palette's placeholder colour).
Muted = Callable[[str], str]

ERROR = "#e5484d"
WARNING = "#d9822b"

#: PyTorch's warning when ``.grad`` of a non-leaf is read: the engine's one text, up to
#: its advice (the rest points at PyTorch's sources).
NONLEAF_WARNING = "UserWarning: " + NONLEAF_GRAD_WARNING.split(" If you access")[0]


def fact_rows(facts: TensorFacts, label: str, muted: Muted) -> dict[str, str]:
    """The text of each fact row of a tensor named ``label``, by row name."""
    leaf_note = (
        "created by you, not by an operation"
        if facts.is_leaf and facts.requires_grad
        else (
            "does not require grad, so a leaf by convention"
            if facts.is_leaf
            else "the result of an operation"
        )
    )
    fn = facts.grad_fn
    return {
        "tensor": f"<code>{shape_text(facts.shape)}</code> · {facts.dtype} · {facts.device}"
        + muted(f" · tensor #{facts.tensor_id}"),
        "requires_grad": bool_html(facts.requires_grad),
        "is_leaf": f"{bool_html(facts.is_leaf)} {muted('— ' + leaf_note)}",
        "grad_fn": "<code>None</code>"
        if fn is None
        else f"<code>&lt;{html_text(fn.name)}&gt;</code> "
        + muted("— the backward function that made this tensor"),
        "grad": grad_html(facts, label, muted),
        "retains_grad": bool_html(facts.retains_grad)
        + (
            muted(" — retain_grad() was called") if facts.retains_grad and not facts.is_leaf else ""
        ),
        "version": f"<code>{facts.version}</code>"
        + (muted(" — changed in place") if facts.version else ""),
        "saved": saved_html(fn, muted) if fn is not None else muted("—"),
    }


def grad_placeholder(facts: TensorFacts) -> str:
    """What the gradient's picture says when ``.grad`` is None, and why."""
    if facts.grad is None and facts.grad_access_warns:
        return ".grad is None (not kept for a non-leaf)"
    if facts.grad is None and not facts.requires_grad:
        return ".grad is None (does not require grad)"
    if facts.grad is None:
        return ".grad is None (no backward has reached it yet)"
    return ".grad is None"


def grad_html(facts: TensorFacts, label: str, muted: Muted) -> str:
    """The ``.grad`` fact: its value, or why reading it warns (a non-leaf)."""
    grad = facts.grad
    if facts.grad_access_warns:
        return (
            f"<span style='color:{WARNING}'>⚠ reading "
            f"<code>{html_text(label)}.grad</code> warns</span> and gives <code>None</code>"
            + muted(
                f"<br>{html_text(label)} is not a leaf, so backward does not keep its gradient "
                "unless you call retain_grad(). PyTorch says:<br><i>"
                + html_text(NONLEAF_WARNING)
                + "</i>"
            )
        )
    if grad is None:
        return "<code>None</code>"
    text = tensor_text(grad.array, grad.dtype, grad.device)
    note = "kept by retain_grad()" if not facts.is_leaf else "accumulated by backward"
    return f"{code_html(text, grad.shape)}{muted(note)}"


def saved_html(fn: GradFnFacts, muted: Muted) -> str:
    """A grad_fn's saved tensors and values, one row each."""
    rows = []
    for s in fn.saved:
        name = f"<code>_saved_{html_text(s.name)}</code>"
        if s.kind == "tensor":
            v = s.value
            text = tensor_text(v.array, v.dtype, v.device)
            rows.append(f"{name} = {code_html(text, v.shape).replace(' — printed below', '')}")
        elif s.kind == "freed":
            rows.append(f"{name}: {muted('freed by backward (retain_graph=False)')}")
        elif s.kind == "modified":
            rows.append(f"{name}: <span style='color:{ERROR}'>{html_text(str(s.value))}</span>")
        elif s.kind == "none":
            rows.append(f"{name} = <code>None</code>")
        else:
            rows.append(f"{name} = <code>{html_text(str(s.value))}</code>")
    return "<br>".join(rows) if rows else muted("none")


def problem_html(error: StepError, happened: bool, muted: Muted) -> str:
    """A step's error: PyTorch's message, what it means and how to fix it; ``happened``
    False when the timeline has not reached the failing step yet."""
    parts = [
        f"<b style='color:{ERROR}'>{html_text(error.title)}</b>",
        f"<code style='color:{ERROR}'>{html_text(error.exc_type)}: "
        f"{html_text(error.message)}</code>",
        html_text(error.explanation),
        f"<b>How to fix:</b> {html_text(error.fix)}",
    ]
    if error.traceback:
        parts.append(f"<pre>{html_text(error.traceback)}</pre>")
    if not happened:
        parts.insert(0, muted(f"(at step {error.step + 1}, later on the timeline)"))
    return "".join(f"<p style='margin:0 0 6px 0'>{p}</p>" for p in parts if p)


def warnings_html(warnings: list[Any], muted: Muted) -> str:
    """A step's warnings, each with its plain explanation."""
    rows = []
    for w in warnings:
        row = f"<b style='color:{WARNING}'>{html_text(w.category)}</b>: {html_text(w.message)}"
        if w.explanation:
            row += "<br>" + muted(html_text(w.explanation))
        rows.append(row)
    return "<br><br>".join(rows)


def code_html(text: str, shape: tuple[int, ...] = ()) -> str:
    """Printed tensor text as code; several lines become a pointer to the panel below."""
    if "\n" not in text:
        return f"<code>{html_text(text)}</code> "
    return f"<code>tensor(...)</code> of shape {shape_text(shape)} — printed below "


def bool_html(value: bool) -> str:
    return f"<code>{value}</code>"
