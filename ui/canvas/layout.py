"""The canvas's side of auto-layout: real card sizes, and whether cards overlap.

The algorithm lives in the core (``gradstudio.document.layout``); only the canvas knows how big
its cards are, so it passes their real sizes in.  Files laid out elsewhere (old files,
other tools) may place cards closer than the studio draws them; they open as they are
(the layout is the user's), and the window says that Auto-Layout arranges them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gradstudio.document.layout import card_width
from ui.canvas.style import card_height

if TYPE_CHECKING:
    from gradstudio.document.model import Document


def card_sizes(doc: Document) -> dict[str, tuple[float, float]]:
    """Every card's ``(width, height)`` as the canvas draws it, for the core's layout."""
    return {n.id: (card_width(n.type, n.label, n.params), card_height(n.type)) for n in doc.nodes()}


def overlaps(doc: Document, gap: float = 30.0) -> bool:
    """Whether any two shown cards overlap or nearly touch (a file laid out for smaller
    cards); the cards of a collapsed group are hidden behind its one card."""
    sizes = card_sizes(doc)
    hidden: set[str] = set()
    for group in doc.groups.values():
        if group.collapsed:
            hidden |= doc.group_members(group.id)
    boxes = sorted(
        (n.x, n.y, n.x + sizes[n.id][0], n.y + sizes[n.id][1])
        for n in doc.nodes()
        if n.id not in hidden
    )
    for i, (_x0, y0, x1, y1) in enumerate(boxes):
        for ax0, ay0, _ax1, ay1 in boxes[i + 1 :]:
            if ax0 >= x1 + gap:
                break
            if ay0 < y1 + gap and y0 < ay1 + gap and ax0 < x1 + gap:
                return True
    return False
