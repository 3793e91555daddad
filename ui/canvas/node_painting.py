"""How a node card paints itself: its body, header, border, ports and their captions,
the backward replay's ring, and far out its label and autograd mark at a size that
stays readable on screen; every text it draws is remembered beside the full text
(``drawn_texts``), so tests can tell a cut text from a whole one.

A mixin of ``NodeItem``; the facts lines under the ports are ``node_facts_lines``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QStyleOptionGraphicsItem, QWidget

from gradstudio.document.layout import port_caption
from ui.canvas.card_text import CardText
from ui.canvas.node_facts import DrawnText, NodeFacts
from ui.canvas.port_item import PortItem
from ui.canvas.style import (
    CORNER,
    FAR_LABEL_PX,
    HEADER_HEIGHT,
    LOD_TEXT,
    PORT_ROW,
    CanvasStyle,
)

if TYPE_CHECKING:
    from gradstudio.catalogue import NodeType
    from gradstudio.document.values import Node
    from ui.canvas.scene import GraphScene

EXECUTING = "#e5484d"  # the backward graph's colour for the grad_fn running now
TOUCHED = "#b57bff"  # ... and its gradient purple, for the nodes it just reached
FAR_MARK_PX = 11.0  # on-screen size of a far card's leaf / grad_fn mark
FAR_LEAST_LABEL_PX = 8.0  # the least on-screen sizes they shrink to before wrapping
FAR_LEAST_MARK_PX = 7.0


class NodePainting(CardText):
    """``NodeItem``'s painting (mixed into it)."""

    host: GraphScene
    node: Node
    node_id: str
    node_type: NodeType
    step: int
    facts: NodeFacts
    dimmed: bool
    width: float
    ports: list[PortItem]
    _rect: QRectF
    _hover_port: PortItem | None

    if TYPE_CHECKING:  # provided by QGraphicsItem and NodeFactsLines

        def isSelected(self) -> bool: ...  # noqa: N802 - Qt's name

        def _paint_facts(self, painter: QPainter, s: CanvasStyle) -> None: ...

    def border_color(self, s: CanvasStyle) -> QColor:
        f = self.facts
        if f.status == "error":
            return s.c("error")
        if f.requires_grad:
            return s.c("requires_grad")
        return s.c("node_border")

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        s = self.host.style
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        rect = self._rect
        selected = self.isSelected()
        if self.dimmed:
            painter.setOpacity(0.45)
        header_color = s.category(self.node_type.category)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        # shadow
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(s.c("node_shadow"))
        painter.drawRoundedRect(rect.translated(0.0, 3.0), CORNER, CORNER)
        # body
        painter.setBrush(s.c("node_body"))
        painter.drawRoundedRect(rect, CORNER, CORNER)
        # header
        header = QPainterPath()
        header.addRoundedRect(QRectF(0, 0, rect.width(), HEADER_HEIGHT + CORNER), CORNER, CORNER)
        clip = QPainterPath()
        clip.addRect(QRectF(0, 0, rect.width(), HEADER_HEIGHT))
        painter.setBrush(header_color.darker(135) if s.theme.is_dark else header_color)
        painter.drawPath(header.intersected(clip))
        # border: requires_grad colour, error red, selection outline
        border = self.border_color(s)
        width = 2.0 if (self.facts.requires_grad or self.facts.status == "error") else 1.0
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(border, width))
        painter.drawRoundedRect(rect, CORNER, CORNER)
        role = self.facts.replay_role
        if role:
            # the backward replay: this node's grad_fn runs now (the backward graph's red),
            # or it just received a gradient from the one that runs
            ring = QColor(EXECUTING if role == "executing" else TOUCHED)
            painter.setPen(QPen(ring, 3.0 if role == "executing" else 2.0, Qt.PenStyle.SolidLine))
            painter.drawRoundedRect(rect.adjusted(-6.5, -6.5, 6.5, 6.5), CORNER + 6, CORNER + 6)
        if selected:
            painter.setPen(QPen(s.c("node_selected"), 1.5, Qt.PenStyle.SolidLine))
            painter.drawRoundedRect(rect.adjusted(-3.5, -3.5, 3.5, 3.5), CORNER + 3, CORNER + 3)
        self._drawn = []
        if lod >= LOD_TEXT:
            self._paint_header(painter, s)
            self._paint_ports_text(painter, s)
            self._paint_facts(painter, s)
        else:
            self._paint_far(painter, s, lod)
        self._paint_ports(painter, s)

    def drawn_texts(self, zoom: float = 1.0) -> list[DrawnText]:
        """Every text the card draws at ``zoom`` (full detail at 100 %, its label and mark
        alone when far out), as ``(where, full, drawn)``: the card paints itself once
        offscreen at that zoom and reports what it wrote."""
        image = QImage(1, 1, QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        painter.scale(zoom, zoom)
        try:
            self.paint(painter, QStyleOptionGraphicsItem(), None)
        finally:
            painter.end()
        return list(self._drawn)

    def _paint_far(self, painter: QPainter, s: CanvasStyle, lod: float) -> None:
        """Semantic zoom: too far out for the card's details, its label and its autograd
        mark (leaf, or the grad_fn's name) are drawn at a size that stays readable on
        screen, as maps keep place names legible when zoomed out.  A label or mark too
        long for the card's width at the least readable size goes on two lines (words,
        or a grad_fn's name at its capitals) before anything would be cut."""
        rect = self._rect.adjusted(6.0, 4.0, -6.0, -4.0)
        f = self.facts
        mark = None if f.is_leaf is None else ("leaf" if f.is_leaf else (f.grad_fn or ""))
        label_font = QFont(s.title_font)
        label_font.setBold(True)
        mark_font = QFont(s.small_font)
        blocks = _far_layout(
            self.node.label, mark, label_font, mark_font, rect.width(), rect.height(), lod
        )
        heights = [QFontMetricsF(font).lineSpacing() * len(lines) for font, lines in blocks]
        y = rect.top() + max(0.0, (rect.height() - sum(heights)) / 2)
        pens = [s.c("text"), s.c("requires_grad") if f.requires_grad else s.c("text_dim")]
        for (font, lines), where, pen in zip(blocks, ("far label", "far mark"), pens, strict=True):
            metrics = QFontMetricsF(font)
            painter.setFont(font)
            painter.setPen(pen)
            for line in lines:
                box = QRectF(rect.left(), y, rect.width(), metrics.lineSpacing())
                self._text(painter, where, box, Qt.AlignmentFlag.AlignCenter, line, metrics)
                y += metrics.lineSpacing()

    def _paint_header(self, painter: QPainter, s: CanvasStyle) -> None:
        # step number in a small dark disc
        step_text = str(self.step + 1)
        painter.setFont(s.badge_font)
        w = max(18.0, s.badge_metrics.horizontalAdvance(step_text) + 8.0)
        disc = QRectF(6.0, (HEADER_HEIGHT - 16.0) / 2, w, 16.0)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, 90))
        painter.drawRoundedRect(disc, 8.0, 8.0)
        painter.setPen(s.c("header_text"))
        painter.drawText(disc, Qt.AlignmentFlag.AlignCenter, step_text)
        # label, then the type title on the right
        title = self.node_type.title
        painter.setFont(s.small_font)
        tw = s.small_metrics.horizontalAdvance(title) + 2.0
        type_rect = QRectF(self.width - 8.0 - tw, 0.0, tw, HEADER_HEIGHT)
        dim = QColor(s.c("header_text"))
        dim.setAlpha(170)
        painter.setPen(dim)
        middle = Qt.AlignmentFlag.AlignVCenter
        self._text(
            painter, "type", type_rect, middle | Qt.AlignmentFlag.AlignRight, title, s.small_metrics
        )
        painter.setFont(s.title_font)
        painter.setPen(s.c("header_text"))
        left = disc.right() + 6.0
        avail = type_rect.left() - left - 6.0
        self._text(
            painter,
            "label",
            QRectF(left, 0.0, avail, HEADER_HEIGHT),
            middle | Qt.AlignmentFlag.AlignLeft,
            self.node.label,
            s.title_metrics,
        )

    def _port_color(self, s: CanvasStyle, port: PortItem) -> QColor:
        return s.c("port_tensors") if port.type.value == "tensors" else s.c("port_tensor")

    def _paint_ports(self, painter: QPainter, s: CanvasStyle) -> None:
        connected = self.host.connected_ports(self.node_id)
        for port in self.ports:
            port.paint(
                painter,
                self._port_color(s, port),
                s.c("node_body"),
                (port.name, port.is_input) in connected,
                port is self._hover_port,
            )

    def _paint_ports_text(self, painter: QPainter, s: CanvasStyle) -> None:
        painter.setFont(s.small_font)
        connected = self.host.connected_ports(self.node_id)
        metrics = s.small_metrics
        outputs = {p.center.y(): p.name for p in self.ports if not p.is_input}
        middle = Qt.AlignmentFlag.AlignVCenter
        for port in self.ports:
            y = port.center.y() - PORT_ROW / 2
            if port.is_input:
                params = {} if (port.name, True) in connected else self.node.params
                variadic = port.spec.variadic
                count = self.host.input_count(self.node_id, port.name) if variadic else None
                text = port_caption(port.spec, params, count, wired=(port.name, True) in connected)
                beside = outputs.get(port.center.y())
                right = self.width - 12.0
                if beside is not None:
                    right -= metrics.horizontalAdvance(beside) + 10.0
                painter.setPen(s.c("text") if not port.spec.optional else s.c("text_dim"))
                rect = QRectF(12.0, y, right - 12.0, PORT_ROW)
                self._text(
                    painter, "port", rect, middle | Qt.AlignmentFlag.AlignLeft, text, metrics
                )
            else:
                painter.setPen(s.c("text"))
                w = metrics.horizontalAdvance(port.name) + 1.0
                rect = QRectF(self.width - 12.0 - w, y, w, PORT_ROW)
                self._text(
                    painter,
                    "port",
                    rect,
                    middle | Qt.AlignmentFlag.AlignRight,
                    port.name,
                    metrics,
                    Qt.TextElideMode.ElideLeft,
                )


def _two_lines(text: str, capitals: bool) -> list[str]:
    """``text`` split in two near its middle: a label at a space or after a call's
    punctuation (``loss.`` / ``backward()``), a grad_fn's name before a capital
    letter; unsplit when it has no such place."""
    if capitals:
        cuts = [i for i, c in enumerate(text) if i > 0 and c.isupper()]
    else:
        cuts = [i + 1 for i, c in enumerate(text[:-1]) if c in " .(,="]
    if not cuts:
        return [text]
    cut = min(cuts, key=lambda i: abs(len(text) / 2 - i))
    return [text[:cut].strip(), text[cut:].strip()]


def _far_layout(
    label: str,
    mark: str | None,
    label_font: QFont,
    mark_font: QFont,
    width: float,
    height: float,
    lod: float,
) -> list[tuple[QFont, list[str]]]:
    """The far card's text blocks (sized font, lines): the first of one line
    each, a two-line label, a two-line mark too, that fits the card at no less than the
    least readable size; the last of them when none does (the painter then cuts)."""
    label_ways = [[label], _two_lines(label, False)]
    mark_ways = [[mark], _two_lines(mark, True)] if mark else [[]]
    tries = [(a, b) for b in mark_ways for a in label_ways]
    tries.sort(key=lambda t: len(t[0]) + len(t[1]))
    best: list[tuple[QFont, list[str]]] | None = None
    for label_lines, mark_lines in tries:
        label_px, mark_px = FAR_LABEL_PX / lod, FAR_MARK_PX / lod
        least_label, least_mark = FAR_LEAST_LABEL_PX / lod, FAR_LEAST_MARK_PX / lod
        while True:
            fonts = []
            for font, px in ((label_font, label_px), (mark_font, mark_px)):
                sized = QFont(font)
                sized.setPixelSize(max(1, int(px)))
                fonts.append(sized)
            blocks = [(fonts[0], label_lines), (fonts[1], mark_lines)]
            wide = max(
                QFontMetricsF(font).horizontalAdvance(line)
                for font, lines in blocks
                for line in lines
            )
            tall = sum(QFontMetricsF(font).lineSpacing() * len(lines) for font, lines in blocks)
            if wide <= width and tall <= height:
                return blocks
            if label_px <= least_label and mark_px <= least_mark:
                break
            label_px = max(least_label, label_px * 0.9)
            mark_px = max(least_mark, mark_px * 0.9)
        best = blocks
    assert best is not None
    return best
