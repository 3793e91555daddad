"""The canvas's side of auto-layout: real card sizes, and tidying files that overlap.

The algorithm lives in the core (``gradstudio.document.layout``); only the canvas knows how big
its cards are, so it passes their real sizes in.  Files laid out elsewhere (old files,
other tools) may place cards closer than the studio draws them; ``tidy`` lays those out
again before they are shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradstudio.document.layout import auto_layout
from ui.canvas.style import card_height

if TYPE_CHECKING:
    from gradstudio.document.model import Document


def card_heights(doc: Document) -> dict[str, float]:
    return {n.id: card_height(n.type) for n in doc.nodes()}


def card_sizes(doc: Document, width: float) -> dict[str, tuple[float, float]]:
    """Every card's ``(width, height)`` as the canvas draws it, for the core's layout."""
    return {node_id: (width, h) for node_id, h in card_heights(doc).items()}


def overlaps(doc: Document, width: float, gap: float = 30.0) -> bool:
    """Whether any two cards overlap or nearly touch (a file laid out for smaller cards)."""
    heights = card_heights(doc)
    boxes = sorted((n.x, n.y, n.x + width, n.y + heights[n.id]) for n in doc.nodes())
    for i, (_x0, y0, x1, y1) in enumerate(boxes):
        for ax0, ay0, _ax1, ay1 in boxes[i + 1 :]:
            if ax0 >= x1 + gap:
                break
            if ay0 < y1 + gap and y0 < ay1 + gap and ax0 < x1 + gap:
                return True
    return False


def tidy(doc: Document, width: float) -> bool:
    """Lay out a freshly opened document whose cards overlap (not an undoable edit).

    Files written by older versions or by other tools may place nodes on a grid that is
    tighter than the studio's cards; the layout is fixed before the user sees it.
    """
    if len(doc) < 2 or not overlaps(doc, width):
        return False
    for node_id, (x, y) in auto_layout(doc, card_sizes(doc, width)).items():
        doc.move_node(node_id, x, y)
    return True
