"""The backward view's heading texts: the colour legend in torchviz's language, and the
status line (how many grad_fns, which backward's gradients show, a zoom hint)."""

from __future__ import annotations

import html

from PySide6.QtGui import QColor

from gradstudio.evaluation.playhead import Playhead
from ui.backward.focus import hidden_text
from ui.backward.item_style import CURRENT, FLOW, FN_FILL, LEAF_FILL, OUTPUT_FILL, SAVED_FILL

#: The legend's entries: the fill of each kind of box, the gradient and the executing edge.
LEGEND = (
    (LEAF_FILL, "leaf"),
    (FN_FILL, "grad_fn"),
    (SAVED_FILL, "saved"),
    (OUTPUT_FILL, "output"),
    (FLOW, "gradient"),
    (CURRENT, "executing"),
)


def legend_chip(colour: QColor, text: str) -> str:
    """One legend entry as rich text (the entries wrap in a narrow dock)."""
    swatch = (
        f"<span style='background:{colour.name()}; color:{colour.name()};'>&nbsp;■&nbsp;</span>"
    )
    return f"<span style='white-space:nowrap'>{swatch}&nbsp;{text}</span>"


def legend_html() -> str:
    return " ".join(legend_chip(c, t) for c, t in LEGEND)


def status_html(
    fn_count: int,
    playhead: Playhead,
    names_hidden: bool,
    enlarge_hint: str,
    muted: str,
    hidden_graphs: int = 0,
) -> str:
    """The status line; ``names_hidden``: the boxes are too small to name at this zoom,
    and ``enlarge_hint`` says how to see the graph big; ``muted``: the placeholder colour;
    ``hidden_graphs``: how many earlier backward graphs the view puts aside."""
    ev = playhead.evaluation
    n = fn_count
    parts = [f"<b>{n}</b> grad_fn node{'s' if n != 1 else ''}"]
    at = playhead.trace_at()
    if at is not None and ev is not None:
        label = html.escape(ev.plan.labels.get(at.trace.node_id, "backward"))
        total = len(at.trace.executions)
        if at.live and playhead.replay is not None:
            parts.append(f"replaying <b>{label}</b>: {len(at.executed)} / {total}")
        elif at.live:
            parts.append(f"gradients of <b>{label}</b> (step {at.trace.step + 1})")
        else:
            parts.append(
                f"<span style='color:{muted}'>gradients of the last backward, "
                f"{label} (step {at.trace.step + 1})</span>"
            )
    if hidden_graphs:
        parts.append(f"<b>{hidden_text(hidden_graphs)}</b>")
    if names_hidden:
        hint = f" or {enlarge_hint}" if enlarge_hint else ""
        parts.append(f"<span style='color:{muted}'>too small for names: zoom in{hint}</span>")
    return " · ".join(parts)
