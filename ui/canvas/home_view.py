"""Where a document opens: the whole graph if it reads there, else its last iteration.

Fitting a 5-step training loop into a 700-pixel canvas draws its cards at 6 % zoom,
too small for any label.  A document opens instead where its cards read
(``readable_zoom``: the smallest card text at least ``READABLE_PX`` on screen): the
whole graph when it fits there; otherwise the last iteration of the loop holding the
last backward (or the outermost frame holding it), fitted if it fits, else at the
readable zoom with the backward and its loss in view and as much of that frame around
them as the view holds.  A graph without frames (the examples, a snippet) opens whole
while its cards still draw their text (``OVERVIEW_LOD``); bigger, at its backward.
Zoom to Fit and the minimap still show the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontInfo

from gradstudio.catalogue import NodeKind

if TYPE_CHECKING:
    from gradstudio.document.model import Document
    from ui.canvas.scene import GraphScene
    from ui.canvas.style import CanvasStyle

READABLE_PX = 9.0
"""The least on-screen size (pixels, the font's em) at which a card's smallest text reads."""
MARGIN = 40.0
"""Scene units kept around what a view shows (as Zoom to Fit keeps)."""
BACKWARDS = ("Tensor.backward", "torch.autograd.backward", "torch.autograd.grad")


def readable_zoom(style: CanvasStyle) -> float:
    """The least zoom at which every text a card draws is ``READABLE_PX`` or more."""
    smallest = min(QFontInfo(f).pixelSize() for f in (style.small_font, style.mono_font))
    return READABLE_PX / max(1, smallest)


def last_backward(doc: Document) -> str | None:
    """The last backward of the program (or, without one, its last action)."""
    actions = [n for n in doc.order if doc.node(n).type.kind is NodeKind.ACTION]
    backwards = [n for n in actions if doc.node(n).type_id in BACKWARDS]
    found = backwards or actions
    return found[-1] if found else None


def focus(scene: GraphScene) -> tuple[QRectF | None, QRectF] | None:
    """(frame, anchor) in scene coordinates: the shown frame or card of the innermost
    loop holding the last backward (else its outermost group; None when no group holds
    it), and the backward with the cards that feed it (the loss).  None when the
    document has no action."""
    doc = scene.document
    node_id = last_backward(doc)
    if node_id is None:
        return None
    groups = doc.groups
    chain = []
    group = doc.group_of(node_id)
    while group is not None:
        chain.append(group.id)
        group = groups[group.parent] if group.parent is not None else None
    layer = scene.groups
    collapsed = layer.shown_as(node_id)
    if collapsed is not None:
        card = layer.card(collapsed)
        rect = card.scene_rect() if card is not None else QRectF()
        return rect, rect
    loops = [g for g in chain if groups[g].kind == "loop"]
    chosen = loops[0] if loops else (chain[-1] if chain else None)
    frame = layer.frame(chosen) if chosen is not None else None
    anchor = QRectF()
    for member in (node_id, *(e.src for e in doc.edges_of(node_id) if e.dst == node_id)):
        item = scene.node_item(member)
        if item is not None and item.isVisible():
            anchor = anchor.united(item.sceneBoundingRect())
    if anchor.isEmpty():
        return None
    return (frame.scene_rect() if frame is not None else None), anchor


def view_rect(frame: QRectF, anchor: QRectF, width: float, height: float) -> QRectF:
    """A ``width`` × ``height`` scene rectangle that shows ``anchor`` and as much of
    ``frame`` as it can: centred on the anchor, then pushed back inside the frame's
    edges on each side where the frame is larger than the view, centred on
    the frame where it is not."""
    shown = QRectF(0.0, 0.0, width, height)
    shown.moveCenter(anchor.center())
    outer = frame.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)
    if shown.width() < outer.width():
        shown.moveLeft(min(max(shown.left(), outer.left()), outer.right() - shown.width()))
    else:
        shown.moveLeft(outer.center().x() - width / 2)
    if shown.height() < outer.height():
        shown.moveTop(min(max(shown.top(), outer.top()), outer.bottom() - shown.height()))
    else:
        shown.moveTop(outer.center().y() - height / 2)
    return shown
