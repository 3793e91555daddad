"""The canvas's side of auto-layout: real card sizes, and tidying files that overlap.

The algorithm lives in the core (``gradstudio.document.layout``); only the canvas knows how big
its cards are, so it passes their real sizes in.  Files laid out elsewhere (old files,
other tools) may place cards closer than the studio draws them; ``tidy`` lays those out
again before they are shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradstudio.document.layout import auto_layout, card_width
from ui.canvas.style import card_height

if TYPE_CHECKING:
    from gradstudio.document.model import Document


def card_sizes(doc: Document) -> dict[str, tuple[float, float]]:
    """Every card's ``(width, height)`` as the canvas draws it, for the core's layout."""
    return {n.id: (card_width(n.type, n.label, n.params), card_height(n.type)) for n in doc.nodes()}


def overlaps(doc: Document, gap: float = 30.0) -> bool:
    """Whether any two cards overlap or nearly touch (a file laid out for smaller cards)."""
    sizes = card_sizes(doc)
    boxes = sorted((n.x, n.y, n.x + sizes[n.id][0], n.y + sizes[n.id][1]) for n in doc.nodes())
    for i, (_x0, y0, x1, y1) in enumerate(boxes):
        for ax0, ay0, _ax1, ay1 in boxes[i + 1 :]:
            if ax0 >= x1 + gap:
                break
            if ay0 < y1 + gap and y0 < ay1 + gap and ax0 < x1 + gap:
                return True
    return False


def tidy(doc: Document) -> bool:
    """Lay out a freshly opened document whose cards overlap (not an undoable edit).

    Files written by older versions or by other tools may place nodes on a grid that is
    tighter than the studio's cards; the layout is fixed before the user sees it.
    """
    if len(doc) < 2 or not overlaps(doc):
        return False
    for node_id, (x, y) in auto_layout(doc, card_sizes(doc)).items():
        doc.move_node(node_id, x, y)
    return True
